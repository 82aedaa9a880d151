import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from './admission/scalable-geodatabase.fixture.ts';
import { geoDatabaseContract } from './contracts/geodatabase/index.ts';
import { toy, toyAnnotation, toyApiVersion, toyContract } from './conversion/toy-contract.fixture.ts';
import { ConversionError } from './conversion/conversion-error.ts';
import { type Contract } from './contract/contract-definition.ts';
import { ContractDefinitionError, defineContract } from './contract/define-contract.ts';
import { fromCrd } from './contract/from-crd.ts';
import { messageBrokerAnnotations, messageBrokerContract } from './policy/message-broker.fixture.ts';
import { contractTester, renderMachine } from './testing.ts';

const tester = contractTester(geoDatabaseContract());
const geoDatabase = (spec: Record<string, unknown>, phase?: string) => ({
  apiVersion: 'geo.example.com/v1',
  kind: 'GeoDatabase',
  metadata: { name: 'db', namespace: 'maps' },
  spec,
  ...(phase ? { status: { phase } } : {}),
});
const validSpec = {
  postgres: { version: '16.4', postgis: '3.4.2' },
  storage: { size: '20Gi' },
  readReplicas: 1,
  caches: [],
};
const fixture = async (name: string) =>
  JSON.parse(await readFile(new URL(`../test/fixtures/admission/${name}`, import.meta.url), 'utf8'));

