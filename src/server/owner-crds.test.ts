import { describe, expect, it } from 'vitest';
import { defineContract } from '../contract/define-contract.ts';
import { fromCrd } from '../contract/from-crd.ts';
import { createContractRegistry, type ContractRegistry } from '../contract/registry.ts';
import type { Invariant } from '../contract/contract-definition.ts';
import { fieldError } from '../contract/values/field-error.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { decideValidation } from '../admission/validate.ts';
import { KubeApiError } from '../kube/kube-api.ts';
import { createLogger } from '../log.ts';
import { createServerMetrics } from './metrics.ts';
import { createOwnerCrdTracker, type OwnerSchemaMode } from './owner-crds.ts';

// The decisions about an owner's live CRD, without an API server: what is logged, which series say what, which
// schema validates. The watch itself is in src/kube/watch-named-object.test.ts, the whole in the e2e test.

const ownerCrd = (generation: number, extra: Record<string, unknown> = {}, versions: string[] = ['v1']) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'queues.mq.example.com', generation, resourceVersion: String(100 + generation) },
  spec: {
    group: 'mq.example.com',
    scope: 'Namespaced',
    names: { kind: 'Queue', plural: 'queues', singular: 'queue', listKind: 'QueueList' },
    versions: versions.map((name, index) => ({
      name,
      served: true,
      storage: index === 0,
      subresources: { status: {} },
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 }, ...extra } },
            status: { type: 'object', properties: { phase: { type: 'string' } } },
          },
        },
      },
    })),
  },
});

