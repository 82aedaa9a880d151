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
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(contractFingerprint(cyclic)).toBeUndefined();
    expect(contractFingerprint({ n: 1n })).toBeUndefined();
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
