import { type Contract, type SpokeConversion } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';
import { presentFields } from './lossless-fields.ts';
import { specMappingConversion } from './spec-mapping-conversion.ts';

// A contract small enough to read in one go, for the generic converter's tests: v2 is the hub, with spec.size and
// spec.color; the spokes v1 (spec.length) and v0 (spec.len) have no color, which travels in the stash.

export const toyGroup = 'toy.example.com';
export const toyAnnotation = `${toyGroup}/conversion-data`;
export const toyApiVersion = (version: 'v0' | 'v1' | 'v2') => `${toyGroup}/${version}`;

function toySpoke(sizeField: string): SpokeConversion {
  return specMappingConversion({
    mapping: {
      down: (hub) => ({ spec: presentFields({ [sizeField]: hub.size }), lost: presentFields({ color: hub.color }) }),
      up: (spoke, lost) => presentFields({ size: spoke[sizeField], color: lost?.color }),
    },
  });
}

export function toyContract(conversions: Partial<Record<'v0' | 'v1', SpokeConversion>> = {}): Contract {
  const schema = { type: 'object' as const };
  return defineContract({
    identity: { group: toyGroup, kind: 'Toy', plural: 'toys', singular: 'toy', scope: 'Namespaced' },
    hub: 'v2',
    versions: [
      { name: 'v2', served: true, storage: true, schema },
      { name: 'v1', served: true, storage: false, schema },
      { name: 'v0', served: false, storage: false, schema },
    ],
    conversions: { v1: toySpoke('length'), v0: toySpoke('len'), ...conversions },
    conversionAnnotation: toyAnnotation,
  });
}

export function toy(version: 'v0' | 'v1' | 'v2', spec?: Record<string, unknown>) {
  return {
    apiVersion: toyApiVersion(version),
    kind: 'Toy',
    metadata: { name: 'teddy', namespace: 'nursery', uid: 'uid-1', resourceVersion: '7', labels: { a: 'b' } },
    ...(spec === undefined ? {} : { spec }),
    status: { ready: true },
  };
}
