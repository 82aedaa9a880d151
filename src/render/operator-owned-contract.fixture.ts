import { type Contract } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { renderCustomResourceDefinition } from './custom-resource-definition.ts';
import { webhookEndpointFor } from './manifest-files.ts';
import { manifestDefaults } from './manifest-options.ts';

// A contract whose CRD an operator's chart installs: GeoDatabase's three versions, with no conversion of crdgate's.
export function operatorOwnedContract(): Contract {
  const geo = geoDatabaseContract();
  const ownerCrd = renderCustomResourceDefinition(geo, webhookEndpointFor(manifestDefaults)) as unknown as Record<
    string,
    unknown
  >;
  const { conversionAnnotation: _stash, ...rest } = geo;
  return defineContract({ ...rest, conversions: {}, crdOwner: 'external', ownerCrd });
}
