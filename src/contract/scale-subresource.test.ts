import { describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../admission/scalable-geodatabase.fixture.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { type ContractDefinition, type VersionDefinition } from './contract-definition.ts';
import { defineContract } from './define-contract.ts';
import { fieldClassifier } from './fsa/field-classifier.ts';
import { whenDifferent } from './fsa/comparisons.ts';
import { readInteger } from './fsa/value-readers.ts';
import { createContractRegistry } from './registry.ts';
import {
  hubHasScale,
  scaleSubresourceProblems,
  scaleSubresourceWarnings,
  specReplicasSteps,
} from './scale-subresource.ts';

const scaleAt = (specReplicasPath: string) => ({
  scale: { specReplicasPath, statusReplicasPath: '.status.readyReplicas' },
});

/** GeoDatabase with these subresources per version (status kept). */
function geoWith(subresources: Record<string, object>, changes: Partial<ContractDefinition> = {}): ContractDefinition {
  const { storageVersion: _derived, ...base } = geoDatabaseContract();
  const versions = base.versions.map((v): VersionDefinition => ({
    ...v,
    subresources: { ...v.subresources, ...subresources[v.name] },
  }));
  return { ...base, versions, ...changes };
}

describe('specReplicasSteps', () => {
  it('reads a JSON path of field names under .spec', () => {
    expect(specReplicasSteps('.spec.replicas')).toEqual(['spec', 'replicas']);
    expect(specReplicasSteps('.spec.scaling.count')).toEqual(['spec', 'scaling', 'count']);
  });

  it.each(['spec.replicas', '.status.replicas', '.spec', '.spec.items[0]', ".spec['a.b']", '.spec..replicas'])(
    'refuses %s',
    (path) => {
      expect(specReplicasSteps(path)).toBeUndefined();
    },
  );
});

describe('the scale subresource at contract load', () => {
  it('is a problem when its specReplicasPath is not a path under .spec, naming the version', () => {
    expect(scaleSubresourceProblems(geoWith({ v1: scaleAt('.status.readyReplicas') }))).toEqual([
      'version v1\'s scale subresource: specReplicasPath ".status.readyReplicas" must be a JSON path of field names under .spec, like .spec.replicas',
    ]);
    expect(() => defineContract(geoWith({ v1beta1: scaleAt('replicas') }))).toThrow(
      /version v1beta1's scale subresource: specReplicasPath "replicas"/,
    );
  });

  it('needs no warning when a classifier of the machine reads the replicas field', () => {
    expect(scaleSubresourceWarnings(scalableGeoDatabaseContract())).toEqual([]);
    expect(createContractRegistry([scalableGeoDatabaseContract()]).contracts[0]!.warnings).toEqual([]);
    expect(hubHasScale(scalableGeoDatabaseContract())).toBe(true);
    expect(hubHasScale(geoDatabaseContract())).toBe(false);
  });

  it('warns when no classifier reads the field the scale subresource writes', () => {
    const contract = defineContract(geoWith({ v1: scaleAt('.spec.storage.replicas') }));
    const warning =
      'the scale subresource of the hub v1 writes spec.storage.replicas, which no classifier of the FSA reads: kubectl scale, like any other change of spec.storage.replicas, is allowed in every state (add a classifier for it)';
    expect(scaleSubresourceWarnings(contract)).toEqual([warning]);
    // The server, `crdgate manifests` and `crdgate fsa` print the registry's warnings.
    expect(createContractRegistry([contract]).contracts[0]!.warnings).toEqual([warning]);
  });

  it('says so when the machine judges such a field as a change no change kind names', () => {
    const machine = geoDatabaseContract().transitions!;
    const contract = defineContract(
      geoWith(
        { v1: scaleAt('.spec.storage.replicas') },
        { transitions: { ...machine, unclassifiedChanges: 'refused-unless-overridden' } },
      ),
    );
    expect(scaleSubresourceWarnings(contract)).toEqual([
      'the scale subresource of the hub v1 writes spec.storage.replicas, which no classifier of the FSA reads: kubectl scale, like any other change of spec.storage.replicas, is judged only as a change no change kind names (unclassifiedChanges) (add a classifier for it)',
    ]);
  });

  it('asks the classifiers themselves, so one written as a function counts', () => {
    const machine = geoDatabaseContract().transitions!;
    const reads = fieldClassifier({ path: 'storage.replicas', read: readInteger, compare: whenDifferent('scale') });
    const byHand = { kinds: reads.kinds, classify: reads.classify };
    const contract = geoWith(
      { v1: scaleAt('.spec.storage.replicas') },
      { transitions: { ...machine, classifiers: [...machine.classifiers, byHand] } },
    );
    expect(scaleSubresourceWarnings(contract)).toEqual([]);
  });

  it('needs no warning without a machine: there is no state for a scale to get around', () => {
    expect(
      scaleSubresourceWarnings(geoWith({ v1: scaleAt('.spec.storage.replicas') }, { transitions: undefined })),
    ).toEqual([]);
  });

  it('warns when a version other than the hub has a scale subresource and the hub has none', () => {
    expect(scaleSubresourceWarnings(geoWith({ v1beta1: scaleAt('.spec.replicas') }))).toEqual([
      'version v1beta1 has a scale subresource and the hub v1 has none: crdgate judges /scale of the hub only, so kubectl scale through v1beta1 is not judged (give the hub a scale subresource too)',
    ]);
  });
});
