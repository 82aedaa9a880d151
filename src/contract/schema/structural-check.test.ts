import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { checkStructural } from './structural-check.ts';

const withSpec = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });

describe('checkStructural', () => {
  it('accepts a structural schema using every feature crdgate understands', () => {
    const schema = withSpec({
      type: 'object',
      required: ['size'],
      properties: {
        size: { type: 'string', format: 'quantity', pattern: '^\\d' },
        port: { 'x-kubernetes-int-or-string': true },
        free: { 'x-kubernetes-preserve-unknown-fields': true },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        caches: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'zone'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, zone: { type: 'string', default: 'a' } },
          },
        },
      },
      anyOf: [{ required: ['size'] }, { properties: { size: { minLength: 1 } } }],
    });
    expect(checkStructural(schema)).toEqual([]);
  });

  it('requires an object at the root', () => {
    expect(checkStructural({ type: 'string' })).toEqual([expect.stringMatching(/^openAPIV3Schema\.type: /)]);
  });

  it.each<[string, JSONSchemaProps, RegExp]>([
    ['a node without type', { properties: {} }, /^openAPIV3Schema\.properties\[spec\]\.type: /],
    ['int-or-string with a type', { type: 'string', 'x-kubernetes-int-or-string': true }, /\.type: .*int-or-string/],
    [
      'properties with additionalProperties',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
      /\.additionalProperties: /,
    ],
    ['properties on a string', { type: 'string', properties: {} }, /\.properties: /],
    ['an array without items', { type: 'array' }, /\.items: /],
    ['items on an object', { type: 'object', items: { type: 'string' } }, /\.items: /],
    ['an embedded resource that is not an object', { type: 'string', 'x-kubernetes-embedded-resource': true }, /\.type: /],
    ['a list type on a string', { type: 'string', 'x-kubernetes-list-type': 'set' }, /x-kubernetes-list-type: /],
    [
      'map keys without list type map',
      { type: 'array', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', properties: { name: { type: 'string' } } } },
      /x-kubernetes-list-map-keys: /,
    ],
    ['list type map without keys', { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object' } }, /x-kubernetes-list-map-keys: /],
    [
      'list type map of strings',
      { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'string' } },
      /\.items\.type: /,
    ],
    [
      'a map key that is not a field',
      { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['id'], items: { type: 'object', properties: {} } },
      /"id" is not a property/,
    ],
    [
      'a map key that is not a scalar',
      {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['id'],
        items: { type: 'object', required: ['id'], properties: { id: { type: 'object' } } },
      },
      /"id" must be a scalar/,
    ],
    [
      'a map key that is neither required nor defaulted',
      {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['id'],
        items: { type: 'object', properties: { id: { type: 'string' } } },
      },
      /"id" must be required or have a default/,
    ],
    ['a pattern ECMAScript cannot compile', { type: 'string', pattern: '(?i)abc' }, /\.pattern: /],
    ['a type inside anyOf', { type: 'string', anyOf: [{ type: 'string' }] }, /\.anyOf\[0\]\.type: /],
    ['nullable inside allOf', { type: 'string', allOf: [{ nullable: true }] }, /\.allOf\[0\]\.nullable: /],
    ['a description deep inside not', { type: 'object', not: { properties: { a: { description: 'x' } } } }, /\.not\.properties\[a\]\.description: /],
    ['an extension inside oneOf', { type: 'object', oneOf: [{ 'x-kubernetes-preserve-unknown-fields': true }] }, /\.oneOf\[0\]\.x-kubernetes/],
  ])('reports %s', (_case, spec, problem) => {
    const problems = checkStructural(withSpec(spec));
    expect(problems).toContainEqual(expect.stringMatching(problem));
  });

  it('reports every problem, not only the first', () => {
    const problems = checkStructural(withSpec({ type: 'object', properties: { a: {}, b: { type: 'array' } } }));
    expect(problems).toEqual([
      expect.stringMatching(/properties\[a\]\.type: /),
      expect.stringMatching(/properties\[b\]\.items: /),
    ]);
  });
});
