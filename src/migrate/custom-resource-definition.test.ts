import { describe, expect, it } from 'vitest';
import { CrdShapeError, readStorageFacts, storedVersionsTrimmed } from './custom-resource-definition.ts';

const crd = (versions: object[], storedVersions: string[], scope = 'Namespaced') => ({
  metadata: { name: 'geodatabases.geo.example.com', generation: 3, resourceVersion: '42' },
  spec: { group: 'geo.example.com', scope, names: { plural: 'geodatabases' }, versions },
  status: { storedVersions },
});

describe('readStorageFacts', () => {
  it('reads the storage version, the served versions and storedVersions', () => {
    const facts = readStorageFacts(
      crd(
        [
          { name: 'v1alpha1', served: false, storage: false },
          { name: 'v1beta1', served: true, storage: false },
          { name: 'v1', served: true, storage: true },
        ],
        ['v1beta1', 'v1'],
      ),
    );
    expect(facts).toMatchObject({
      group: 'geo.example.com',
      plural: 'geodatabases',
      namespaced: true,
      storageVersion: 'v1',
      storedVersions: ['v1beta1', 'v1'],
      generation: 3,
    });
    expect([...facts.servedApiVersions]).toEqual(['geo.example.com/v1beta1', 'geo.example.com/v1']);
    expect(storedVersionsTrimmed(facts)).toBe(false);
    expect(storedVersionsTrimmed({ ...facts, storedVersions: ['v1'] })).toBe(true);
    expect(readStorageFacts(crd([{ name: 'v1', served: true, storage: true }], ['v1'], 'Cluster')).namespaced).toBe(
      false,
    );
  });

  it('tells whether the storage version has a status subresource', () => {
    const versions = (subresources?: object) => [
      { name: 'v1beta1', served: true, subresources: { status: {} } },
      { name: 'v1', served: true, storage: true, ...(subresources ? { subresources } : {}) },
    ];
    expect(readStorageFacts(crd(versions({ status: {} }), ['v1'])).storageHasStatus).toBe(true);
    expect(readStorageFacts(crd(versions({ scale: {} }), ['v1'])).storageHasStatus).toBe(false);
    expect(readStorageFacts(crd(versions(), ['v1'])).storageHasStatus).toBe(false);
  });

  it('refuses a CRD without exactly one storage version', () => {
    expect(() => readStorageFacts(crd([{ name: 'v1', served: true }], []))).toThrow(CrdShapeError);
    expect(() => readStorageFacts({})).toThrow(CrdShapeError);
  });
});
