import { Ajv } from 'ajv';
import { RE2JS } from 're2js';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FieldError, FieldErrorType } from '../values/field-error.ts';
import {
  createSchemaCompiler,
  fullReportValueLimit,
  maxMappedAjvErrors,
  SchemaCompileError,
} from './compile-schema.ts';
import type { JSONSchemaProps, JSONSchemaType } from './json-schema-props.ts';

function compile(schema: JSONSchemaProps, options?: { rootPath?: string }) {
  return createSchemaCompiler().compile(schema, options);
}

/** A resource whose spec has the given fields. */
function resourceWithSpec(
  properties: Record<string, JSONSchemaProps>,
  spec: Partial<JSONSchemaProps> = {},
): JSONSchemaProps {
  return { type: 'object', properties: { spec: { type: 'object', properties, ...spec } } };
}

/** Validates `{ spec }` against a resource with one spec field `value` of the given schema. */
function checkValue(schema: JSONSchemaProps, value: unknown): FieldError[] {
  return compile(resourceWithSpec({ value: schema }))({ spec: { value } });
}

const where = (errors: FieldError[]) => errors.map(({ field, type }) => [field, type]);

const controlCharacter = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

describe('types', () => {
  it.each<[JSONSchemaType, unknown, unknown]>([
    ['integer', 3, 'x'],
    ['integer', -1, 1.5],
    ['number', 1.5, '1.5'],
    ['string', 'x', 1],
    ['boolean', false, 'false'],
    ['object', {}, []],
    ['array', [], {}],
  ])('%s accepts %j and rejects %j', (type, good, bad) => {
    const schema: JSONSchemaProps = type === 'array' ? { type, items: { type: 'string' } } : { type };
    expect(checkValue(schema, good)).toEqual([]);
    expect(where(checkValue(schema, bad))).toEqual([['spec.value', 'FieldValueTypeInvalid']]);
  });

  it('says what was expected and what was found', () => {
    const [error] = checkValue({ type: 'integer' }, 'x');
    expect(error?.message).toMatch(/integer/);
    expect(error?.message).toMatch(/string/);
  });

  it('rejects null unless the field is nullable', () => {
    expect(where(checkValue({ type: 'string' }, null))).toEqual([['spec.value', 'FieldValueTypeInvalid']]);
    expect(checkValue({ type: 'string', nullable: true }, null)).toEqual([]);
    expect(checkValue({ type: 'string', nullable: true, enum: ['a'] }, null)).toEqual([]);
    expect(where(checkValue({ type: 'string', nullable: true, enum: ['a'] }, 'b'))).toEqual([
      ['spec.value', 'FieldValueNotSupported'],
    ]);
  });

  // kube-openapi's validator checks an enum only when it lists values; ajv refused to compile an empty one.
  it('reads an empty enum as no enum, as the API server does', () => {
    expect(checkValue({ type: 'string', enum: [] }, 'anything')).toEqual([]);
  });

  it('takes an integer or a string for x-kubernetes-int-or-string', () => {
    const schema: JSONSchemaProps = { 'x-kubernetes-int-or-string': true, pattern: '^\\d+%$' };
    expect(checkValue(schema, 3)).toEqual([]);
    expect(checkValue(schema, '30%')).toEqual([]);
    expect(where(checkValue(schema, '30'))).toEqual([['spec.value', 'FieldValueInvalid']]);
    expect(where(checkValue(schema, 1.5))).toEqual([['spec.value', 'FieldValueTypeInvalid']]);
    expect(where(checkValue(schema, true))).toEqual([['spec.value', 'FieldValueTypeInvalid']]);
  });

  // kube-openapi's type check (kube-apiserver v1.36 stores these): a string or an array passes any type but integer
  // and number that carries a format; the format and string checks look at strings only.
  it('lets a string or an array through a non-numeric type with a format, as kube-apiserver does, and names the declared type', () => {
    expect(checkValue({ type: 'string', format: 'byte' }, [1, 2])).toEqual([]);
    expect(checkValue({ type: 'string', format: 'date-time', maxLength: 3 }, ['a', 'b', 'c', 'd'])).toEqual([]);
    expect(checkValue({ type: 'object', format: 'x', properties: { a: { type: 'string' } } }, 'text')).toEqual([]);
    const [wrong] = checkValue({ type: 'string', format: 'byte' }, 12);
    expect(wrong).toMatchObject({
      field: 'spec.value',
      type: 'FieldValueTypeInvalid',
      message: 'Invalid value: 12: must be of type string, got integer',
    });
    expect(where(checkValue({ type: 'string', format: 'byte' }, 'not base64!'))).toEqual([
      ['spec.value', 'FieldValueInvalid'],
    ]);
    expect(where(checkValue({ type: 'integer', format: 'int32' }, '1'))).toEqual([
      ['spec.value', 'FieldValueTypeInvalid'],
    ]);
    expect(where(checkValue({ type: 'string' }, [1, 2]))).toEqual([['spec.value', 'FieldValueTypeInvalid']]);
  });

  it('takes anything where no type is given and unknown fields are preserved', () => {
    const schema: JSONSchemaProps = { 'x-kubernetes-preserve-unknown-fields': true };
    for (const value of [1, 'x', null, [1], { a: { b: 1 } }]) expect(checkValue(schema, value)).toEqual([]);
  });
});

