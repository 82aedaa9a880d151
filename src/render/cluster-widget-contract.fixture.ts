import { type Contract } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';

// The other corner of the contract model from GeoDatabase: cluster-scoped, a single version (so no conversion),
// categories, no listKind (so the default applies) and no status subresource.
export function clusterWidgetContract(): Contract {
  return defineContract({
    identity: {
      group: 'widgets.example.org',
      kind: 'Widget',
      plural: 'widgets',
      singular: 'widget',
      categories: ['all'],
      scope: 'Cluster',
    },
    hub: 'v1',
    versions: [
      { name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object' } } } },
    ],
    conversions: {},
  });
}
