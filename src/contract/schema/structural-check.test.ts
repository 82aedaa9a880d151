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
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
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

  // Shapes the API server accepts (each checked against a real kube-apiserver by test/e2e/crd-schemas.e2e.test.ts).
  it.each<[string, JSONSchemaProps]>([
    // controller-gen's IntOrString and Quantity, and the allOf form of the same exception.
    [
      'an int-or-string anyOf',
      { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }], pattern: '^\\d+%?$' },
    ],
    [
      'the int-or-string anyOf without the extension',
      { type: 'string', anyOf: [{ type: 'integer' }, { type: 'string' }] },
    ],
    [
      'an allOf whose first entry is the int-or-string anyOf',
      {
        'x-kubernetes-int-or-string': true,
        allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }], minimum: 3 }, { maximum: 10 }],
      },
    ],
    ['int-or-string with a type', { type: 'string', 'x-kubernetes-int-or-string': true }],
    ['properties on a string', { type: 'string', properties: {} }],
    ['items on an object', { type: 'object', items: { type: 'string' } }],
    [
      'additionalProperties: true next to properties',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
    ],
    ['additionalProperties: false inside anyOf', { type: 'object', anyOf: [{ additionalProperties: false }] }],
    [
      'an embedded resource that keeps unknown fields',
      { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    ],
    [
      'a nested junctor naming an undeclared field',
      { type: 'object', anyOf: [{ properties: { b: { minLength: 1 } } }] },
    ],
    [
      'CEL rules with field paths that lead somewhere',
      {
        type: 'object',
        properties: {
          a: { type: 'object', properties: { 'b.c': { type: 'string' } } },
          m: { type: 'object', additionalProperties: { type: 'string' } },
        },
        'x-kubernetes-validations': [
          { rule: 'true', fieldPath: ".a['b.c']" },
          { rule: 'true', fieldPath: '.m.anything' },
        ],
      },
    ],
  ])('accepts %s, as the API server does', (_case, spec) => {
    expect(checkStructural(withSpec(spec))).toEqual([]);
  });

  it('accepts metadata at the root that restricts only name and generateName', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        metadata: {
          type: 'object',
          properties: { name: { type: 'string', maxLength: 10 }, generateName: { type: 'string' } },
        },
        spec: { type: 'object' },
      },
    };
    expect(checkStructural(schema)).toEqual([]);
  });

  it('requires an object at the root', () => {
    expect(checkStructural({ type: 'string' })).toEqual([expect.stringMatching(/^openAPIV3Schema\.type: /)]);
  });

  it.each<[string, JSONSchemaProps, RegExp]>([
    ['a node without type', { properties: {} }, /^openAPIV3Schema\.properties\[spec\]\.type: /],
    [
      'properties with additionalProperties',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } },
      /\.additionalProperties: /,
    ],
    ['an array without items', { type: 'array' }, /\.items: /],
    [
      'an embedded resource that is not an object',
      { type: 'string', 'x-kubernetes-embedded-resource': true },
      /\.type: /,
    ],
    [
      'a list type on a string',
      { type: 'string', 'x-kubernetes-list-type': 'set' },
      /\.type: Invalid value: "string": must be array if x-kubernetes-list-type is specified$/,
    ],
    [
      'map keys without list type map',
      {
        type: 'array',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' } } },
      },
      /\.x-kubernetes-list-type: Required value: must be map if x-kubernetes-list-map-keys is non-empty$/,
    ],
    [
      'list type map without keys',
      { type: 'array', 'x-kubernetes-list-type': 'map', items: { type: 'object' } },
      /x-kubernetes-list-map-keys: /,
    ],
    [
      'list type map of strings',
      {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'string' },
      },
      /\.items\.type: /,
    ],
    [
      'a map key that is not a field',
      {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['id'],
        items: { type: 'object', properties: {} },
      },
      /\.x-kubernetes-list-map-keys: Invalid value: \["id"\]: entries must all be names of item properties$/,
    ],
    [
      'a map key that is not a scalar',
      {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['id'],
        items: { type: 'object', required: ['id'], properties: { id: { type: 'object' } } },
      },
      /\.items\.properties\[id\]\.type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map$/,
    ],
    [
      'a map key that is neither required nor defaulted',
      {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['id'],
        items: { type: 'object', properties: { id: { type: 'string' } } },
      },
      /\.items\.properties\[id\]\.default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property$/,
    ],
    [
      "a pattern Go's regexp cannot compile (a lookahead)",
      { type: 'string', pattern: '^(?=a)' },
      /\.pattern: Invalid value: "\^\(\?=a\)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `\(\?=`$/,
    ],
    ['a type inside anyOf', { type: 'string', anyOf: [{ type: 'string' }] }, /\.anyOf\[0\]\.type: /],
    ['nullable inside allOf', { type: 'string', allOf: [{ nullable: true }] }, /\.allOf\[0\]\.nullable: /],
    [
      'a description deep inside not',
      { type: 'object', not: { properties: { a: { description: 'x' } } } },
      /\.not\.properties\[a\]\.description: /,
    ],
    [
      'an extension inside oneOf',
      { type: 'object', oneOf: [{ 'x-kubernetes-preserve-unknown-fields': true }] },
      /\.oneOf\[0\]\.x-kubernetes/,
    ],
  ])('reports %s', (_case, spec, problem) => {
    const problems = checkStructural(withSpec(spec));
    expect(problems).toContainEqual(expect.stringMatching(problem));
  });

  // The API server's own words for each (kube-apiserver v1.36.4), under openAPIV3Schema.properties[spec].
  it.each<[string, JSONSchemaProps, string[]]>([
    [
      'the int-or-string anyOf in the other order',
      { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'string' }, { type: 'integer' }] },
      [
        'anyOf[0].type: Forbidden: must be empty to be structural',
        'anyOf[1].type: Forbidden: must be empty to be structural',
      ],
    ],
    [
      'the int-or-string anyOf with a bound in a branch',
      { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string' }] },
      [
        'anyOf[0].type: Forbidden: must be empty to be structural',
        'anyOf[1].type: Forbidden: must be empty to be structural',
      ],
    ],
    [
      'the int-or-string anyOf inside another junctor',
      {
        type: 'object',
        properties: { b: { 'x-kubernetes-int-or-string': true } },
        anyOf: [{ properties: { b: { anyOf: [{ type: 'integer' }, { type: 'string' }] } } }],
      },
      [
        'anyOf[0].properties[b].anyOf[0].type: Forbidden: must be empty to be structural',
        'anyOf[0].properties[b].anyOf[1].type: Forbidden: must be empty to be structural',
      ],
    ],
    [
      'int-or-string that also keeps unknown fields',
      { 'x-kubernetes-int-or-string': true, 'x-kubernetes-preserve-unknown-fields': true },
      [
        'x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true',
      ],
    ],
    [
      'an embedded resource without fields',
      { type: 'object', 'x-kubernetes-embedded-resource': true },
      [
        'properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
      ],
    ],
    [
      'uniqueItems',
      { type: 'array', uniqueItems: true, items: { type: 'string' } },
      ['uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic'],
    ],
    [
      'additionalProperties: false next to properties',
      { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false },
      ['additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive'],
    ],
    [
      'an object set whose items are not atomic',
      { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', nullable: true } },
      [
        'items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set',
        'items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set',
      ],
    ],
    [
      'an unknown list type',
      { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' as 'set' },
      ['x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"'],
    ],
    [
      'a CEL rule that is empty, and one with a field path that leads nowhere',
      {
        type: 'object',
        properties: { a: { type: 'object' } },
        'x-kubernetes-validations': [{ rule: ' ' }, { rule: 'true', fieldPath: '.a.x' }],
      },
      [
        'x-kubernetes-validations[0].rule: Required value: rule is not specified',
        'x-kubernetes-validations[1].fieldPath: Invalid value: ".a.x": must be a valid path',
      ],
    ],
    [
      'a CEL rule inside anyOf',
      { type: 'string', anyOf: [{ 'x-kubernetes-validations': [{ rule: 'true' }] }] },
      ['anyOf[0].x-kubernetes-validations: Forbidden: must be empty to be structural'],
    ],
    [
      'metadata inside a nested junctor',
      { type: 'object', anyOf: [{ properties: { metadata: {} } }] },
      ['anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context'],
    ],
  ])("refuses %s, in the API server's words", (_case, spec, problems) => {
    expect(checkStructural(withSpec(spec))).toEqual(
      problems.map((problem) => `openAPIV3Schema.properties[spec].${problem}`),
    );
  });

  it.each<[string, JSONSchemaProps, string[]]>([
    [
      'metadata at the root that restricts more than names',
      { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } },
      [
        'openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified',
      ],
    ],
    [
      'a default in top-level metadata, and a kind that is not a string',
      {
        type: 'object',
        properties: {
          kind: { type: 'integer' },
          metadata: { type: 'object', properties: { name: { type: 'string', default: 'x' } } },
        },
      },
      [
        'openAPIV3Schema.properties[kind].type: Invalid value: "integer": must be string',
        'openAPIV3Schema.properties[metadata].properties[name].default: Forbidden: must not be set in top-level metadata',
      ],
    ],
    [
      'additionalProperties at the root',
      { type: 'object', additionalProperties: { type: 'string' } },
      ['openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root'],
    ],
    [
      'nullable at the root',
      { type: 'object', nullable: true },
      ['openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root'],
    ],
    [
      'a root junctor naming an undeclared field',
      { type: 'object', properties: { spec: { type: 'object' } }, anyOf: [{ properties: { foo: { minLength: 1 } } }] },
      [
        'openAPIV3Schema.properties[foo]: Required value: because it is defined in openAPIV3Schema.anyOf[0].properties[foo]',
      ],
    ],
    [
      '$ref and patternProperties (and no structural check of what the API server cannot read)',
      { type: 'object', properties: { spec: { $ref: '#/x' } as JSONSchemaProps } },
      ['openAPIV3Schema.properties[spec].$ref: Forbidden: $ref is not supported'],
    ],
  ])("refuses %s, in the API server's words", (_case, schema, problems) => {
    expect(checkStructural(schema)).toEqual(problems);
  });

  it("holds the root to the status subresource's rule only when the version has it", () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      anyOf: [{ required: ['spec'] }],
      properties: { spec: { type: 'object' } },
    };
    expect(checkStructural(schema)).toEqual([]);
    expect(checkStructural(schema, { statusSubresource: true })).toEqual([
      expect.stringMatching(
        /^openAPIV3Schema: Invalid value: "anyOf": only \[Description Type .* XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/,
      ),
    ]);
    expect(
      checkStructural(
        { ...schema, anyOf: undefined, description: 'd', required: ['spec'] },
        { statusSubresource: true },
      ),
    ).toEqual([]);
  });

  it('reports every problem, not only the first', () => {
    const problems = checkStructural(withSpec({ type: 'object', properties: { a: {}, b: { type: 'array' } } }));
    expect(problems).toEqual([
      expect.stringMatching(/properties\[a\]\.type: /),
      expect.stringMatching(/properties\[b\]\.items: /),
    ]);
  });
});
