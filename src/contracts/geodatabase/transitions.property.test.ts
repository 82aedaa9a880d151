import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../index.ts';
import { evaluateTransition } from '../../testing.ts';
import { geoDatabaseMachine } from './transitions.ts';

// Generated GeoDatabase updates: specs close to real ones (versions, quantities, caches that share names so they
// get matched), updates that change a few fields of the old spec, every phase, deletions and overrides.

const runs = { numRuns: 3000 };

const postgresVersion = fc
  .tuple(fc.integer({ min: 13, max: 17 }), fc.nat(20))
  .map(([major, minor]) => `${major}.${minor}`);
const postgisVersion = fc
  .tuple(fc.constantFrom(3, 3, 3, 4), fc.integer({ min: 2, max: 6 }), fc.nat(12))
  .map((parts) => parts.join('.'));
const redisVersion = fc.tuple(fc.integer({ min: 6, max: 8 }), fc.nat(4)).map(([major, minor]) => `${major}.${minor}`);
const quantity = fc
  .tuple(fc.integer({ min: 1, max: 2048 }), fc.constantFrom('Gi', 'Mi', 'G', 'M', 'Ti', '', 'k'))
  .map(([amount, suffix]) => `${amount}${suffix}`);

const cache = fc.record(
  {
    name: fc.constantFrom('tiles', 'sessions', 'geocoder', 'hot'),
    version: redisVersion,
    memory: quantity,
    replicas: fc.integer({ min: 1, max: 5 }),
  },
  { requiredKeys: ['name', 'memory'] },
);

const spec = fc.record(
  {
    postgres: fc.record({ version: postgresVersion, postgis: postgisVersion }),
    readReplicas: fc.integer({ min: 0, max: 15 }),
    storage: fc.record(
      { size: quantity, storageClassName: fc.constantFrom('ssd', 'hdd', 'standard') },
      { requiredKeys: ['size'] },
    ),
    caches: fc.uniqueArray(cache, { maxLength: 4, selector: (c) => c.name }),
  },
  { requiredKeys: ['postgres', 'storage'] },
);
type Spec = typeof spec extends fc.Arbitrary<infer T> ? T : never;

/** A new spec that keeps some parts of the old one and takes the rest from another: a few changes at a time. */
const specUpdate = fc
  .tuple(spec, spec, fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }))
  .map(([before, other, keep]) => {
    const pick = <T>(index: number, mine: T, theirs: T): T => (keep[index] ? mine : theirs);
    const after: Spec = {
      postgres: {
        version: pick(0, before.postgres.version, other.postgres.version),
        postgis: pick(1, before.postgres.postgis, other.postgres.postgis),
      },
      storage: { ...pick(2, before.storage, other.storage) },
    };
    const readReplicas = pick(3, before.readReplicas, other.readReplicas);
    const caches = pick(4, before.caches, other.caches);
    if (readReplicas !== undefined) after.readReplicas = readReplicas;
    if (caches !== undefined) after.caches = caches;
    return [before, keep[5] ? after : other] as const;
  });

const phase = fc.constantFrom(undefined, ...geoDatabaseMachine.states, 'Rebooting');
const overrideReason = fc.option(fc.constantFrom('INC-1: approved', '', 'x'.repeat(300)), { nil: undefined });

function stored(specValue: unknown, phaseValue: string | undefined, deleting: boolean): KubeObject {
  return {
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: { name: 'maps', ...(deleting ? { deletionTimestamp: '2025-06-01T12:00:00Z' } : {}) },
    spec: specValue,
    ...(phaseValue === undefined ? {} : { status: { phase: phaseValue } }),
  };
}

function incoming(specValue: unknown, reason: string | undefined): KubeObject {
  const annotations = reason === undefined ? {} : { annotations: { 'geo.example.com/override-transitions': reason } };
  return {
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: { name: 'maps', ...annotations },
    spec: specValue,
  };
}

const unsupportedKinds = new Set([
  'storage.shrink',
  'storage.class',
  'postgres.major',
  'postgres.downgrade',
  'postgis.major',
  'postgis.downgrade',
  'cache.major',
  'cache.downgrade',
]);

describe('GeoDatabase transitions, generated', () => {
  it('never throws on realistic updates, and its decision is consistent', () => {
    fc.assert(
      fc.property(specUpdate, phase, fc.boolean(), overrideReason, ([before, after], phaseValue, deleting, reason) => {
        const decision = evaluateTransition(
          geoDatabaseMachine,
          stored(before, phaseValue, deleting),
          incoming(after, reason),
        );
        expect(decision.allowed).toBe(decision.denials.length === 0);
        for (const denial of decision.denials) {
          expect(denial.type).toBe('FieldValueForbidden');
          expect(denial.field).toMatch(/^spec\./);
        }
        for (const warning of decision.warnings) {
          expect(warning.length).toBeLessThan(256);
          expect(warning).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
        }
      }),
      runs,
    );
  });

  it('never throws on arbitrary JSON where the spec, status or metadata should be', () => {
    const junkObject = fc.record(
      { spec: fc.oneof(fc.jsonValue(), spec), status: fc.jsonValue(), metadata: fc.jsonValue() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(junkObject, junkObject, (oldObject, newObject) => {
        const decision = evaluateTransition(geoDatabaseMachine, oldObject as KubeObject, newObject as KubeObject);
        expect(decision.allowed).toBe(decision.denials.length === 0);
      }),
      runs,
    );
  });

  it('never allows an unsupported change outside Pending, override or not', () => {
    fc.assert(
      fc.property(specUpdate, phase, fc.boolean(), overrideReason, ([before, after], phaseValue, deleting, reason) => {
        const decision = evaluateTransition(
          geoDatabaseMachine,
          stored(before, phaseValue, deleting),
          incoming(after, reason),
        );
        if (decision.state.recognised && decision.state.state === 'Pending') return;
        const unsupported = decision.changes.filter(({ change }) => unsupportedKinds.has(change.kind));
        for (const { ruling } of unsupported) expect(ruling.outcome).toBe('unsupported');
        if (unsupported.length > 0) expect(decision.allowed).toBe(false);
      }),
      runs,
    );
  });

  it('generates the cases the properties are about, so they cannot hold vacuously', () => {
    const kinds = new Set<string>();
    for (const [before, after] of fc.sample(specUpdate, { numRuns: 500, seed: 1 })) {
      const decision = evaluateTransition(
        geoDatabaseMachine,
        stored(before, 'Ready', false),
        incoming(after, undefined),
      );
      for (const { change } of decision.changes) kinds.add(change.kind);
    }
    expect([...kinds].sort()).toEqual(Object.keys(geoDatabaseMachine.changeKinds).sort());
  });

  it('allows every update that leaves the spec as it was, in any state', () => {
    const anySpec = fc.oneof(spec, fc.jsonValue());
    fc.assert(
      fc.property(anySpec, phase, fc.boolean(), overrideReason, (specValue, phaseValue, deleting, reason) => {
        const decision = evaluateTransition(
          geoDatabaseMachine,
          stored(specValue, phaseValue, deleting),
          incoming(structuredClone(specValue), reason),
        );
        expect(decision.changes).toEqual([]);
        expect(decision.allowed).toBe(true);
      }),
      runs,
    );
  });
});
