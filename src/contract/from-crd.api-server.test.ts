import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CrdUnservableError, forgetCompiledCrd, judge, loadCrd } from '../api-server-engine/engine.ts';
import type { KubeObject } from './values/kube-object.ts';
import { formatFieldError, type FieldError } from './values/field-error.ts';
import { ContractDefinitionError, defineContract } from './define-contract.ts';
import { fromCrd } from './from-crd.ts';
import { createContractRegistry } from './registry.ts';

// fromCrd against kube-apiserver's own CRD validation (the API server engine: apiextensions-apiserver v0.36.4,
// compiled to WebAssembly): every CRD the API server takes loads as written, owned or not, and one it refuses is
// refused naming the same field in the API server's words. Generated names (lowercase kinds, digits, dashes, long
// names, short names, categories, list kinds, broken ones), and schema keywords alone and in generated combinations
// with the values the API server reads in its own way (null, negative bounds, a multipleOf that is not positive,
// empty junctors) or refuses. What crdgate leaves to the API server, compiling CEL rules, is the one exception.

const label = fc.stringMatching(/^[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,3})?$/);
const brokenLabel = fc.oneof(
  label.map((name) => `${name}-`),
  label.map((name) => `${name}.x`),
  label.map((name) => `${name}_x`),
  label.map((name) => `1${name}`),
  label.map((name) => name.toUpperCase()),
  label.map((name) => name.padEnd(64, 'x')),
  fc.constant(''),
);
const resourceName = fc.oneof({ weight: 6, arbitrary: label }, { weight: 1, arbitrary: brokenLabel });
const upperCamel = fc.stringMatching(/^[A-Z][a-zA-Z0-9]{0,8}$/);
const kind = fc.oneof(
  { weight: 3, arbitrary: upperCamel },
  // What the API server takes and crdgate once refused: lowercase (postgresql), digits, dashes, mixed case.
  { weight: 3, arbitrary: label },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9]{0,4}-[a-zA-Z0-9]{1,4}$/) },
  // Around the length where kind + List passes 63.
  { weight: 1, arbitrary: fc.integer({ min: 57, max: 64 }).map((length) => 'K'.padEnd(length, 'k')) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      upperCamel.map((k) => `${k}_X`),
      upperCamel.map((k) => `${k}.X`),
      upperCamel.map((k) => `${k}-`),
      upperCamel.map((k) => `9${k}`),
    ),
  },
);
const names = fc.record(
  {
    kind,
    plural: resourceName,
    singular: resourceName,
    listKind: fc.oneof(
      upperCamel.map((k) => `${k}List`),
      label.map((k) => `${k}-list`),
      fc.constantFrom('1List', 'A.List', 'A_List', 'L'.padEnd(64, 'l')),
    ),
    shortNames: fc.array(resourceName, { maxLength: 2 }),
    categories: fc.array(resourceName, { maxLength: 2 }),
  },
  { requiredKeys: ['kind', 'plural'] },
);
const group = fc.oneof(
  { weight: 6, arbitrary: fc.array(label, { minLength: 2, maxLength: 3 }).map((parts) => parts.join('.')) },
  { weight: 1, arbitrary: fc.constantFrom('nodots', 'Upper.example.com', 'a..example.com', 'x.k8s.io') },
);