function scene(mode: OwnerSchemaMode, invariants: Invariant[] = []) {
  const contract = defineContract({ ...fromCrd(ownerCrd(1), { crdOwner: 'external' }), invariants });
  let registry: ContractRegistry = createContractRegistry([contract]);
  const lines: Record<string, any>[] = [];
  const logger = createLogger({
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  const metrics = createServerMetrics();
  const tracker = createOwnerCrdTracker({
    mode,
    registry: () => registry,
    replaceRegistry: (next) => (registry = next),
    metrics: metrics.ownerCrds,
    logger,
  });
  const metric = async (name: string) =>
    Object.fromEntries(
      (await metrics.registry.getSingleMetric(name)!.get()).values.map((v) => [
        Object.values(v.labels).join(','),
        v.value,
      ]),
    );
  const validate = (spec: Record<string, unknown>) =>
    registry.lookup('mq.example.com', 'Queue')!.validators.get('v1')!({
      apiVersion: 'mq.example.com/v1',
      kind: 'Queue',
      metadata: { name: 'q' },
      spec,
    }).map((e) => `${e.field}: ${e.type}`);
  const logged = (msg: string) => lines.filter((line) => line.msg === msg);
  return { contract, tracker, lines, metric, validate, logged, registry: () => registry };
}

describe("the owner's live CRD", () => {
  it('in step: drift 0 for each version, one line that says so, the contract validating', async () => {
    const { contract, tracker, metric, logged } = scene('contract');
    tracker.following(contract, { following: true });
    tracker.observe(contract, ownerCrd(1));
    expect(await metric('crdgate_owner_crd_drift')).toEqual({ 'queues.mq.example.com,v1': 0 });
    expect(await metric('crdgate_owner_crd_watch_up')).toEqual({ 'queues.mq.example.com': 1 });
    expect(logged("the owner's CRD is in step with the contract's copy")).toHaveLength(1);
    expect(tracker.notReadyBecause()).toBeUndefined();
  });

  it('drifted: a warning naming the version and the first paths, the metric, once per change; the new field still denied', async () => {
    const { contract, tracker, metric, logged, validate } = scene('contract');
    tracker.observe(contract, ownerCrd(1));
    const gained = ownerCrd(2, { backup: { type: 'string' }, tier: { type: 'string' } });
    tracker.observe(contract, gained);
    // The same generation again (a status change, a relist): nothing new to say.
    tracker.observe(contract, { ...gained, metadata: { ...gained.metadata, resourceVersion: '999' } });
    const warnings = logged("the owner's CRD differs from the contract's copy");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      level: 40,
      crd: 'queues.mq.example.com',
      version: 'v1',
      differingPaths: 2,
      differences: ['spec.backup (added)', 'spec.tier (added)'],
      schemaInUse: 'contract',
    });
    expect(await metric('crdgate_owner_crd_drift')).toEqual({ 'queues.mq.example.com,v1': 1 });
    expect(await metric('crdgate_owner_crd_drift_paths')).toEqual({ 'queues.mq.example.com,v1': 2 });
    expect(validate({ size: 1, backup: 'daily' })).toEqual(['spec.backup: FieldValueUnknown']);

    tracker.observe(contract, ownerCrd(3));
    expect(logged("the owner's CRD is in step with the contract's copy again")).toHaveLength(1);
    expect(await metric('crdgate_owner_crd_drift')).toEqual({ 'queues.mq.example.com,v1': 0 });
  });

  it("logs an error naming both kinds when the live CRD's kind is not the contract's, and nothing when it is", () => {
    const { contract, tracker, lines } = scene('contract');
    tracker.observe(contract, ownerCrd(1));
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
    const renamed = ownerCrd(2);
    renamed.spec.names = { ...renamed.spec.names, kind: 'queue', listKind: 'queueList' };
    tracker.observe(contract, renamed);
    expect(lines.filter((line) => line.level >= 50)).toEqual([
      expect.objectContaining({
        crd: 'queues.mq.example.com',
        liveKind: 'queue',
        contractKind: 'Queue',
        msg: expect.stringContaining("make the contract's kind equal the CRD's spec.names.kind"),
      }),
    ]);
  });

  it('names a version only the live CRD has, and drops the series while the CRD does not exist', async () => {
    const { contract, tracker, metric, logged } = scene('contract');
    tracker.observe(contract, ownerCrd(2, {}, ['v1', 'v2']));
    expect(await metric('crdgate_owner_crd_drift')).toEqual({
      'queues.mq.example.com,v1': 0,
      'queues.mq.example.com,v2': 1,
    });
    expect(logged("the owner's CRD differs from the contract's copy")[0]).toMatchObject({
      version: 'v2',
      presence: 'live-only',
      differences: ['version v2 is in the live CRD only'],
    });
    tracker.observe(contract, undefined);
    expect(await metric('crdgate_owner_crd_drift')).toEqual({});
    expect(logged("the owner's CRD does not exist: nothing to compare the contract's copy with")).toHaveLength(1);
  });

  it('live: not ready until read; then the live schema validates, swapped at each change, compiled once per change', async () => {
    const { contract, tracker, metric, validate, registry } = scene('live');
    tracker.following(contract, {
      following: false,
      error: new KubeApiError(403, { message: 'customresourcedefinitions is forbidden' }, {}, 'GET'),
      retryInMs: 1000,
    });
    expect(tracker.notReadyBecause()).toBe(
      "--owner-schema live: the owner's CRD queues.mq.example.com has not been read yet (customresourcedefinitions is forbidden)",
    );
    expect(validate({ size: 1, backup: 'daily' })).toEqual(['spec.backup: FieldValueUnknown']);

    tracker.observe(contract, ownerCrd(2, { backup: { type: 'string' } }));
    expect(tracker.notReadyBecause()).toBeUndefined();
    expect(validate({ size: 1, backup: 'daily' })).toEqual([]);
    // Still the live schema's other rules, not an open door.
    expect(validate({ size: 0, backup: 7 })).toEqual([
      'spec.size: FieldValueInvalid',
      'spec.backup: FieldValueTypeInvalid',
    ]);
    expect(await metric('crdgate_owner_crd_live_schema')).toEqual({ 'queues.mq.example.com,v1': 1 });

    const swapped = registry();
    tracker.observe(contract, { ...ownerCrd(2, { backup: { type: 'string' } }), status: { acceptedNames: {} } });
    expect(registry(), 'a status change compiles nothing').toBe(swapped);
    tracker.observe(contract, ownerCrd(3, { backup: { type: 'string' }, tier: { type: 'string', enum: ['gold'] } }));
    expect(validate({ size: 1, tier: 'gold' })).toEqual([]);
    expect(validate({ size: 1, tier: 'lead' })).toEqual(['spec.tier: FieldValueNotSupported']);
  });

  it('live: a CRD that cannot be compiled keeps the schema in use, says so and counts it', async () => {
    const { contract, tracker, metric, validate, logged } = scene('live');
    tracker.observe(contract, ownerCrd(2, { backup: { type: 'string' } }));
    // A script of Unicode 16, which the regexp of a later Go may know: Go 1.26's, kube-apiserver v1.36's, does not.
    tracker.observe(
      contract,
      ownerCrd(3, { backup: { type: 'string' }, tier: { type: 'string', pattern: '^\\p{Garay}+$' } }),
    );
    expect(await metric('crdgate_owner_crd_schema_refusals_total')).toEqual({ 'queues.mq.example.com': 1 });
    const refusal = logged(
      "cannot validate with the owner's live CRD: kept the schema in use (refusing what it refuses, never admitting unchecked)",
    )[0];
    expect(refusal).toMatchObject({ level: 50, schemaInUse: 'live' });
    expect(refusal?.problems.join(' ')).toContain('openAPIV3Schema.properties[spec].properties[tier].pattern');
    // The previous live schema: backup admitted, tier (unknown to it) denied, not waved through.
    expect(validate({ size: 1, backup: 'daily' })).toEqual([]);
    expect(validate({ size: 1, tier: 'gold' })).toEqual(['spec.tier: FieldValueUnknown']);
  });

  it('contract mode: readiness never waits for the API server', () => {
    const { contract, tracker, logged } = scene('contract');
    tracker.following(contract, { following: false, error: new Error('connect ECONNREFUSED'), retryInMs: 2000 });
    expect(tracker.notReadyBecause()).toBeUndefined();
    expect(logged("cannot follow the owner's CRD: serving with the schema in use, trying again")[0]).toMatchObject({
      level: 40,
      retryInMs: 2000,
      schemaInUse: 'contract',
    });
  });
});

