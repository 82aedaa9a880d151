import { describe, expect, it } from 'vitest';
import { defineContract } from '../contract/define-contract.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { ConversionError } from '../conversion/conversion-error.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { previousRevision, StartStateUnknownError } from './previous-revision.ts';

const geo = createContractRegistry([geoDatabaseContract()]).contracts[0]!;
const withoutSteadyState = createContractRegistry([
  defineContract({
    ...geoDatabaseContract(),
    transitions: { ...geoDatabaseContract().transitions!, steadyState: undefined },
  }),
]).contracts[0]!;

const v1beta1 = (status?: unknown) => ({
  apiVersion: 'geo.example.com/v1beta1',
  kind: 'GeoDatabase',
  metadata: { name: 'db', namespace: 'maps' },
  spec: { postgres: { version: '16.4', postgis: '3.4.2' }, replicas: 2, storage: { size: '10Gi' } },
  ...(status === undefined ? {} : { status }),
});

describe('previousRevision', () => {
  it("assumes the contract's steady state, then --state, for a manifest without a phase, in the new object's version, inventing no status", () => {
    const steady = previousRevision(geo, v1beta1(), 'geo.example.com/v1', undefined);
    expect(steady).toMatchObject({ state: { state: 'Ready', source: 'contract' }, assumedState: 'Ready' });
    expect(steady.oldObject).toMatchObject({ apiVersion: 'geo.example.com/v1', spec: { readReplicas: 2 } });
    expect(steady.oldObject).not.toHaveProperty('status');
    const flagged = previousRevision(geo, v1beta1({ phase: '' }), 'geo.example.com/v1beta1', 'Degraded');
    expect(flagged).toMatchObject({ state: { state: 'Degraded', source: 'flag' }, assumedState: 'Degraded' });
    expect(flagged.oldObject.status).toEqual({ phase: '' });
  });

  it('keeps the phase the old manifest records, assuming nothing, and leaves its status alone', () => {
    const recorded = previousRevision(
      geo,
      v1beta1({ phase: 'Upgrading', observedGeneration: 3 }),
      'geo.example.com/v1',
      'Pending',
    );
    expect(recorded.state).toEqual({ state: 'Upgrading', source: 'status' });
    expect(recorded).not.toHaveProperty('assumedState');
    expect(recorded.oldObject.status).toEqual({ phase: 'Upgrading', observedGeneration: 3 });
  });

  it('reports a recorded phase the machine does not know as read, to be judged as unrecognised', () => {
    expect(previousRevision(geo, v1beta1({ phase: 'Rebooting' }), 'geo.example.com/v1', 'Ready').state).toEqual({
      state: '"Rebooting"',
      source: 'status',
    });
  });

  it('refuses to guess when neither --state nor the contract names a state', () => {
    expect(() => previousRevision(withoutSteadyState, v1beta1(), 'geo.example.com/v1', undefined)).toThrow(
      StartStateUnknownError,
    );
    expect(() => previousRevision(withoutSteadyState, v1beta1(), 'geo.example.com/v1', undefined)).toThrow(
      /pass --state STATE \(one of Pending, /,
    );
    expect(previousRevision(withoutSteadyState, v1beta1(), 'geo.example.com/v1', 'Ready').state).toEqual({
      state: 'Ready',
      source: 'flag',
    });
  });

  it('throws a ConversionError for an old object that cannot be converted', () => {
    expect(() =>
      previousRevision(geo, { ...v1beta1(), apiVersion: 'geo.example.com/v9' }, 'geo.example.com/v1', undefined),
    ).toThrow(ConversionError);
  });
});

describe('previousRevision with a state reader of its own', () => {
  const { phasePath: _phasePath, ...machine } = geoDatabaseContract().transitions!;
  // The state in conditions, as many operators keep it: Ready=True is Ready, Ready=False with a reason is that reason.
  const fromConditions = createContractRegistry([
    defineContract({
      ...geoDatabaseContract(),
      transitions: {
        ...machine,
        readState: (object) => {
          const conditions = (
            object.status as { conditions?: Array<{ type?: string; status?: string; reason?: string }> } | undefined
          )?.conditions;
          const ready = Array.isArray(conditions)
            ? conditions.find((condition) => condition?.type === 'Ready')
            : undefined;
          if (ready === undefined) return undefined;
          return ready.status === 'True'
            ? 'Ready'
            : ready.reason === 'Upgrading'
              ? 'Upgrading'
              : { unrecognised: String(ready.reason) };
        },
      },
    }),
  ]).contracts[0]!;

  it('reads the state from the status the old manifest carries, as the webhook reads the stored object', () => {
    const upgrading = previousRevision(
      fromConditions,
      v1beta1({ conditions: [{ type: 'Ready', status: 'False', reason: 'Upgrading' }] }),
      'geo.example.com/v1',
      'Ready',
    );
    expect(upgrading.state).toEqual({ state: 'Upgrading', source: 'status' });
    expect(upgrading).not.toHaveProperty('assumedState');
  });

  it('assumes --state, else the steady state, when the reader reads nothing, and writes nothing into the status', () => {
    const flagged = previousRevision(fromConditions, v1beta1(), 'geo.example.com/v1', 'Upgrading');
    expect(flagged).toMatchObject({ state: { state: 'Upgrading', source: 'flag' }, assumedState: 'Upgrading' });
    expect(flagged.oldObject).not.toHaveProperty('status');
    expect(previousRevision(fromConditions, v1beta1(), 'geo.example.com/v1', undefined).state).toEqual({
      state: 'Ready',
      source: 'contract',
    });
  });
});
