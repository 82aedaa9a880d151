import { type Contract, type VersionDefinition } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';

// The built-in GeoDatabase with a scale subresource on its read replicas, in v1 (the hub: spec.readReplicas) and
// v1beta1 (spec.replicas), so that `kubectl scale` reaches the FSA's `scale` change: allowed in
// Ready, refused in Upgrading, pushed through by the override, warned about when it goes down. The built-in
// example itself has no scale subresource, so its manifests carry no RBAC for reads.

const scaleAt = (specReplicasPath: string) => ({ specReplicasPath, statusReplicasPath: '.status.readyReplicas' });

export function scalableGeoDatabaseContract(): Contract {
  const base = geoDatabaseContract();
  const withScale = (version: VersionDefinition): VersionDefinition => {
    if (version.name === 'v1')
      return { ...version, subresources: { ...version.subresources, scale: scaleAt('.spec.readReplicas') } };
    if (version.name === 'v1beta1')
      return { ...version, subresources: { ...version.subresources, scale: scaleAt('.spec.replicas') } };
    return version;
  };
  const { storageVersion: _derived, ...definition } = base;
  return defineContract({ ...definition, versions: base.versions.map(withScale) });
}

/** As a `--contract` module (`crdgate serve --contract src/admission/scalable-geodatabase.fixture.ts`). */
export default scalableGeoDatabaseContract;
