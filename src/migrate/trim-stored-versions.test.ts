import { describe, expect, it } from 'vitest';
import { readStorageFacts } from './custom-resource-definition.ts';
import { crdChangedSince } from './trim-stored-versions.ts';

const crd = ({ generation = 2, storage = 'v1', storedVersions = ['v1beta1', 'v1'] } = {}) => ({
  metadata: { name: 'geodatabases.geo.example.com', generation, resourceVersion: '10' },
  spec: {
    group: 'geo.example.com',
    scope: 'Namespaced',
    names: { plural: 'geodatabases' },
    versions: ['v1beta1', 'v1', 'v2'].map((name) => ({ name, served: true, storage: name === storage })),
  },
  status: { storedVersions },
});
const atStart = readStorageFacts(crd());

describe('crdChangedSince: the CRD read before the trim against the one the run started with', () => {
  it('lets the trim go on at the same generation and storage version (storedVersions may have moved)', () => {
    expect(crdChangedSince(atStart, crd({ storedVersions: ['v1beta1', 'v1', 'v2'] }))).toBeUndefined();
  });

  it('is crd-changed on a new generation, leaving storedVersions as the CRD now holds it', () => {
    const changed = crdChangedSince(atStart, crd({ generation: 3, storedVersions: ['v1beta1', 'v1', 'v2'] }));
    expect(changed).toMatchObject({ outcome: 'crd-changed', storedVersionsAfter: ['v1beta1', 'v1', 'v2'] });
    expect(changed?.problem).toContain('generation 2 -> 3');
  });

  it('is crd-changed on a new storage version, even at the same generation', () => {
    const changed = crdChangedSince(atStart, crd({ storage: 'v2' }));
    expect(changed).toMatchObject({ outcome: 'crd-changed', storedVersionsAfter: ['v1beta1', 'v1'] });
    expect(changed?.problem).toContain('storage version v1 -> v2');
  });

  it('is crd-changed when the CRD can no longer be read, keeping storedVersions as the run began with', () => {
    const broken = { ...crd(), spec: { ...crd().spec, versions: [] } };
    const changed = crdChangedSince(atStart, broken);
    expect(changed).toMatchObject({ outcome: 'crd-changed', storedVersionsAfter: ['v1beta1', 'v1'] });
  });
});
