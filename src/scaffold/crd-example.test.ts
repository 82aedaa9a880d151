import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { exampleSpec } from './crd-example.ts';

const withSpec = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });

describe('exampleSpec', () => {
  it('fills the required fields only, each with the simplest value its schema allows', () => {
    const spec: JSONSchemaProps = {
      type: 'object',
      required: ['memory', 'tier', 'replicas', 'name', 'ports', 'created', 'enabled', 'nested'],
      properties: {
        memory: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        tier: { type: 'string', enum: ['gold', 'silver'] },
        replicas: { type: 'integer', minimum: 3, maximum: 5 },
        name: { type: 'string', minLength: 10 },
        ports: {
          type: 'array',
          minItems: 1,
          items: { type: 'object', required: ['port'], properties: { port: { type: 'integer', default: 80 } } },
        },
        created: { type: 'string', format: 'date-time' },
        enabled: { type: 'boolean' },
        nested: {
          type: 'object',
          required: ['a'],
          properties: { a: { type: 'number', minimum: 0, exclusiveMinimum: true } },
        },
        optional: { type: 'string' },
      },
    };
    expect(exampleSpec(withSpec(spec))).toEqual({
      memory: 1,
      tier: 'gold',
      replicas: 3,
      name: 'examplexxx',
      ports: [{ port: 80 }],
      created: '2024-05-01T12:00:00Z',
      enabled: false,
      nested: { a: 1 },
    });
  });

  it('keeps within an upper bound, and gives nothing for a kind without a spec', () => {
    expect(exampleSpec(withSpec({ type: 'integer', maximum: 0 }))).toBe(0);
    expect(exampleSpec(withSpec({ type: 'string', maxLength: 3 }))).toBe('exa');
    expect(exampleSpec({ type: 'object', properties: { data: { type: 'string' } } })).toBeUndefined();
  });
});