describe('crdgate/testing: contractTester', () => {
  it('checks an object as `crdgate check` does: the defaults, named, then validation of the defaulted object', () => {
    const { readReplicas: _, caches: __, ...bare } = validSpec;
    const result = tester.check(geoDatabase(bare));
    expect(result).toMatchObject({ allowed: true, code: 'ALLOWED', causes: [] });
    expect(result.defaults).toEqual([
      { field: 'metadata.labels', value: { 'geo.example.com/postgres-major': '16' } },
      { field: 'spec.readReplicas', value: 0 },
      { field: 'spec.caches', value: [] },
    ]);
    expect(result.object.spec).toEqual({ ...bare, readReplicas: 0, caches: [] });
  });

  it('reports every bad field of an invalid object: the denial the API server would answer, then what the webhook would refuse next', () => {
    const result = tester.check(geoDatabase({ ...validSpec, readReplicas: 99, storage: { size: '1Mi' } }));
    expect(result).toMatchObject({ allowed: false, code: 'OBJECT_INVALID' });
    // The CRD bounds the replicas (the API server refuses first); the smallest size is the webhook's invariant.
    expect(result.causes.map((c) => c.field)).toEqual(['spec.readReplicas']);
    expect(result.next?.map((c) => c.field)).toEqual(['spec.storage.size']);
    expect(result.message).toMatch(/^GeoDatabase\.geo\.example\.com "db" is invalid: spec\.readReplicas: /);
  });

  it('names a bad value under a map key with dots once, though the API server joins the key with a dot and crdgate brackets it', () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'monitors.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Monitor', plural: 'monitors', singular: 'monitor' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: {
                    type: 'object',
                    properties: { matchLabels: { type: 'object', additionalProperties: { type: 'string' } } },
                  },
                },
              },
            },
          },
        ],
      },
    };
    const monitor = {
      apiVersion: 'example.com/v1',
      kind: 'Monitor',
      metadata: { name: 'm', namespace: 'ns' },
      spec: { matchLabels: { 'app.kubernetes.io/name': 12 } },
    };
    const result = contractTester(defineContract(fromCrd(crd))).check(monitor);
    expect(result.allowed).toBe(false);
    expect(result.causes.map((cause) => cause.field)).toEqual(['spec.matchLabels.app.kubernetes.io/name']);
  });

  it('decides updates through the FSA, and deletions through the deletion rules', () => {
    const ready = geoDatabase(validSpec, 'Ready');
    const shrink = tester.check(geoDatabase({ ...validSpec, storage: { size: '10Gi' } }, 'Ready'), {
      oldObject: ready,
    });
    expect(shrink).toMatchObject({ allowed: false, code: 'CHANGE_FORBIDDEN' });
    expect(tester.check(geoDatabase({ ...validSpec, readReplicas: 2 }, 'Ready'), { oldObject: ready }).allowed).toBe(
      true,
    );
    const protectedDb = {
      ...ready,
      metadata: { ...ready.metadata, annotations: { 'geo.example.com/deletion-protection': 'true' } },
    };
    expect(tester.check(protectedDb, { operation: 'DELETE' }).code).toBe('DELETION_PROTECTED');
  });

  it('decides changes no change kind names as the webhook does: refused, refused unless overridden, or allowed, by state', () => {
    const brokers = contractTester(messageBrokerContract());
    const broker = (state: string, metricsEnabled: boolean, annotations: Record<string, string> = {}) => ({
      apiVersion: 'messaging.example.com/v1',
      kind: 'MessageBroker',
      metadata: { name: 'events', annotations },
      spec: { brokers: 3, resources: { memory: '1Gi' }, metricsEnabled },
      status: { lifecycle: { state } },
    });
    const update = (state: string, annotations?: Record<string, string>) =>
      brokers.check(broker(state, true, annotations), { oldObject: broker(state, false) });
    const upgrading = update('Upgrading');
    expect(upgrading).toMatchObject({ allowed: false, code: 'CHANGE_FORBIDDEN' });
    expect(upgrading.causes).toEqual([
      expect.objectContaining({
        field: 'spec.metricsEnabled',
        message: expect.stringContaining(
          'changing false to true is refused while the broker cluster is Upgrading: no change kind names this field',
        ),
      }),
    ]);
    expect(update('Upgrading', { [messageBrokerAnnotations.overrideTransitions]: 'INC-1' }).code).toBe(
      'CHANGE_FORBIDDEN',
    );
    expect(update('Degraded').code).toBe('CHANGE_FORBIDDEN');
    const overridden = update('Degraded', { [messageBrokerAnnotations.overrideTransitions]: 'INC-1' });
    expect(overridden.allowed).toBe(true);
    expect(overridden.warnings).toEqual([
      expect.stringContaining('overriding changes no change kind names while the broker cluster is Degraded'),
    ]);
    expect(update('Running')).toMatchObject({ allowed: true, warnings: [] });
  });

  it('answers whole AdmissionReviews as the server does, and refuses a malformed one with 400', async () => {
    const denied = tester.review('validate', await fixture('create-geodatabase-invalid.json'));
    expect(denied.httpStatus).toBe(200);
    expect(denied.response).toMatchObject({
      uid: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      allowed: false,
      status: { code: 422, reason: 'Invalid' },
    });
    const mutated = tester.review('mutate', await fixture('create-geodatabase.json'));
    expect(mutated.response).toMatchObject({ allowed: true, patchType: 'JSONPatch' });
    const malformed = tester.review('validate', { kind: 'AdmissionReview' });
    expect(malformed).toMatchObject({ httpStatus: 400, body: { error: { code: 'REVIEW_MALFORMED' } } });
    expect(malformed.response).toBeUndefined();
  });

  it('answers a /scale review on the stored object it is given, and denies it without one, as the server does', async () => {
    const scalable = contractTester(scalableGeoDatabaseContract());
    const stored = (await fixture('update-geodatabase.json')).request.oldObject;
    const scale = await fixture('update-geodatabase-scale.json');
    const upgrading = { ...stored, status: { ...stored.status, phase: 'Upgrading' } };
    expect(scalable.review('validate', scale, { storedObject: upgrading }).response).toMatchObject({
      allowed: false,
      status: { code: 403 },
    });
    expect(scalable.review('validate', scale, { storedObject: stored }).response).toMatchObject({ allowed: true });
    expect(scalable.review('validate', scale).response).toMatchObject({
      allowed: false,
      status: { code: 503, reason: 'ServiceUnavailable' },
    });
  });

  it('denies a kind no contract declares, as the server does', () => {
    expect(contractTester(toyContract()).check(geoDatabase(validSpec)).code).toBe('KIND_UNKNOWN');
  });

  it('converts between versions, with the stash, and throws a ConversionError for what cannot be converted', () => {
    const toys = contractTester([toyContract(), geoDatabaseContract()]);
    const down = toys.convert(toy('v2', { size: 3, color: 'red' }), toyApiVersion('v1'));
    expect(down.spec).toEqual({ length: 3 });
    expect(down.metadata?.annotations?.[toyAnnotation]).toBe('{"color":"red"}');
    expect(toys.convert(down, toyApiVersion('v2')).spec).toEqual({ size: 3, color: 'red' });
    expect(() => toys.convert(toy('v2', {}), 'toy.example.com/v9')).toThrow(ConversionError);
    expect(() => toys.convert({ apiVersion: 'other.example.com/v1', kind: 'Other' }, 'other.example.com/v2')).toThrow(
      ConversionError,
    );
  });

  it('renders a machine as `crdgate fsa` does', () => {
    expect(renderMachine(geoDatabaseContract().transitions!, 'mermaid')).toContain('Ready --> Resizing: storage.grow');
  });

  // Issue 40: a contract not made with defineContract (or changed since) crashed contractTester with a TypeError.
  it("holds a contract it is handed to defineContract's rules, with a ContractDefinitionError naming what is wrong", () => {
    const made = geoDatabaseContract();
    const machine = made.transitions!;
    const { humanInterventionStates: _dropped, ...withoutHumans } = machine;
    const problemOf = (given: unknown) => {
      try {
        contractTester(given as Contract);
      } catch (error) {
        expect(error).toBeInstanceOf(ContractDefinitionError);
        return (error as Error).message;
      }
      throw new Error('contractTester took it');
    };
    expect(problemOf({ ...made, transitions: withoutHumans })).toBe(
      'contract geodatabases.geo.example.com is invalid: transitions.humanInterventionStates must be a list of state names, got undefined',
    );
    const { storageVersion: _derived, ...definition } = made;
    expect(problemOf(definition)).toContain(
      'storageVersion must be the name of the storage version (defineContract sets it), got undefined',
    );
    expect(problemOf([made, null])).toContain('the contract must be a contract made with defineContract, got null');
  });
});