describe('the schema the API server validates with before it calls the webhook', () => {
  const queue = { group: 'mq.example.com', kind: 'Queue' };
  /** A CREATE as the API server sends it to a webhook registered for v1: written in `written`, sent in v1. */
  const create = (registry: ContractRegistry, spec: Record<string, unknown>, written: string | null = 'v1') => {
    const object: KubeObject = {
      apiVersion: 'mq.example.com/v1',
      kind: 'Queue',
      metadata: { name: 'q', namespace: 'ns' },
      spec,
    };
    const verdict = decideValidation(registry, {
      uid: 'u',
      kind: { ...queue, version: 'v1' },
      ...(written === null ? {} : { requestKind: { ...queue, version: written } }),
      operation: 'CREATE',
      object,
      oldObject: null,
    });
    return verdict.allowed ? 'allowed' : verdict.message;
  };
  const atMostTen: Invariant = (object) =>
    ((object.spec as { size?: number }).size ?? 0) > 10
      ? [fieldError('spec.size', 'FieldValueInvalid', 'at most 10')]
      : [];

  it("in step: the webhook leaves the version's schema to the API server, compiles no validator for it, and keeps its own rules", () => {
    const { contract, tracker, registry } = scene('contract', [atMostTen]);
    tracker.observe(contract, ownerCrd(1));
    expect([...registry().lookup(queue.group, queue.kind)!.enforcedSchemas]).toEqual(['v1']);
    // size 0 breaks the schema's minimum: the API server refused it before calling, so the webhook is not asked.
    expect(create(registry(), { size: 0 })).toBe('allowed');
    expect(create(registry(), { size: 20 })).toContain('spec.size: at most 10');
    expect(registry().lookup(queue.group, queue.kind)!.validators.compiledVersions()).toEqual([]);
  });

  it('validates with the copy where the API server is not known to hold it: before the CRD is read, without the version the client wrote, drifted, or gone', () => {
    const { contract, tracker, registry } = scene('contract');
    expect(create(registry(), { size: 0 })).toContain('spec.size');
    tracker.observe(contract, ownerCrd(1));
    expect(create(registry(), { size: 0 }, null)).toContain('spec.size');
    tracker.observe(contract, ownerCrd(2, { backup: { type: 'string' } }));
    expect(registry().lookup(queue.group, queue.kind)!.enforcedSchemas.size).toBe(0);
    expect(create(registry(), { size: 1, backup: 'daily' })).toContain('spec.backup');
    tracker.observe(contract, ownerCrd(3));
    expect(create(registry(), { size: 0 })).toBe('allowed');
    tracker.observe(contract, undefined);
    expect(create(registry(), { size: 0 })).toContain('spec.size');
    expect(registry().lookup(queue.group, queue.kind)!.validators.compiledVersions()).toEqual(['v1']);
  });

  it('keeps what it knew through a failed watch, which resumes where it stopped', () => {
    const { contract, tracker, registry } = scene('contract');
    tracker.observe(contract, ownerCrd(1));
    tracker.following(contract, { following: false, error: new Error('connection reset'), retryInMs: 1000 });
    expect(create(registry(), { size: 0 })).toBe('allowed');
  });
});
