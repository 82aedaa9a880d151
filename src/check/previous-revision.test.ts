import { describe, expect, it } from 'vitest';
import { defineContract } from '../contract/define-contract.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { ConversionError } from '../conversion/conversion-error.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { previousRevision, StartStateUnknownError } from './previous-revision.ts';

const geo = createContractRegistry([geoDatabaseContract()]).contracts[0]!;
const withoutSteadyState = createContractRegistry([
  defineContract({ ...geoDatabaseContract(), transitions: { ...geoDatabaseContract().transitions!, steadyState: undefined } }),
]).contracts[0]!;

const v1beta1 = (status?: unknown) => ({
  apiVersion: 'geo.example.com/v1beta1',
  kind: 'GeoDatabase',
  metadata: { name: 'db', namespace: 'maps' },
  spec: { postgres: { version: '16.4', postgis: '3.4.2' }, replicas: 2, storage: { size: '10Gi' } },
  ...(status === undefined ? {} : { status }),
});

describe('previousRevision', () => {
  it("assumes the contract's steady state, then --state, for a manifest without a phase, in the new object's version", () => {
    const steady = previousRevision(geo, v1beta1(), 'geo.example.com/v1', undefined);
    expect(steady.state).toEqual({ phase: 'Ready', source: 'contract' });
    expect(steady.oldObject).toMatchObject({ apiVersion: 'geo.example.com/v1', spec: { readReplicas: 2 }, status: { phase: 'Ready' } });
    expect(previousRevision(geo, v1beta1({ phase: '' }), 'geo.example.com/v1beta1', 'Degraded')).toMatchObject({
      state: { phase: 'Degraded', source: 'flag' },
      oldObject: { apiVersion: 'geo.example.com/v1beta1', status: { phase: 'Degraded' } },
    });
  });

  it('keeps the phase the old manifest records, and leaves the rest of its status alone', () => {
    const recorded = previousRevision(geo, v1beta1({ phase: 'Upgrading', observedGeneration: 3 }), 'geo.example.com/v1', 'Pending');
    expect(recorded.state).toEqual({ phase: 'Upgrading', source: 'status' });
    expect(recorded.oldObject.status).toEqual({ phase: 'Upgrading', observedGeneration: 3 });
  });

  it('refuses to guess when neither --state nor the contract names a state', () => {
    expect(() => previousRevision(withoutSteadyState, v1beta1(), 'geo.example.com/v1', undefined)).toThrow(StartStateUnknownError);
    expect(() => previousRevision(withoutSteadyState, v1beta1(), 'geo.example.com/v1', undefined)).toThrow(/pass --state PHASE \(one of Pending, /);
    expect(previousRevision(withoutSteadyState, v1beta1(), 'geo.example.com/v1', 'Ready').state).toEqual({ phase: 'Ready', source: 'flag' });
  });

  it('throws a ConversionError for an old object that cannot be converted', () => {
    expect(() => previousRevision(geo, { ...v1beta1(), apiVersion: 'geo.example.com/v9' }, 'geo.example.com/v1', undefined)).toThrow(ConversionError);
  });
});

describe("previousRevision with the operator's phase strings", () => {
  it('writes the assumed state as a phase the operator would write, which the machine reads back as that state', () => {
    const machine = geoDatabaseContract().transitions!;
    const sentences = createContractRegistry([
      defineContract({ ...geoDatabaseContract(), transitions: { ...machine, phases: Object.fromEntries(machine.states.map((state) => [`database is ${state.toLowerCase()}`, state])) } }),
    ]).contracts[0]!;
    const steady = previousRevision(sentences, v1beta1(), 'geo.example.com/v1', undefined);
    expect(steady.state).toEqual({ phase: 'Ready', source: 'contract' });
    expect(steady.oldObject).toMatchObject({ status: { phase: 'database is ready' } });
  });
});