describe('required', () => {
  it('reports the missing field by its own path', () => {
    const validate = compile(resourceWithSpec({ name: { type: 'string' } }, { required: ['name'] }));
    expect(validate({ spec: { name: 'a' } })).toEqual([]);
    expect(validate({ spec: {} })).toEqual([
      { field: 'spec.name', type: 'FieldValueRequired', message: 'Required value' },
    ]);
  });

  it('is not satisfied by inherited properties', () => {
    const properties: Record<string, JSONSchemaProps> = Object.fromEntries([['constructor', { type: 'string' }]]);
    const validate = compile(resourceWithSpec(properties, { required: ['constructor'] }));
    expect(where(validate({ spec: {} }))).toEqual([['spec.constructor', 'FieldValueRequired']]);
  });
});

describe('unknown fields', () => {
  const validate = compile(
    resourceWithSpec({
      name: { type: 'string' },
      caches: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
      empty: { type: 'object' },
    }),
  );

  it('are errors wherever the schema prunes', () => {
    const errors = validate({
      spec: { name: 'a', nmae: 'b', caches: [{ name: 'x' }, { name: 'y', size: 1 }], empty: { a: 1 } },
    });
    expect(where(errors)).toEqual([
      ['spec.nmae', 'FieldValueUnknown'],
      ['spec.caches[1].size', 'FieldValueUnknown'],
      ['spec.empty.a', 'FieldValueUnknown'],
    ]);
    expect(errors[0]?.message).toBe('unknown field "nmae"');
  });

  it('include keys named like Object.prototype members', () => {
    const value: unknown = JSON.parse('{"spec": {"__proto__": 1, "toString": 2}}');
    expect(where(validate(value))).toEqual([
      ['spec.__proto__', 'FieldValueUnknown'],
      ['spec.toString', 'FieldValueUnknown'],
    ]);
  });

  it('are allowed where x-kubernetes-preserve-unknown-fields is set, but not in nested schemas with properties', () => {
    const preserving = compile(
      resourceWithSpec({
        free: {
          type: 'object',
          'x-kubernetes-preserve-unknown-fields': true,
          properties: { known: { type: 'integer' }, nested: { type: 'object', properties: { a: { type: 'string' } } } },
        },
      }),
    );
    expect(preserving({ spec: { free: { known: 1, anything: { deep: [1] } } } })).toEqual([]);
    expect(where(preserving({ spec: { free: { known: 'x' } } }))).toEqual([
      ['spec.free.known', 'FieldValueTypeInvalid'],
    ]);
    expect(where(preserving({ spec: { free: { nested: { b: 1 } } } }))).toEqual([
      ['spec.free.nested.b', 'FieldValueUnknown'],
    ]);
  });

  it('do not exist in maps, whose values follow additionalProperties', () => {
    const maps = compile(
      resourceWithSpec({
        labels: { type: 'object', additionalProperties: { type: 'string' } },
        anything: { type: 'object', additionalProperties: true },
      }),
    );
    expect(maps({ spec: { labels: { 'app.kubernetes.io/name': 'x', team: 'geo' }, anything: { a: [1] } } })).toEqual(
      [],
    );
    expect(where(maps({ spec: { labels: { 'app.kubernetes.io/name': 1, team: 2 } } }))).toEqual([
      ['spec.labels[app.kubernetes.io/name]', 'FieldValueTypeInvalid'],
      ['spec.labels.team', 'FieldValueTypeInvalid'],
    ]);
  });

  it('are shown without control characters, shortened', () => {
    const key = `evil\u0000\n\u001b[31m${'x'.repeat(500)}`;
    const [error] = validate({ spec: { [key]: 1 } });
    expect(error?.type).toBe('FieldValueUnknown');
    expect(error?.field).not.toMatch(controlCharacter);
    expect(error?.message).not.toMatch(controlCharacter);
    expect(error!.field.length).toBeLessThan(100);
    expect(error!.message.length).toBeLessThan(100);
  });
});

