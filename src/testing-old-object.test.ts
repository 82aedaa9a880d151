import { describe, expect, it } from 'vitest';
import { type Contract } from './contract/contract-definition.ts';
import { defineContract } from './contract/define-contract.ts';
import { whenDifferent } from './contract/fsa/comparisons.ts';
import { fieldClassifier } from './contract/fsa/field-classifier.ts';
import type { StateReader, Fsa } from './contract/fsa/machine.ts';
import { readString } from './contract/fsa/value-readers.ts';
import { formatFieldError } from './contract/values/field-error.ts';
import { contractTester } from './testing.ts';
import { cacheClusterContract } from './admission/cache-cluster.fixture.ts';

// A kind whose machine classifies a field the schema defaults, and reads its state from conditions, as many
// operators keep it: what contractTester.check({ oldObject }) must judge as the webhook judges the stored object.
type State = 'Pending' | 'Ready' | 'ReconcileFailed' | 'Deleting';
const conditionsState: StateReader<State> = (object) => {
  const conditions = (object.status as { conditions?: unknown } | undefined)?.conditions;
  if (!Array.isArray(conditions)) return undefined;
  const reconciled = conditions.find((condition) => (condition as { type?: unknown })?.type === 'ReconcileSuccess') as
    { status?: unknown } | undefined;
  if (reconciled === undefined) return undefined;
  return reconciled.status === 'True'
    ? 'Ready'
    : reconciled.status === 'False'
      ? 'ReconcileFailed'
      : { unrecognised: `ReconcileSuccess=${String(reconciled.status)}` };
};

function queueContract(): Contract {
  const machine: Fsa<State, 'tier'> = {
    name: 'Queue',
    subject: 'queue',
    states: ['Pending', 'Ready', 'ReconcileFailed', 'Deleting'],
    initialState: 'Pending',
    steadyState: 'Ready',
    deletingState: 'Deleting',
    terminalStates: ['Deleting'],
    humanInterventionStates: ['ReconcileFailed'],
    readState: conditionsState,
    changeKinds: { tier: { description: 'changing the tier from {from} to {to}' } },
    rules: {
      Pending: { anyChange: true, operatorMoves: ['Ready', 'ReconcileFailed'] },
      Ready: { allow: [{ changes: ['tier'] }], operatorMoves: ['ReconcileFailed'] },
      ReconcileFailed: {},
      Deleting: {},
    },
    overrideAnnotation: 'queues.example.com/override-transitions',
    // No absentMeans: the schema's default stands for an absent tier, and the API server fills it in on every read.
    classifiers: [fieldClassifier({ path: 'tier', read: readString, compare: whenDifferent('tier') })],
  };
  const conditions = {
    type: 'array',
    items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
  } as const;
  return defineContract({
    identity: { group: 'queues.example.com', kind: 'Queue', plural: 'queues', singular: 'queue', scope: 'Namespaced' },
    hub: 'v1',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: { tier: { type: 'string', default: 'standard' }, size: { type: 'integer' } },
            },
            status: { type: 'object', properties: { conditions } },
          },
        },
      },
    ],
    conversions: {},
    transitions: machine as Fsa<string, string>,
  });
}

const queue = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  apiVersion: 'queues.example.com/v1',
  kind: 'Queue',
  metadata: { name: 'q', namespace: 'apps' },
  spec,
  ...(status ? { status } : {}),
});
const failed = { conditions: [{ type: 'ReconcileSuccess', status: 'False' }] };