function crdOf(crdNames: Record<string, unknown>, crdGroup: string, versions = ['v1'], schema: unknown = specSchema) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${String(crdNames['plural'])}.${crdGroup}` },
    spec: {
      group: crdGroup,
      scope: 'Namespaced',
      names: crdNames,
      versions: versions.map((name, index) => ({
        name,
        served: true,
        storage: index === 0,
        schema: { openAPIV3Schema: schema },
      })),
    },
  };
}

const specSchema = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
};

/**
 * What crdgate says of the CRD through fromCrd and defineContract: undefined when the contract loads. A contract
 * that owns its CRD converts between its versions, so it is given a conversion per version, as init writes one.
 */
function crdgateRefusal(crd: unknown, crdOwner: 'crdgate' | 'external'): string | undefined {
  try {
    const parts = fromCrd(crd, crdOwner === 'external' ? { crdOwner } : {});
    const spokes = crdOwner === 'external' ? [] : parts.versions.filter((version) => version.name !== parts.hub);
    const conversions = Object.fromEntries(
      spokes.map((version) => [version.name, { toHub: (o: KubeObject) => o, fromHub: (o: KubeObject) => o }]),
    );
    createContractRegistry([defineContract({ ...parts, conversions })]);
    return undefined;
  } catch (error) {
    if (!(error instanceof ContractDefinitionError)) throw error;
    return error.message;
  }
}

/** What the API server answers to creating the CRD: its refusal, also when it could not serve it at all. */
function apiServerRefusal(crd: unknown): readonly FieldError[] {
  try {
    return loadCrd(crd).refusal;
  } catch (error) {
    if (!(error instanceof CrdUnservableError)) throw error;
    expect(error.refusal).not.toEqual([]);
    return error.refusal;
  }
}

/** `field: message`, with the schema's path from openAPIV3Schema on, where crdgate and the API server agree. */
const apiServerWords = (error: FieldError) =>
  formatFieldError(error).replace(/^spec\.(validation|versions\[\d+\]\.schema)\./, '');

describe("fromCrd's names, against kube-apiserver's CRD validation", () => {
  it('loads every CRD whose names the API server takes, and refuses every other naming each field in its words', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(
        names,
        group,
        fc.array(resourceName, { minLength: 1, maxLength: 2 }),
        fc.constantFrom('crdgate', 'external'),
        (crdNames, crdGroup, versions, owner) => {
          fc.pre(new Set(versions).size === versions.length);
          const crd = crdOf(crdNames, crdGroup, versions);
          const refusal = apiServerRefusal(crd);
          const ours = crdgateRefusal(crd, owner as 'crdgate' | 'external');
          if (refusal.length === 0) {
            accepted++;
            expect(ours, JSON.stringify(crdNames)).toBeUndefined();
          } else {
            refused++;
            expect(ours, JSON.stringify(refusal)).toBeDefined();
            // The protected group's approval is reported in crdgate's own sentence, naming the annotation.
            for (const error of refusal.filter((e) => !e.field.startsWith('metadata.annotations')))
              expect(ours).toContain(apiServerWords(error));
          }
        },
      ),
      { numRuns: 250, seed: 20260 },
    );
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });

  it.each([
    ['a lowercase kind', { kind: 'postgresql', plural: 'postgresqls', shortNames: ['pg'], categories: ['all'] }],
    ['a kind with digits', { kind: 'S3Bucket', plural: 's3buckets' }],
    ['a kind with dashes', { kind: 'my-kind', plural: 'mykinds', listKind: 'my-kind-list' }],
    ['a kind of 63 characters and a short list kind', { kind: 'K'.padEnd(63, 'k'), plural: 'ks', listKind: 'KList' }],
  ])('takes %s as the API server does', (_label, crdNames) => {
    const crd = crdOf(crdNames, 'acid.example.com');
    expect(loadCrd(crd).refusal).toEqual([]);
    expect(crdgateRefusal(crd, 'external')).toBeUndefined();
    expect(crdgateRefusal(crd, 'crdgate')).toBeUndefined();
  });
});

const column = { name: 'Size', type: 'integer', jsonPath: '.spec.size' };
const scale = { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size' };
const partsSchema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { size: { type: 'integer' } } },
    status: { type: 'object', properties: { size: { type: 'integer' } } },
  },
};

// A field's schema with one keyword set to a value kube-apiserver reads in its own way.
const keywordValues: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['maxLength -1', { type: 'string', maxLength: -1 }],
  ['minLength -1', { type: 'string', minLength: -1 }],
  ['maxItems -1', { type: 'array', items: { type: 'string' }, maxItems: -1 }],
  ['minItems -3', { type: 'array', items: { type: 'string' }, minItems: -3 }],
  ['maxProperties -1', { type: 'object', additionalProperties: { type: 'string' }, maxProperties: -1 }],
  ['minProperties -1', { type: 'object', additionalProperties: { type: 'string' }, minProperties: -1 }],
  ['multipleOf 0', { type: 'number', multipleOf: 0 }],
  ['multipleOf -2', { type: 'integer', multipleOf: -2 }],
  ['description null', { type: 'string', description: null }],
  ['maxLength null', { type: 'string', maxLength: null }],
  ['enum null', { type: 'string', enum: null }],
  ['type null beside preserve-unknown-fields', { type: null, 'x-kubernetes-preserve-unknown-fields': true }],
  ['properties null', { type: 'object', properties: null }],
  ['a property null', { type: 'object', properties: { a: null } }],
  ['required null', { type: 'object', required: null }],
  ['x-kubernetes-validations null', { type: 'string', 'x-kubernetes-validations': null }],
  ['x-kubernetes-list-type null', { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': null }],
  ['a rule with message null', { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""', message: null }] }],
  ['default null', { type: 'string', default: null }],
  ['items null', { type: 'array', items: null }],
  ['nullable with an enum holding null', { type: 'string', nullable: true, enum: ['a', null] }],
  ['$schema', { type: 'string', $schema: 'http://json-schema.org/draft-04/schema#' }],
  ['id', { type: 'string', id: 'x' }],
  ['uniqueItems', { type: 'array', items: { type: 'string' }, uniqueItems: true }],
  ['an unknown format', { type: 'string', format: 'whatever' }],
  ['a huge maxLength', { type: 'string', maxLength: 9007199254740991 }],
];

describe("fromCrd's schemas, against kube-apiserver's CRD validation", () => {
  it.each(keywordValues)('%s: loads when the API server takes it, else refuses naming the field', (_label, field) => {
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { f: field } } } };
    const crd = crdOf({ kind: 'postgresql', plural: 'postgresqls' }, 'acid.example.com', ['v1'], schema);
    const refusal = apiServerRefusal(crd);
    for (const owner of ['crdgate', 'external'] as const) {
      const ours = crdgateRefusal(crd, owner);
      if (refusal.length === 0) expect(ours).toBeUndefined();
      else for (const error of refusal) expect(ours).toContain(apiServerWords(error));
    }
  });

  // Keywords in combination, each with values the API server reads in its own way (null, negative, empty).
  const keyword = fc.oneof(
    fc.tuple(
      fc.constantFrom('maxLength', 'minLength', 'maxItems', 'minItems', 'maxProperties', 'minProperties'),
      fc.constantFrom(-1, 0, 3, null),
    ),
    fc.tuple(fc.constant('multipleOf'), fc.constantFrom(-2, 0, 0.5, 3, null)),
    fc.tuple(fc.constantFrom('maximum', 'minimum'), fc.constantFrom(-1, 0, 2.5, null)),
    fc.tuple(
      fc.constantFrom(
        'exclusiveMaximum',
        'exclusiveMinimum',
        'nullable',
        'uniqueItems',
        'x-kubernetes-preserve-unknown-fields',
        'x-kubernetes-int-or-string',
        'x-kubernetes-embedded-resource',
      ),
      fc.constantFrom(true, false, null),
    ),
    fc.tuple(fc.constantFrom('description', 'title', 'format', 'pattern'), fc.constantFrom('', 'x', 'date-time', null)),
    fc.tuple(fc.constant('enum'), fc.constantFrom(null, [], ['a'], [1], ['a', null])),
    fc.tuple(fc.constant('required'), fc.constantFrom(null, [], ['a'], ['zz'])),
    fc.tuple(fc.constant('properties'), fc.constantFrom(null, {}, { a: { type: 'string' } }, { a: null }, { a: {} })),
    fc.tuple(fc.constant('items'), fc.constantFrom(null, { type: 'string' }, {}, [{ type: 'string' }])),
    fc.tuple(fc.constant('additionalProperties'), fc.constantFrom(null, true, false, { type: 'string' })),
    fc.tuple(
      fc.constantFrom('allOf', 'anyOf', 'oneOf'),
      fc.constantFrom(
        null,
        [],
        [{ maxLength: 2 }],
        [null],
        [{ type: 'string' }],
        [{ type: 'integer' }, { type: 'string' }],
      ),
    ),
    fc.tuple(fc.constant('not'), fc.constantFrom(null, { enum: ['b'] }, {})),
    fc.tuple(
      fc.constantFrom('x-kubernetes-list-type', 'x-kubernetes-map-type'),
      fc.constantFrom(null, 'atomic', 'set', 'map', 'granular', 'bogus'),
    ),
    fc.tuple(fc.constant('x-kubernetes-list-map-keys'), fc.constantFrom(null, [], ['a'])),
    fc.tuple(
      fc.constant('x-kubernetes-validations'),
      fc.constantFrom(null, [], [{ rule: 'self == self' }], [{ rule: 'self == self', message: null }], [{ rule: '' }]),
    ),
    fc.tuple(fc.constantFrom('example', 'externalDocs'), fc.constantFrom(null, { url: 'https://example.com' })),
  );
  const fieldSchema = fc
    .tuple(
      fc.constantFrom('string', 'integer', 'number', 'boolean', 'array', 'object', null, undefined),
      fc.array(keyword, { maxLength: 3 }),
    )
    .map(([type, keywords]) => ({ ...(type === undefined ? {} : { type }), ...Object.fromEntries(keywords) }));

  it('loads every combination of keywords the API server takes, and refuses every other naming each field', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(fieldSchema, (field) => {
        const schema = { type: 'object', properties: { spec: { type: 'object', properties: { f: field } } } };
        const crd = crdOf({ kind: 'postgresql', plural: 'postgresqls' }, 'acid.example.com', ['v1'], schema);
        const refusal = apiServerRefusal(crd);
        forgetCompiledCrd(crd);
        const ours = crdgateRefusal(crd, 'external');
        if (refusal.length === 0) {
          accepted++;
          expect(ours, JSON.stringify(field)).toBeUndefined();
          return;
        }
        // CEL rules are compiled by the API server alone (init --from-crd asks the engine).
        if (refusal.every((error) => error.field.includes('x-kubernetes-validations'))) return;
        refused++;
        // The field and the kind of error; the API server shows some values as Go structs, crdgate as JSON.
        for (const error of refusal)
          expect(ours, JSON.stringify(field)).toContain(apiServerWords(error).replace(/(: [A-Za-z ]+?):.*$/, '$1'));
      }),
      { numRuns: 250, seed: 7 },
    );
    expect(accepted).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(50);
  });

  // A version's other parts, with fields the API server's types do not have (which it reads as nothing) and nulls.
  it.each([
    ['a printer column with a field of its own', { additionalPrinterColumns: [{ ...column, note: 'x' }] }],
    ['a printer column with priority null', { additionalPrinterColumns: [{ ...column, priority: null }] }],
    ['a status subresource with a field', { subresources: { status: { enabled: true } } }],
    ['a status subresource of null', { subresources: { status: null } }],
    ['a scale subresource with a field of its own', { subresources: { scale: { ...scale, note: 'x' } } }],
    ['a selectable field with a field of its own', { selectableFields: [{ jsonPath: '.spec.size', note: 'x' }] }],
  ])('takes %s, as the API server does', (_label, parts) => {
    const crd = crdOf({ kind: 'postgresql', plural: 'postgresqls' }, 'acid.example.com', ['v1'], partsSchema);
    Object.assign(crd.spec.versions[0]!, parts);
    expect(apiServerRefusal(crd)).toEqual([]);
    expect(crdgateRefusal(crd, 'crdgate')).toBeUndefined();
    expect(crdgateRefusal(crd, 'external')).toBeUndefined();
  });

  // Bounds no value of their type meets: the API server refuses every such value, and so do crdgate's validators.
  it.each([
    [{ type: 'string', maxLength: -1 }, ['', 'a']],
    [{ type: 'string', minLength: -1 }, ['', 'a']],
    [{ type: 'array', items: { type: 'string' }, maxItems: -1 }, [[], ['a']]],
    [{ type: 'object', additionalProperties: { type: 'string' }, maxProperties: -1 }, [{}, { a: 'b' }]],
    [{ type: 'number', multipleOf: 0 }, [0, 1.5]],
    [{ type: 'integer', multipleOf: -2 }, [0, 4, 3]],
    [{ type: 'string', maxLength: -1, nullable: true }, [null, 'a']],
  ])('%j: its validator refuses what the API server refuses, on the same field', (field, values) => {
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { f: field } } } };
    const crd = crdOf({ kind: 'postgresql', plural: 'postgresqls' }, 'acid.example.com', ['v1'], schema);
    const engineCrd = loadCrd(crd);
    const validate = createContractRegistry([defineContract(fromCrd(crd))]).contracts[0]!.validators.get('v1')!;
    for (const value of values) {
      const object = {
        apiVersion: 'acid.example.com/v1',
        kind: 'postgresql',
        metadata: { name: 'x', namespace: 'default' },
        spec: { f: value },
      };
      const judged = judge(engineCrd, { operation: 'CREATE', object });
      const ours = validate(object);
      expect(
        ours.map((error) => [error.field, error.type]),
        JSON.stringify(value),
      ).toEqual(judged.causes.map((cause) => [cause.field, cause.type]));
      expect(ours.map((error) => error.message)).toEqual(judged.causes.map((cause) => cause.message));
    }
  });
});