describe('the resource root', () => {
  const validate = compile({
    type: 'object',
    required: ['spec'],
    properties: { spec: { type: 'object', properties: {} } },
  });

  it('allows apiVersion, kind and any metadata without declaring them', () => {
    const object = {
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name: 'a', labels: { x: 'y' }, managedFields: [{ anything: true }] },
      spec: {},
    };
    expect(validate(object)).toEqual([]);
  });

  it('still rejects other unknown fields, and apiVersion below the root', () => {
    expect(where(validate({ apiVersion: 'v1', spec: { apiVersion: 'v1' }, extra: 1 }))).toEqual([
      ['spec.apiVersion', 'FieldValueUnknown'],
      ['extra', 'FieldValueUnknown'],
    ]);
  });

  it('reports a wrong type of the whole object at the empty path', () => {
    expect(where(validate('x'))).toEqual([['', 'FieldValueTypeInvalid']]);
    expect(where(validate({}))).toEqual([['spec', 'FieldValueRequired']]);
  });

  it('applies the restrictions a schema does declare for metadata', () => {
    const restricted = compile({
      type: 'object',
      properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } } },
    });
    expect(restricted({ metadata: { name: 'short', namespace: 'ns' } })).toEqual([]);
    expect(where(restricted({ metadata: { name: 'too-long' } }))).toEqual([['metadata.name', 'FieldValueTooLong']]);
  });

  it('is a part, not a resource, when a rootPath is given: paths are prefixed, nothing is implicit', () => {
    const spec = compile({ type: 'object', properties: { size: { type: 'integer' } } }, { rootPath: 'spec' });
    expect(where(spec({ size: 'x', kind: 'K' }))).toEqual([
      ['spec.size', 'FieldValueTypeInvalid'],
      ['spec.kind', 'FieldValueUnknown'],
    ]);
    const list = compile({ type: 'array', items: { type: 'integer' } }, { rootPath: 'spec.sizes' });
    expect(where(list([1, 'x']))).toEqual([['spec.sizes[1]', 'FieldValueTypeInvalid']]);
  });
});

describe('x-kubernetes-embedded-resource', () => {
  const template: JSONSchemaProps = {
    type: 'object',
    'x-kubernetes-embedded-resource': true,
    properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } } },
  };
  const validate = compile(resourceWithSpec({ template }));

  it('takes an object with apiVersion, kind and any metadata', () => {
    expect(
      validate({
        spec: { template: { apiVersion: 'v1', kind: 'Pod', metadata: { labels: { a: 'b' } }, spec: { replicas: 1 } } },
      }),
    ).toEqual([]);
  });

  it('requires apiVersion and kind as strings, and metadata as an object', () => {
    expect(where(validate({ spec: { template: { spec: {} } } }))).toEqual([
      ['spec.template.apiVersion', 'FieldValueRequired'],
      ['spec.template.kind', 'FieldValueRequired'],
    ]);
    expect(where(validate({ spec: { template: { apiVersion: 1, kind: 'Pod', metadata: 'x' } } }))).toEqual([
      ['spec.template.apiVersion', 'FieldValueTypeInvalid'],
      ['spec.template.metadata', 'FieldValueTypeInvalid'],
    ]);
  });

  it('prunes its other fields unless it preserves unknown fields', () => {
    expect(where(validate({ spec: { template: { apiVersion: 'v1', kind: 'Pod', status: {} } } }))).toEqual([
      ['spec.template.status', 'FieldValueUnknown'],
    ]);
    const free = compile(resourceWithSpec({ template: { ...template, 'x-kubernetes-preserve-unknown-fields': true } }));
    expect(free({ spec: { template: { apiVersion: 'v1', kind: 'Pod', status: {} } } })).toEqual([]);
  });
});

