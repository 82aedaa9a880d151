import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { judge, loadCrd } from '../api-server-engine/engine.ts';
import { exampleSpec, searchExample } from './crd-example.ts';

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

// The search, judged by kube-apiserver's own pipeline (the engine), over schemas the first candidates do not satisfy.
describe('searchExample, judged by the API server engine', () => {
  const crdOf = (spec: JSONSchemaProps) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'samples.example.com' },
    spec: {
      group: 'example.com',
      names: { kind: 'Sample', plural: 'samples', singular: 'sample', listKind: 'SampleList' },
      scope: 'Namespaced',
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec } } },
        },
      ],
    },
  });
  const base = { apiVersion: 'example.com/v1', kind: 'Sample', metadata: { name: 'example', namespace: 'default' } };
  const search = (spec: JSONSchemaProps) => {
    const crd = loadCrd(crdOf(spec));
    return searchExample(base, withSpec(spec), (object) => {
      const judgement = judge(crd, { operation: 'CREATE', object, fieldValidation: 'Strict' });
      return judgement.allowed ? [] : judgement.causes;
    });
  };

  it('makes one for patterns, formats, bounds, nested required objects, maps, sets and int-or-string', () => {
    const found = search({
      type: 'object',
      required: ['name', 'schedule', 'size', 'port', 'backup', 'labels', 'zones', 'retention', 'endpoint', 'template'],
      properties: {
        name: { type: 'string', pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$', maxLength: 20, minLength: 3 },
        schedule: { type: 'string', pattern: '^(\\*|[0-5]?\\d)( (\\*|[01]?\\d|2[0-3])){4}$' },
        size: {
          'x-kubernetes-int-or-string': true,
          anyOf: [{ type: 'integer' }, { type: 'string' }],
          pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE])?$',
        },
        port: { type: 'integer', minimum: 1024, maximum: 65535, multipleOf: 10 },
        backup: {
          type: 'object',
          required: ['target'],
          properties: {
            target: {
              type: 'object',
              required: ['bucket'],
              properties: { bucket: { type: 'string', format: 'hostname' } },
            },
          },
        },
        labels: { type: 'object', minProperties: 1, additionalProperties: { type: 'string', pattern: '^v[0-9]+$' } },
        zones: {
          type: 'array',
          minItems: 2,
          'x-kubernetes-list-type': 'set',
          items: { type: 'string', pattern: '^[a-z]{2}-[a-z]+-[0-9]$' },
        },
        retention: { type: 'string', pattern: '^[1-9][0-9]*(d|w|m)$' },
        endpoint: { type: 'string', format: 'uri' },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          'x-kubernetes-preserve-unknown-fields': true,
        },
      },
    });
    expect(found.refusal).toEqual([]);
    expect(found.taken).toBe(true);
    expect(found.object.spec).toMatchObject({
      port: 1030,
      zones: [expect.any(String), expect.any(String)],
      template: { apiVersion: 'v1', kind: 'ConfigMap' },
    });
    expect(found.tries).toBeLessThan(5);
  });

  it("writes a value a person would write where the pattern takes one: a volume's size is 1Gi, not the pattern's 0e0", () => {
    const quantity =
      '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$';
    const found = search({
      type: 'object',
      required: ['volume', 'window'],
      properties: {
        volume: { type: 'object', required: ['size'], properties: { size: { type: 'string', pattern: quantity } } },
        // A pattern none of those values fits keeps the reader's own guess.
        window: { type: 'string', pattern: '^(Mon|Tue):[0-2][0-9]$' },
      },
    });
    expect(found.taken).toBe(true);
    expect(found.object.spec).toEqual({
      volume: { size: '1Gi' },
      window: expect.stringMatching(/^(Mon|Tue):[0-2][0-9]$/),
    });
  });

  it('adds what a rule asks for beyond the required fields, and tries the next value a rule refuses', () => {
    const found = search({
      type: 'object',
      required: ['mode'],
      properties: {
        mode: { type: 'string', enum: ['standalone', 'replicated'] },
        replicas: { type: 'integer', minimum: 1 },
      },
      'x-kubernetes-validations': [
        { rule: "self.mode == 'replicated'", message: 'only replicated clusters are supported' },
        { rule: 'has(self.replicas)', message: 'replicas is required' },
      ],
    });
    expect(found.taken).toBe(true);
    expect(found.object.spec).toEqual({ mode: 'replicated', replicas: 1 });
    expect(found.tries).toBeGreaterThan(1);
  });

  it.each([
    ['self.from < self.to', (spec: any) => spec.from < spec.to],
    ['self.from > self.to', (spec: any) => spec.from > spec.to],
  ])('finds a pair of values for a rule across two fields without a message: %s', (rule, holds) => {
    const version = { type: 'integer', minimum: 11, maximum: 18 } as const;
    const found = search({
      type: 'object',
      required: ['from', 'to'],
      properties: { from: version, to: version },
      'x-kubernetes-validations': [{ rule }],
    });
    expect(found.taken).toBe(true);
    expect(holds(found.object.spec)).toBe(true);
  });

  it("takes a value a rule compares a field with, and builds on an object's default with the fields it lacks", () => {
    const found = search({
      type: 'object',
      required: ['catalog', 'slots'],
      properties: {
        catalog: {
          type: 'object',
          required: ['kind', 'apiGroup', 'name'],
          properties: { kind: { type: 'string' }, apiGroup: { type: 'string' }, name: { type: 'string' } },
          'x-kubernetes-validations': [
            { rule: "self.kind == 'ImageCatalog' || self.kind == 'ClusterImageCatalog'", message: 'not a catalog' },
            { rule: "self.apiGroup in ['postgresql.cnpg.io']", message: 'apiGroup must be postgresql.cnpg.io' },
          ],
        },
        slots: {
          type: 'object',
          default: { enabled: true, ha: { on: true } },
          required: ['enabled', 'prefix', 'ha'],
          properties: {
            enabled: { type: 'boolean' },
            prefix: { type: 'string', pattern: '^[0-9a-z_]+$' },
            ha: {
              type: 'object',
              // Its own default, which the enclosing default's value overrides.
              default: { on: false },
              required: ['on', 'sync'],
              properties: { on: { type: 'boolean' }, sync: { type: 'boolean' } },
            },
          },
        },
      },
    });
    expect(found.refusal).toEqual([]);
    expect(found.object.spec).toEqual({
      catalog: { kind: 'ImageCatalog', apiGroup: 'postgresql.cnpg.io', name: 'example' },
      // The default's nested object, built on: the field it lacks added.
      slots: { enabled: true, ha: { on: true, sync: false }, prefix: expect.stringMatching(/^[0-9a-z_]+$/) },
    });
  });

  it('says what the API server refused when nothing it tries is taken', () => {
    const found = search({
      type: 'object',
      required: ['token'],
      properties: { token: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: "self.token.endsWith('-from-the-vault')", message: 'the token is wrong' }],
    });
    expect(found.taken).toBe(false);
    expect(found.refusal.map((cause) => cause.message).join()).toContain('the token is wrong');
    expect(found.tries).toBeLessThanOrEqual(40);
  });
});
