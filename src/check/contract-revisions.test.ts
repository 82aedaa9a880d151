import { describe, expect, it } from 'vitest';
import { defineContract } from '../contract/define-contract.ts';
import { fromCrd } from '../contract/from-crd.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { widgetCrd } from '../crd-revision/crd-revision.fixture.ts';
import { compareContractCrds } from './contract-revisions.ts';

/** The widget's v1 alone, as its owner (an operator) installs it. */
const ownerCrd = (): any => {
  const crd: any = widgetCrd();
  crd.spec.versions = crd.spec.versions.filter((version: any) => version.name === 'v1');
  delete crd.spec.conversion;
  return crd;
};
const external = (crd: any, keepOwnerCrd = true) => {
  const parts = fromCrd(crd, { crdOwner: 'external' });
  if (!keepOwnerCrd) delete parts.ownerCrd;
  return defineContract(parts);
};
const modules = (...contracts: ReturnType<typeof external>[]) => ({
  registry: createContractRegistry(contracts),
  modules: contracts.map((_, i) => `module-${i}.ts`),
});

describe('compareContractCrds', () => {
  it("compares a contract whose CRD its owner installs by the owner's CRD it carries", () => {
    const revised = ownerCrd();
    delete revised.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.endpoint;
    const [revision] = compareContractCrds(modules(external(revised)), modules(external(ownerCrd())), {});
    expect(revision).toMatchObject({
      name: 'widgets.toys.example.com',
      from: 'contract',
      location: { file: 'module-0.ts' },
      oldLocation: { file: 'module-0.ts' },
    });
    expect(revision!.findings.map(({ rule, path }) => [rule, path])).toEqual([
      ['existingFieldRemoval', 'spec.endpoint'],
    ]);
  });

  it('compares nothing for a contract that carries no CRD of its owner, nor for one the old revision does not have', () => {
    expect(compareContractCrds(modules(external(ownerCrd(), false)), modules(external(ownerCrd())), {})).toEqual([]);
    const other = ownerCrd();
    other.metadata.name = 'gadgets.toys.example.com';
    Object.assign(other.spec.names, {
      plural: 'gadgets',
      singular: 'gadget',
      kind: 'Gadget',
      listKind: 'GadgetList',
      shortNames: ['gd'],
    });
    expect(compareContractCrds(modules(external(other)), modules(external(ownerCrd())), {})).toEqual([]);
  });
});