describe('value validations', () => {
  it.each<[string, JSONSchemaProps, unknown, unknown, FieldErrorType]>([
    ['enum', { type: 'string', enum: ['a', 'b'] }, 'b', 'c', 'FieldValueNotSupported'],
    ['pattern', { type: 'string', pattern: '^[a-z]+$' }, 'abc', 'aBc', 'FieldValueInvalid'],
    ['minimum', { type: 'integer', minimum: 1 }, 1, 0, 'FieldValueInvalid'],
    ['maximum', { type: 'integer', maximum: 15 }, 15, 16, 'FieldValueInvalid'],
    ['exclusiveMinimum', { type: 'number', minimum: 0, exclusiveMinimum: true }, 0.1, 0, 'FieldValueInvalid'],
    ['exclusiveMaximum', { type: 'number', maximum: 1, exclusiveMaximum: true }, 0.9, 1, 'FieldValueInvalid'],
    ['multipleOf', { type: 'integer', multipleOf: 5 }, 10, 12, 'FieldValueInvalid'],
    ['minLength', { type: 'string', minLength: 2 }, 'ab', 'a', 'FieldValueInvalid'],
    ['maxLength', { type: 'string', maxLength: 2 }, 'ab', 'abc', 'FieldValueTooLong'],
    ['minItems', { type: 'array', items: { type: 'integer' }, minItems: 1 }, [1], [], 'FieldValueInvalid'],
    ['maxItems', { type: 'array', items: { type: 'integer' }, maxItems: 2 }, [1, 2], [1, 2, 3], 'FieldValueTooMany'],
    [
      'minProperties',
      { type: 'object', additionalProperties: { type: 'integer' }, minProperties: 1 },
      { a: 1 },
      {},
      'FieldValueInvalid',
    ],
    [
      'maxProperties',
      { type: 'object', additionalProperties: { type: 'integer' }, maxProperties: 1 },
      { a: 1 },
      { a: 1, b: 2 },
      'FieldValueTooMany',
    ],
  ])('%s', (_keyword, schema, good, bad, type) => {
    expect(checkValue(schema, good)).toEqual([]);
    expect(where(checkValue(schema, bad))).toEqual([['spec.value', type]]);
  });

  it('treats exclusiveMinimum as a flag on minimum, not as a bound', () => {
    expect(checkValue({ type: 'number', minimum: 5, exclusiveMinimum: false }, 5)).toEqual([]);
    expect(where(checkValue({ type: 'number', minimum: 5, exclusiveMinimum: true }, 5))).toEqual([
      ['spec.value', 'FieldValueInvalid'],
    ]);
  });

  it('names the bad value and the rule in the message', () => {
    expect(checkValue({ type: 'integer', maximum: 15 }, 20)[0]?.message).toMatch(/20.*15/);
    expect(checkValue({ type: 'string', enum: ['a', 'b'] }, 'c')[0]?.message).toMatch(/"c".*"a", "b"/);
    expect(checkValue({ type: 'string', pattern: '^[a-z]+$' }, 'aBc')[0]?.message).toMatch(/"aBc".*\^\[a-z\]\+\$/);
    expect(checkValue({ type: 'array', items: { type: 'integer' }, maxItems: 2 }, [1, 2, 3])[0]?.message).toMatch(
      /3.*2/,
    );
  });

  it('quotes long and hostile values shortened and without control characters', () => {
    const [error] = checkValue({ type: 'string', pattern: '^[a-z]*$' }, `A\u0000\r\n${'x'.repeat(100_000)}`);
    expect(error?.type).toBe('FieldValueInvalid');
    expect(error?.message).not.toMatch(controlCharacter);
    expect(error!.message.length).toBeLessThan(200);
  });
});

describe('formats', () => {
  it.each([
    ['quantity', '1.5Gi', '1GiB'],
    ['quantity', '500m', '1 Gi'],
    ['dns1123-label', 'tiles-1', 'Tiles'],
    ['dns1123-label', 'a'.repeat(63), 'a'.repeat(64)],
    ['dns1123-subdomain', 'geo.example.com', 'geo..example.com'],
    ['date-time', '2024-05-01T12:00:00Z', '2024-05-01 noon'],
    ['date', '2024-05-01', '2024-13-01'],
    ['byte', 'aGVsbG8=', 'not base64!'],
    ['uuid', '3f2504e0-4f89-11d3-9a0c-0305e82c3301', '3f2504e0-4f89'],
    ['hostname', 'db.example.com', 'db_1.example.com'],
    ['ipv4', '10.0.0.1', '10.0.0.256'],
    ['ipv6', '::1', ':::1'],
  ])('%s accepts %j and rejects %j', (format, good, bad) => {
    expect(checkValue({ type: 'string', format }, good)).toEqual([]);
    const errors = checkValue({ type: 'string', format }, bad);
    expect(where(errors)).toEqual([['spec.value', 'FieldValueInvalid']]);
    expect(errors[0]?.message).toContain(JSON.stringify(bad).slice(0, 40));
  });

  it.each([
    ['int32', 2 ** 31 - 1, 2 ** 31],
    ['int32', -(2 ** 31), -(2 ** 31) - 1],
    ['int64', 2 ** 53, 2 ** 64],
  ])('%s accepts %d and rejects %d', (format, good, bad) => {
    expect(checkValue({ type: 'integer', format }, good)).toEqual([]);
    expect(where(checkValue({ type: 'integer', format }, bad))).toEqual([['spec.value', 'FieldValueInvalid']]);
  });

  it('applies string formats only to the string side of int-or-string', () => {
    const schema: JSONSchemaProps = { 'x-kubernetes-int-or-string': true, format: 'quantity' };
    expect(checkValue(schema, 3)).toEqual([]);
    expect(checkValue(schema, '3Gi')).toEqual([]);
    expect(where(checkValue(schema, '3 Gi'))).toEqual([['spec.value', 'FieldValueInvalid']]);
  });

  it('ignores formats it does not know, as Kubernetes does', () => {
    expect(checkValue({ type: 'string', format: 'my-own-format' }, 'anything')).toEqual([]);
    expect(checkValue({ type: 'string', format: 'duration' }, 'anything')).toEqual([]);
  });
});

