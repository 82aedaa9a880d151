import { describe, expect, it } from 'vitest';
import { cacheClusterContract, type CacheClusterOptions } from '../admission/cache-cluster.fixture.ts';
import { defineContract } from '../contract/define-contract.ts';
import { fromCrd } from '../contract/from-crd.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { widgetCrd } from '../crd-revision/crd-revision.fixture.ts';
import { compareContractCrds, comparedContractCrds } from './contract-revisions.ts';

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

describe('a retirement: the contract that drops v1alpha1 against the one that no longer serves it', () => {
  const cache = (options: CacheClusterOptions) => ({
    registry: createContractRegistry([cacheClusterContract(options)]),
    modules: [`cache-${options.v1alpha1 ?? 'served'}.ts`],
  });
  const retired = cache({ v1alpha1: 'retired' });
  const unserved = cache({ v1alpha1: 'unserved' });
  const findings = (old: ReturnType<typeof cache>, storedVersions?: string[]) =>
    compareContractCrds(
      retired,
      old,
      {},
      new Map(storedVersions ? [['cacheclusters.cache.example.com', storedVersions]] : []),
    )[0]!.findings.map(({ rule, severity, version, message }) => ({ rule, severity, version, message }));

  it('compares the one CRD both render', () => {
    expect(comparedContractCrds(retired, unserved)).toEqual(['cacheclusters.cache.example.com']);
  });

  it('warns, without the cluster, that an earlier revision may have stored objects in v1alpha1', () => {
    expect(findings(unserved)).toEqual([
      expect.objectContaining({ rule: 'unservedVersionRemoval', severity: 'warning', version: 'v1alpha1' }),
    ]);
    expect(findings(unserved)[0]!.message).toContain('status.storedVersions is not known here');
  });

  it("fails while the cluster's storedVersions lists v1alpha1, naming the migration to run", () => {
    expect(findings(unserved, ['v1alpha1', 'v1'])).toEqual([
      {
        rule: 'storedVersionRemoval',
        severity: 'error',
        version: 'v1alpha1',
        message:
          'version v1alpha1 removed while objects may be stored in it (status.storedVersions lists v1alpha1, v1): ' +
          'the API server refuses this update; run `crdgate migrate --resource cacheclusters.cache.example.com` ' +
          '(it rewrites every object in v1 and trims status.storedVersions to it), then apply this revision',
      },
    ]);
  });

  it('passes once storedVersions is trimmed to v1: no conversion is left to remove with one version', () => {
    expect(findings(unserved, ['v1'])).toEqual([
      { rule: 'unservedVersionRemoval', severity: 'warning', version: 'v1alpha1', message: 'version v1alpha1 removed' },
    ]);
  });

  it('fails a retirement of a version still served: its clients get 404, storedVersions or not', () => {
    expect(findings(cache({}), ['v1'])).toEqual([
      expect.objectContaining({ rule: 'versionRemoval', severity: 'error', version: 'v1alpha1' }),
    ]);
  });
});
