import { type Contract } from '../../../src/contract/contract-definition.ts';
import { defineContract } from '../../../src/contract/define-contract.ts';

// The kind the Helm install test installs, upgrades and uninstalls: a group of its own, so the chart's CRD is never
// another e2e file's, first with one version, then with a second one served beside it.
const identity = {
  group: 'gadgets.helm.example',
  kind: 'Gadget',
  plural: 'gadgets',
  singular: 'gadget',
  scope: 'Namespaced',
} as const;
const schema = {
  type: 'object',
  properties: {
    spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 }, colour: { type: 'string' } } },
  },
} as const;

export function gadgetContract(): Contract {
  return defineContract({
    identity,
    hub: 'v1',
    versions: [{ name: 'v1', served: true, storage: true, schema }],
    conversions: {},
  });
}

/** v2 served beside v1, which stays the hub and the storage version: the same fields, only the apiVersion differs. */
export function gadgetTwoVersionContract(): Contract {
  const renamed = (version: string) => (object: { apiVersion: string }) => ({
    ...object,
    apiVersion: `${identity.group}/${version}`,
  });
  return defineContract({
    identity,
    hub: 'v1',
    versions: [
      { name: 'v1', served: true, storage: true, schema },
      { name: 'v2', served: true, storage: false, schema },
    ],
    conversions: { v2: { toHub: renamed('v1'), fromHub: renamed('v2') } as never },
  });
}