describe('x-kubernetes-list-type', () => {
  it('set: reports every repeated item at its index', () => {
    const set: JSONSchemaProps = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } };
    expect(checkValue(set, ['a', 'b'])).toEqual([]);
    const errors = checkValue(set, ['a', 'b', 'a', 'c', 'b', 'a']);
    expect(where(errors)).toEqual([
      ['spec.value[2]', 'FieldValueDuplicate'],
      ['spec.value[4]', 'FieldValueDuplicate'],
      ['spec.value[5]', 'FieldValueDuplicate'],
    ]);
    expect(errors[0]?.message).toContain('"a"');
  });

  it('set: compares values, not their spelling', () => {
    const set: JSONSchemaProps = {
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: { 'x-kubernetes-int-or-string': true },
    };
    expect(checkValue(set, [1, '1'])).toEqual([]);
    const atomicMaps: JSONSchemaProps = {
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'integer' } },
    };
    expect(
      where(
        checkValue(atomicMaps, [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ]),
      ),
    ).toEqual([['spec.value[1]', 'FieldValueDuplicate']]);
  });

  it('map: reports items whose key fields repeat, naming the key', () => {
    const caches: JSONSchemaProps = {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['name'],
      items: {
        type: 'object',
        required: ['name'],
        properties: { name: { type: 'string' }, memory: { type: 'string' } },
      },
    };
    expect(checkValue(caches, [{ name: 'tiles' }, { name: 'sessions' }])).toEqual([]);
    const errors = checkValue(caches, [
      { name: 'tiles', memory: '1Gi' },
      { name: 'sessions' },
      { name: 'tiles', memory: '2Gi' },
    ]);
    expect(errors).toEqual([
      { field: 'spec.value[2]', type: 'FieldValueDuplicate', message: 'Duplicate value: {"name":"tiles"}' },
    ]);
  });

  it('map: keys are tuples', () => {
    const ports: JSONSchemaProps = {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: {
        type: 'object',
        required: ['port', 'protocol'],
        properties: { port: { type: 'integer' }, protocol: { type: 'string' } },
      },
    };
    expect(
      checkValue(ports, [
        { port: 53, protocol: 'TCP' },
        { port: 53, protocol: 'UDP' },
      ]),
    ).toEqual([]);
    expect(
      where(
        checkValue(ports, [
          { port: 53, protocol: 'TCP' },
          { protocol: 'TCP', port: 53 },
        ]),
      ),
    ).toEqual([['spec.value[1]', 'FieldValueDuplicate']]);
  });

  it('atomic: repeats are fine', () => {
    expect(
      checkValue({ type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } }, ['a', 'a']),
    ).toEqual([]);
  });
});