describe('contractTester.check with an old object: judged as the webhook judges the stored object', () => {
  const tester = contractTester(queueContract());

  it('defaults the old object as the API server holds it, so writing out a schema default is no change', () => {
    const result = tester.check(queue({ tier: 'standard' }, failed), { oldObject: queue({}, failed) });
    expect(result).toMatchObject({ allowed: true, causes: [], warnings: [] });
  });

  it('still refuses a real change of the defaulted field in a state that allows none', () => {
    const result = tester.check(queue({ tier: 'premium' }, failed), { oldObject: queue({}, failed) });
    expect(result.allowed).toBe(false);
    expect(result.causes.map(formatFieldError)).toEqual([
      'spec.tier: changing the tier from standard to premium is not allowed while the queue is ReconcileFailed (allowed in: Ready)',
    ]);
  });

  it("reads the state with the contract's readState from the old object's status, never warning about a made-up phase", () => {
    expect(
      tester.check(queue({ tier: 'premium' }), {
        oldObject: queue({ tier: 'standard' }, { conditions: [{ type: 'ReconcileSuccess', status: 'True' }] }),
      }),
    ).toMatchObject({
      allowed: true,
      warnings: [],
    });
  });

  it('takes the state given for an old object whose status records none, and the recorded one over it', () => {
    const change = queue({ tier: 'premium' });
    expect(tester.check(change, { oldObject: queue({ tier: 'standard' }) }).allowed).toBe(true);
    expect(tester.check(change, { oldObject: queue({ tier: 'standard' }), state: 'ReconcileFailed' }).allowed).toBe(
      false,
    );
    expect(
      tester.check(change, {
        oldObject: queue({ tier: 'standard' }, { conditions: [{ type: 'ReconcileSuccess', status: 'True' }] }),
        state: 'ReconcileFailed',
      }).allowed,
    ).toBe(true);
  });

  it("carries the webhook's audit annotations, the override's record among them", () => {
    const override = { 'queues.example.com/override-transitions': 'INC-3: the tier is paid for' };
    const result = tester.check(
      { ...queue({ tier: 'premium' }, failed), metadata: { name: 'q', namespace: 'apps', annotations: override } },
      { oldObject: queue({}, failed) },
    );
    expect(result.allowed).toBe(true);
    expect(Object.keys(result.auditAnnotations)).toEqual(['override-transitions']);
    expect(result.auditAnnotations['override-transitions']).toContain('INC-3: the tier is paid for');
    expect(
      tester.check(queue({ tier: 'standard' }, failed), { oldObject: queue({}, failed) }).auditAnnotations,
    ).toEqual({});
  });

  it("names the CRD's own defaults among the defaults, as it names the webhook's", () => {
    expect(tester.check(queue({ size: 3 })).defaults).toEqual([{ field: 'spec.tier', value: 'standard' }]);
  });

  it('prunes what the schema does not know from the old object before comparing', () => {
    const result = tester.check(queue({ tier: 'standard' }, failed), {
      oldObject: { ...queue({}, failed), spec: { tierr: 'premium' } },
    });
    expect(result).toMatchObject({ allowed: true, causes: [] });
  });
});

describe("contractTester.check's old object, with the contract's own defaults as at its admission", () => {
  // CacheCluster defaults spec.tls to {enabled: false} (crdgate's mutating webhook), and refuses any change no change
  // kind names while Upgrading, where adding nodes is allowed. Manifests that never mention tls: the stored object
  // got the default when it was created, so the new manifest's default is no change.
  const tester = contractTester(cacheClusterContract());
  const manifest = (spec: Record<string, unknown>, version = 'v1') => ({
    apiVersion: `cache.example.com/${version}`,
    kind: 'CacheCluster',
    metadata: { name: 'sessions', namespace: 'shop' },
    spec,
    status: { phase: 'Upgrading' },
  });

  it('judges no phantom change of a defaulted field the old manifest leaves out', () => {
    const result = tester.check(manifest({ memory: '512Mi', replicas: 4 }), {
      oldObject: manifest({ memory: '512Mi', replicas: 3 }),
    });
    expect(result.allowed, result.message).toBe(true);
  });

  it('as for an old manifest in another version, whose default the conversion keeps in the stash', () => {
    const result = tester.check(manifest({ memory: '512Mi', replicas: 4 }), {
      oldObject: manifest({ memoryMB: 512, nodes: 3 }, 'v1alpha1'),
    });
    expect(result.allowed, result.message).toBe(true);
  });

  it('still judges a value the old manifest does set, as it is', () => {
    const result = tester.check(manifest({ memory: '512Mi', replicas: 4 }), {
      oldObject: manifest({ memory: '512Mi', replicas: 3, tls: { enabled: true } }),
    });
    // The new manifest leaves tls out, so the default turns TLS off: a change, refused mid-upgrade.
    expect(result.code).toBe('CHANGE_FORBIDDEN');
    expect(result.causes.map((cause) => cause.field)).toEqual(['spec.tls.enabled']);
  });
});
