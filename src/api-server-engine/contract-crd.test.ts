import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import type { Contract } from '../contract/define-contract.ts';
import { createContractRegistry } from '../contract/registry.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { contractCrdRefusal } from './contract-crd.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-accepted-crds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const compiled = (contract: Contract) => createContractRegistry([contract]).contracts[0]!;

/** The example with one more rule on the v1 spec. */
function withSpecRule(rule: string): Contract {
  const contract = geoDatabaseContract();
  const addRule = (schema: JSONSchemaProps): JSONSchemaProps => {
    const copy = structuredClone(schema) as any;
    copy.properties.spec['x-kubernetes-validations'] = [{ rule, message: 'spec rule' }];
    return copy;
  };
  return { ...contract, versions: contract.versions.map((version) => (version.name === 'v1' ? { ...version, schema: addRule(version.schema) } : version)) };
}

describe('contractCrdRefusal', () => {
  it("answers kube-apiserver's refusal of a rule, and nothing for rules it takes", () => {
    expect(contractCrdRefusal(compiled(geoDatabaseContract()))).toEqual([]);
    expect(contractCrdRefusal(compiled(withSpecRule('self.storage.size.startsWith(1)')))).toEqual([
      expect.objectContaining({
        field: 'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
        message: expect.stringContaining("found no matching overload for 'startsWith'"),
      }),
    ]);
  });

  it('does not start the engine for a contract without rules', () => {
    const contract = geoDatabaseContract();
    const withoutRules = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(withoutRules)
        : typeof value === 'object' && value !== null
          ? Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'x-kubernetes-validations').map(([key, v]) => [key, withoutRules(v)]))
          : value;
    const plain = { ...contract, versions: contract.versions.map((version) => ({ ...version, schema: withoutRules(version.schema) as JSONSchemaProps })) };
    expect(JSON.stringify(plain.versions)).not.toContain('x-kubernetes-validations');
    const files = async () => readdir(dir);
    return (async () => {
      const before = await files();
      expect(contractCrdRefusal(compiled(plain), { acceptedCrds: dir })).toEqual([]);
      // Nothing to remember: the engine was never asked.
      expect(await files()).toEqual(before);
    })();
  });

  it('remembers a CRD the engine took, once per contract, and never one it refused', async () => {
    const before = await readdir(dir);
    expect(contractCrdRefusal(compiled(geoDatabaseContract()), { acceptedCrds: dir })).toEqual([]);
    const afterExample = await readdir(dir);
    expect(afterExample).toHaveLength(before.length + 1);
    expect(contractCrdRefusal(compiled(geoDatabaseContract()), { acceptedCrds: dir })).toEqual([]);
    expect(await readdir(dir)).toEqual(afterExample);
    expect(contractCrdRefusal(compiled(withSpecRule('self.storage.size ==')), { acceptedCrds: dir })).not.toEqual([]);
    expect(await readdir(dir)).toEqual(afterExample);
    expect(contractCrdRefusal(compiled(withSpecRule('has(self.storage)')), { acceptedCrds: dir })).toEqual([]);
    expect(await readdir(dir)).toHaveLength(afterExample.length + 1);
  });
});