describe('junctors', () => {
  const eitherOr: JSONSchemaProps = {
    type: 'object',
    properties: { a: { type: 'string' }, b: { type: 'string' } },
    anyOf: [{ required: ['a'] }, { required: ['b'] }],
  };

  it('anyOf: one satisfied branch is enough', () => {
    expect(checkValue(eitherOr, { a: 'x' })).toEqual([]);
    expect(checkValue(eitherOr, { b: 'x' })).toEqual([]);
  });

  it('anyOf: a failure is one error at the junctor that says what each branch wanted', () => {
    const errors = checkValue(eitherOr, {});
    expect(where(errors)).toEqual([['spec.value', 'FieldValueInvalid']]);
    expect(errors[0]?.message).toMatch(/anyOf/);
    expect(errors[0]?.message).toMatch(/\(1\) a: Required value; \(2\) b: Required value/);
  });

  it('oneOf: more than one satisfied branch is an error', () => {
    const exactlyOne: JSONSchemaProps = { ...eitherOr, anyOf: undefined, oneOf: eitherOr.anyOf };
    expect(checkValue(exactlyOne, { a: 'x' })).toEqual([]);
    expect(where(checkValue(exactlyOne, { a: 'x', b: 'y' }))).toEqual([['spec.value', 'FieldValueInvalid']]);
    expect(where(checkValue(exactlyOne, {}))).toEqual([['spec.value', 'FieldValueInvalid']]);
  });

  it('not: a matching value is an error', () => {
    const notEmpty: JSONSchemaProps = { type: 'string', not: { enum: [''] } };
    expect(checkValue(notEmpty, 'x')).toEqual([]);
    expect(where(checkValue(notEmpty, ''))).toEqual([['spec.value', 'FieldValueInvalid']]);
  });

  it('allOf: every branch reports its own errors, each once', () => {
    const both: JSONSchemaProps = {
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'integer' } },
      allOf: [{ required: ['a'] }, { required: ['a'] }, { properties: { b: { minimum: 1 } } }],
    };
    expect(where(checkValue(both, { b: 0 }))).toEqual([
      ['spec.value.b', 'FieldValueInvalid'],
      ['spec.value.a', 'FieldValueRequired'],
    ]);
  });

  // controller-gen's IntOrString and Quantity (the API server's int-or-string exception to structural junctors).
  describe('the int-or-string forms', () => {
    const anyOfIntOrString: JSONSchemaProps = {
      'x-kubernetes-int-or-string': true,
      anyOf: [{ type: 'integer' }, { type: 'string' }],
    };
    const quantity: JSONSchemaProps = {
      ...anyOfIntOrString,
      pattern:
        '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
    };
    const allOfPercent: JSONSchemaProps = {
      'x-kubernetes-int-or-string': true,
      allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '%$' }],
    };

    it.each<[string, JSONSchemaProps, unknown[], unknown[]]>([
      ['anyOf', anyOfIntOrString, [0, 80, -3, '80', '80%', ''], [2.5, true, [], {}]],
      ['a Quantity', quantity, [2, '1Gi', '500m', '1.5', '1e3'], ['1 Gi', 'x', 2.5]],
      ['allOf', allOfPercent, [80, '80%'], ['80', 2.5]],
    ])('%s: takes what the API server takes, and refuses what it refuses', (_form, schema, valid, invalid) => {
      for (const value of valid) expect(checkValue(schema, value), JSON.stringify(value)).toEqual([]);
      for (const value of invalid) expect(checkValue(schema, value), JSON.stringify(value)).not.toEqual([]);
    });

    it('lets null through where the field is nullable: the API server checks a null against the type alone', () => {
      for (const schema of [anyOfIntOrString, quantity, allOfPercent]) {
        expect(checkValue({ ...schema, nullable: true }, null)).toEqual([]);
        expect(checkValue({ ...schema, nullable: true }, 2.5)).not.toEqual([]);
      }
      // The same for any junctor under a nullable or untyped node.
      expect(checkValue({ type: 'string', nullable: true, not: { enum: [''] } }, null)).toEqual([]);
      expect(checkValue({ 'x-kubernetes-preserve-unknown-fields': true, anyOf: [{ required: ['a'] }] }, null)).toEqual(
        [],
      );
      expect(
        where(checkValue({ 'x-kubernetes-preserve-unknown-fields': true, anyOf: [{ required: ['a'] }] }, {})),
      ).toEqual([['spec.value', 'FieldValueInvalid']]);
    });

    it('reports a failed anyOf under a nullable node as one error at the junctor, as before', () => {
      const errors = checkValue({ ...anyOfIntOrString, nullable: true }, 2.5);
      expect(where(errors)).toEqual([
        ['spec.value', 'FieldValueTypeInvalid'],
        ['spec.value', 'FieldValueInvalid'],
      ]);
      expect(errors[1]?.message).toMatch(
        /^Invalid value: 2\.5: must match at least one of the anyOf schemas: \(1\) .*integer.*; \(2\) .*string/,
      );
    });
  });

  it('do not prune: fields a branch does not mention are not unknown', () => {
    expect(
      checkValue(
        { type: 'object', properties: { a: { type: 'string' } }, allOf: [{ properties: { a: { minLength: 1 } } }] },
        { a: 'x' },
      ),
    ).toEqual([]);
  });
});

describe('several errors', () => {
  const validate = compile(
    resourceWithSpec(
      {
        postgres: {
          type: 'object',
          required: ['version'],
          properties: { version: { type: 'string', pattern: '^\\d+\\.\\d+$' } },
        },
        readReplicas: { type: 'integer', minimum: 0, maximum: 15 },
        storage: { type: 'integer' },
        caches: {
          type: 'array',
          maxItems: 2,
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', format: 'dns1123-label' } },
          },
        },
      },
      { required: ['postgres', 'storage'] },
    ),
  );

  it('are all reported, in the order of the document', () => {
    const errors = validate({
      spec: {
        caches: [{ name: 'A' }, {}, { name: 'c', extra: 1 }],
        readReplicas: 99,
        postgres: { version: 'x', v: 1 },
      },
    });
    expect(where(errors)).toEqual([
      ['spec.caches', 'FieldValueTooMany'],
      ['spec.caches[0].name', 'FieldValueInvalid'],
      ['spec.caches[1].name', 'FieldValueRequired'],
      ['spec.caches[2].extra', 'FieldValueUnknown'],
      ['spec.readReplicas', 'FieldValueInvalid'],
      ['spec.postgres.version', 'FieldValueInvalid'],
      ['spec.postgres.v', 'FieldValueUnknown'],
      ['spec.storage', 'FieldValueRequired'],
    ]);
  });

  it('are all reported when there are thousands of them', () => {
    const spec = { caches: Array.from({ length: 3000 }, () => ({ name: 'A' })), readReplicas: -1 };
    const errors = validate({ spec });
    // Every name, plus: too many caches, readReplicas, and the missing postgres and storage.
    expect(errors).toHaveLength(3000 + 4);
    expect(errors.at(-1)).toMatchObject({ field: 'spec.storage', type: 'FieldValueRequired' });
  });

  it('do not leak from one call into the next', () => {
    const invalid = { spec: { postgres: { version: '1' }, caches: [{ name: 'a' }, { name: 'B' }, {}] } };
    const valid = { spec: { postgres: { version: '16.4' }, storage: 1, caches: [{ name: 'a' }] } };
    expect(validate(invalid)).toHaveLength(5);
    expect(validate(valid)).toEqual([]);
    expect(validate(invalid)).toHaveLength(5);
  });
});

