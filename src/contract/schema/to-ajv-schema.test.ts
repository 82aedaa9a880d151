import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { listUniquenessKeyword } from './list-uniqueness.ts';
import { toAjvSchema } from './to-ajv-schema.ts';

const translate = (schema: JSONSchemaProps) => toAjvSchema(schema, { resourceRoot: false });

describe('toAjvSchema', () => {
  it('turns pruning into additionalProperties: false, except where unknown fields are preserved', () => {
    expect(translate({ type: 'object', properties: { a: { type: 'string' } } })).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
    });
    expect(translate({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true })).toEqual({ type: 'object' });
  });

  it('turns nullable and int-or-string into type unions, and lets null through a nullable enum', () => {
    expect(translate({ type: 'string', nullable: true, enum: ['a'] })).toEqual({
      type: ['string', 'null'],
      enum: ['a', null],
    });
    expect(translate({ 'x-kubernetes-int-or-string': true })).toEqual({ type: ['integer', 'string'] });
  });

  it("turns OpenAPI's boolean exclusive bounds into draft-07 numeric ones", () => {
    expect(
      translate({ type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: false }),
    ).toEqual({
      type: 'number',
      exclusiveMinimum: 0,
      maximum: 1,
    });
  });

  it('keeps known formats and drops unknown ones', () => {
    expect(translate({ type: 'string', format: 'quantity' })).toEqual({ type: 'string', format: 'quantity' });
    // The format is dropped; naming one still widens the type as kube-apiserver's type check does (a string or an
    // array passes), which crdgate's own formats (quantity above) do not.
    expect(translate({ type: 'string', format: 'duration' })).toEqual({
      type: ['string', 'array'],
      declaredType: ['string'],
    });
  });

  it('adds the list uniqueness keyword for sets and maps only', () => {
    const items: JSONSchemaProps = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
    expect(
      translate({ type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items }),
    ).toMatchObject({
      [listUniquenessKeyword]: { listType: 'map', keys: ['name'] },
    });
    expect(translate({ type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } })).toMatchObject({
      [listUniquenessKeyword]: { listType: 'set' },
    });
    expect(
      translate({ type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } }),
    ).not.toHaveProperty(listUniquenessKeyword);
  });

  it('neither types nor prunes inside junctors', () => {
    expect(
      translate({
        type: 'object',
        properties: { a: { type: 'string' } },
        anyOf: [{ properties: { a: { minLength: 1 } } }],
      }),
    ).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
      additionalProperties: false,
      anyOf: [{ properties: { a: { minLength: 1 } } }],
    });
  });

  it('applies the junctors of a node that lets null through to other values only', () => {
    expect(
      translate({
        'x-kubernetes-int-or-string': true,
        nullable: true,
        anyOf: [{ type: 'integer' }, { type: 'string' }],
      }),
    ).toEqual({
      type: ['integer', 'string', 'null'],
      if: { type: 'null' },
      else: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
    });
    expect(translate({ 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] })).toEqual(
      {
        type: ['integer', 'string'],
        anyOf: [{ type: 'integer' }, { type: 'string' }],
      },
    );
  });

  it('declares apiVersion, kind and metadata at a resource root and in embedded resources', () => {
    const root = toAjvSchema({ type: 'object', properties: {} }, { resourceRoot: true });
    expect(root.properties).toEqual({
      apiVersion: { type: 'string' },
      kind: { type: 'string' },
      metadata: { type: 'object' },
    });
    expect(translate({ type: 'object', 'x-kubernetes-embedded-resource': true })).toMatchObject({
      required: ['apiVersion', 'kind'],
      additionalProperties: false,
    });
  });

  it('leaves the description, default and other annotations out', () => {
    expect(translate({ type: 'integer', description: 'd', default: 1, title: 't', example: 2 })).toEqual({
      type: 'integer',
    });
  });
});
