import { describe, expect, it } from 'vitest';
import { contractFingerprint } from './contract-fingerprint.ts';
import { checkContract, defineContract } from './define-contract.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';

describe('contractFingerprint', () => {
  const toHub = (object: unknown) => object;
  const made = () => ({
    versions: [{ name: 'v1', schema: { type: 'object', maximum: 3 } }],
    conversions: { v1: { toHub } },
  });

  it('is the same for the same data and the same functions, and differs for a change deep in either', () => {
    expect(contractFingerprint(made())).toBe(contractFingerprint(made()));
    const deeper = made();
    deeper.versions[0]!.schema.maximum = 4;
    expect(contractFingerprint(deeper)).not.toBe(contractFingerprint(made()));
    const otherFunction = made();
    otherFunction.conversions.v1.toHub = (object: unknown) => object;
    expect(contractFingerprint(otherFunction)).not.toBe(contractFingerprint(made()));
  });

  it('takes nothing as known of a value JSON cannot carry', () => {
    expect(contractFingerprint({ n: 1n })).toBeUndefined();
    expect(contractFingerprint({ s: Symbol('s') })).toBeUndefined();
  });

  it('names an object met again by where it was first met, so that sharing, and any change to it, shows', () => {
    const sharing = () => {
      const schema = { type: 'object', maximum: 3 };
      return { versions: [{ schema }], ownerCrd: { spec: { versions: [{ schema }] } } };
    };
    expect(contractFingerprint(sharing())).toBe(contractFingerprint(sharing()));
    const changed = sharing();
    changed.ownerCrd.spec.versions[0]!.schema.maximum = 4;
    expect(contractFingerprint(changed)).not.toBe(contractFingerprint(sharing()));
    // The same data, no longer shared: a copy may be changed apart from the contract's schema, so it is not known.
    const copied = sharing();
    copied.ownerCrd.spec.versions[0]!.schema = { ...copied.ownerCrd.spec.versions[0]!.schema };
    expect(contractFingerprint(copied)).not.toBe(contractFingerprint(sharing()));
    const looping: Record<string, unknown> = sharing();
    looping['self'] = looping;
    expect(contractFingerprint(looping)).not.toBe(contractFingerprint(sharing()));
  });
});

describe('checkContract of a contract defineContract made', () => {
  it('takes it as it is while unchanged, and checks it again once changed', () => {
    const contract = defineContract(geoDatabaseContract());
    expect(checkContract(contract)).toBe(contract);
    (contract.versions[0]!.schema as { type: unknown }).type = 'string';
    expect(() => checkContract(contract)).toThrow(/type/);
  });
});

describe('checkContract of a contract changed to hold itself after defineContract made it', () => {
  it('checks it again, and says so', () => {
    const schema: Record<string, unknown> = { type: 'object', properties: { spec: { type: 'object' } } };
    const contract = defineContract({
      identity: {
        group: 'toy.example.com',
        kind: 'Widget',
        plural: 'widgets',
        singular: 'widget',
        scope: 'Namespaced',
      },
      hub: 'v1',
      versions: [{ name: 'v1', served: true, storage: true, schema }],
      conversions: {},
    });
    expect(checkContract(contract)).toBe(contract);
    (schema['properties'] as Record<string, unknown>)['loop'] = schema;
    expect(() => checkContract(contract)).toThrow(/contains itself/);
  });
});