describe('compilation', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('happens once per validator: the one that stops at the first error at compile time, the one that lists them all at the first invalid value', () => {
    const compiler = createSchemaCompiler();
    const ajvCompile = vi.spyOn(Ajv.prototype, 'compile');
    const validate = compiler.compile(resourceWithSpec({ size: { type: 'integer', maximum: 3 } }));
    expect(ajvCompile).toHaveBeenCalledTimes(1);
    for (let size = 0; size <= 3; size++) expect(validate({ spec: { size } })).toEqual([]);
    expect(ajvCompile).toHaveBeenCalledTimes(1);
    for (let size = 4; size < 100; size++)
      expect(where(validate({ spec: { size } }))).toEqual([['spec.size', 'FieldValueInvalid']]);
    expect(ajvCompile).toHaveBeenCalledTimes(2);
  });

  it('takes a snapshot of the schema: later changes to it do not change the validator', () => {
    const schema = resourceWithSpec({ size: { type: 'integer', maximum: 3 } });
    const validate = compile(schema);
    schema.properties!.spec!.properties!.size!.maximum = 100;
    expect(where(validate({ spec: { size: 50 } }))).toEqual([['spec.size', 'FieldValueInvalid']]);
  });

  it("refuses a schema ajv cannot compile, with a typed error: a pattern Go's regexp refuses", () => {
    expect(() => compile(resourceWithSpec({ name: { type: 'string', pattern: '(?=abc)' } }))).toThrow(
      new SchemaCompileError(
        'cannot compile the schema: error parsing regexp: invalid or unsupported Perl syntax: `(?=`',
      ),
    );
  });

  it('compiles each pattern once per compiler, whatever the schemas and validators that use it', () => {
    const compiler = createSchemaCompiler();
    const re2Compile = vi.spyOn(RE2JS, 'compile');
    const schema = resourceWithSpec({
      a: { type: 'string', pattern: '^[a-z]+$' },
      b: { type: 'string', pattern: '^[a-z]+$' },
      list: { type: 'array', items: { type: 'string', pattern: '^(?i)x+$' } },
    });
    const validate = compiler.compile(schema);
    // Two patterns, for the validator that stops at the first error and the one that collects them all.
    expect(re2Compile).toHaveBeenCalledTimes(2);
    compiler.compile(resourceWithSpec({ c: { type: 'string', pattern: '^(?i)x+$' } }));
    expect(re2Compile).toHaveBeenCalledTimes(2);
    expect(where(validate({ spec: { a: 'ok', b: 'OK', list: ['X', 'y'] } }))).toEqual([
      ['spec.b', 'FieldValueInvalid'],
      ['spec.list[1]', 'FieldValueInvalid'],
    ]);
    expect(re2Compile).toHaveBeenCalledTimes(2);
  });

  it('matches in time linear in the value: a pattern that backtracks exponentially in ECMAScript is decided', () => {
    // ECMAScript's RegExp would try 2^40 ways to split the a's before refusing; Go's regexp reads the value once.
    const validate = compile(resourceWithSpec({ name: { type: 'string', pattern: '^(a+)+$' } }));
    expect(where(validate({ spec: { name: `${'a'.repeat(40)}!` } }))).toEqual([['spec.name', 'FieldValueInvalid']]);
    expect(validate({ spec: { name: 'a'.repeat(1_000_000) } })).toEqual([]);
  });

  it('keeps validators of one compiler independent', () => {
    const compiler = createSchemaCompiler();
    const small = compiler.compile(resourceWithSpec({ n: { type: 'integer', maximum: 1 } }));
    const large = compiler.compile(resourceWithSpec({ n: { type: 'integer', maximum: 10 } }));
    expect(small({ spec: { n: 5 } })).toHaveLength(1);
    expect(large({ spec: { n: 5 } })).toEqual([]);
  });
});

