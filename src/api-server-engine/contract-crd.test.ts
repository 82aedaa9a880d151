import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import type { Contract } from '../contract/contract-definition.ts';
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
  return {
    ...contract,
    versions: contract.versions.map((version) =>
      version.name === 'v1' ? { ...version, schema: addRule(version.schema) } : version,
    ),
  };
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

  // The example without its rules, and without the formats of crdgate's own its CRD says as rules.
  const withoutRules = (value: unknown, formats = true): unknown =>
    Array.isArray(value)
      ? value.map((item) => withoutRules(item, formats))
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.entries(value)
              .filter(
                ([key, v]) =>
                  key !== 'x-kubernetes-validations' &&
                  !(formats && key === 'format' && (v === 'quantity' || v === 'dns1123-label')),
              )
              .map(([key, v]) => [key, withoutRules(v, formats)]),
          )
        : value;
  const exampleWithout = (formats: boolean) => {
    const contract = geoDatabaseContract();
    return {
      ...contract,
      versions: contract.versions.map((version) => ({
        ...version,
        schema: withoutRules(version.schema, formats) as JSONSchemaProps,
      })),
    };
  };

  it('does not start the engine for a contract without rules', async () => {
    const plain = exampleWithout(true);
    expect(JSON.stringify(plain.versions)).not.toContain('x-kubernetes-validations');
    const before = await readdir(dir);
    expect(contractCrdRefusal(compiled(plain), { acceptedCrds: dir })).toEqual([]);
    // Nothing to remember: the engine was never asked.
    expect(await readdir(dir)).toEqual(before);
  });

  it("asks the engine for a contract whose only rules are those its CRD says in place of crdgate's own formats", async () => {
    const formatsOnly = exampleWithout(false);
    expect(JSON.stringify(formatsOnly.versions)).not.toContain('x-kubernetes-validations');
    const before = await readdir(dir);
    expect(contractCrdRefusal(compiled(formatsOnly), { acceptedCrds: dir })).toEqual([]);
    expect(await readdir(dir)).toHaveLength(before.length + 1);
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