describe('arbitrary input', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    required: ['spec'],
    properties: {
      spec: {
        type: 'object',
        required: ['size'],
        properties: {
          size: { type: 'string', format: 'quantity' },
          replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 15, nullable: true },
          mode: { type: 'string', enum: ['a', 'b'] },
          port: { 'x-kubernetes-int-or-string': true, pattern: '^[a-z]+$' },
          labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 63 }, maxProperties: 4 },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
          caches: {
            type: 'array',
            maxItems: 3,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object',
              required: ['name'],
              properties: {
                name: { type: 'string', format: 'dns1123-label' },
                memory: { type: 'string', format: 'quantity' },
              },
              anyOf: [{ required: ['memory'] }, { properties: { name: { enum: ['default'] } } }],
            },
          },
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
          extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  };
  const knownTypes = new Set<FieldErrorType>([
    'FieldValueRequired',
    'FieldValueInvalid',
    'FieldValueTypeInvalid',
    'FieldValueNotSupported',
    'FieldValueDuplicate',
    'FieldValueTooMany',
    'FieldValueTooLong',
    'FieldValueUnknown',
  ]);

  function checkErrors(errors: FieldError[]) {
    expect(Array.isArray(errors)).toBe(true);
    const seen = new Set<string>();
    for (const error of errors) {
      expect(knownTypes.has(error.type)).toBe(true);
      expect(error.field).not.toMatch(controlCharacter);
      expect(error.message).not.toMatch(controlCharacter);
      const key = JSON.stringify(error);
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  }

  it('never makes the validator throw, and errors stay well-formed', () => {
    const validate = compile(schema);
    const specLike = fc.record(
      {
        size: fc.oneof(fc.constantFrom('1Gi', '1.5', 'x'), fc.jsonValue()),
        replicas: fc.jsonValue(),
        mode: fc.jsonValue(),
        port: fc.jsonValue(),
        labels: fc.jsonValue(),
        tags: fc.array(fc.oneof(fc.constantFrom('a', 'b'), fc.jsonValue()), { maxLength: 4 }),
        caches: fc.array(
          fc.dictionary(
            fc.constantFrom('name', 'memory', 'other'),
            fc.oneof(fc.constantFrom('a', '1Gi'), fc.jsonValue()),
          ),
          {
            maxLength: 5,
          },
        ),
        template: fc.jsonValue(),
        extra: fc.jsonValue(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.record({ spec: fc.oneof(specLike, fc.jsonValue()) })), (value) => {
        checkErrors(validate(value));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('bounded work', () => {
  const conditions = compile({
    type: 'object',
    properties: {
      status: {
        type: 'object',
        properties: {
          conditions: {
            type: 'array',
            items: {
              type: 'object',
              required: ['type', 'status'],
              properties: { type: { type: 'string' }, status: { type: 'string' } },
            },
          },
        },
      },
    },
  });

  it('reports only the first error of an object with more values than it lists errors for, and says it stopped', () => {
    const errors = conditions({ status: { conditions: Array.from({ length: 2 * fullReportValueLimit }, () => ({})) } });
    expect(where(errors)).toEqual([
      ['status.conditions[0].type', 'FieldValueRequired'],
      ['', 'FieldValueTooMany'],
    ]);
  });

  it('reports one error past the limit even when one keyword finds thousands (every duplicate of a list-map key)', () => {
    const keyed = compile(
      resourceWithSpec({
        items: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
        },
      }),
    );
    const errors = keyed({ spec: { items: Array.from({ length: fullReportValueLimit }, () => ({ name: 'same' })) } });
    expect(where(errors)).toEqual([
      ['spec.items[1]', 'FieldValueDuplicate'],
      ['', 'FieldValueTooMany'],
    ]);
  });

  it('collects every error of an object within the limit', () => {
    const errors = conditions({ status: { conditions: Array.from({ length: 100 }, () => ({})) } });
    expect(errors).toHaveLength(200);
  });

  it('describes at most a bounded number of errors, and says there were more', () => {
    const count = Math.ceil(maxMappedAjvErrors / 2) + 10;
    const errors = conditions({ status: { conditions: Array.from({ length: count }, () => ({})) } });
    expect(errors).toHaveLength(maxMappedAjvErrors + 1);
    expect(errors.at(-1)).toMatchObject({ field: '', type: 'FieldValueTooMany' });
  });
});

describe('exact paths', () => {
  it('carry the steps to a field whose name the rendered path shortens or escapes, and only then', () => {
    const validate = compile(resourceWithSpec({ colour: { type: 'string' } }, { additionalProperties: false }));
    const [odd] = validate({ spec: { '1': 'x' } });
    expect(odd).toMatchObject({ type: 'FieldValueUnknown', path: ['spec', '1'] });
    const long = 'a'.repeat(100);
    expect(validate({ spec: { [long]: 'x' } })[0]?.path).toEqual(['spec', long]);
    expect(validate({ spec: { plain: 'x' } })[0]).not.toHaveProperty('path');
  });
});
