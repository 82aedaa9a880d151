import { describe, expect, it } from 'vitest';
import { ContractDefinitionError, defineContract, type ContractDefinition } from './define-contract.ts';

const schema = { type: 'object' } as const;
const bucket: ContractDefinition = {
  identity: { group: 'storage.example.com', kind: 'Bucket', plural: 'buckets', singular: 'bucket', scope: 'Namespaced' },
  versions: [{ name: 'v1', served: true, storage: true, schema }],
  hub: 'v1',
  conversions: {},
};

function problemOf(definition: ContractDefinition): string {
  try {
    defineContract(definition);
  } catch (error) {
    expect(error).toBeInstanceOf(ContractDefinitionError);
    return (error as Error).message;
  }
  throw new Error('defineContract accepted it');
}

describe('defineContract', () => {
  it('accepts a contract whose names kube-apiserver accepts', () => {
    expect(defineContract(bucket).storageVersion).toBe('v1');
  });

  // Issue 23, defect 3: each of these loaded, and rendered a CRD kube-apiserver refuses.
  it.each([
    ['a plural ending in -', { identity: { ...bucket.identity, plural: 'buckets-' } }, 'plural "buckets-"'],
    ['a singular of 64 characters', { identity: { ...bucket.identity, singular: 'b'.repeat(64) } }, 'singular "'],
    ['a group of 254 characters', { identity: { ...bucket.identity, group: `${'g'.repeat(250)}.com` } }, 'group "'],
    ['a version name that is no DNS-1035 label', { versions: [{ ...bucket.versions[0]!, name: 'V1' }], hub: 'V1' }, 'version name "V1"'],
    ['a short name with a dot', { identity: { ...bucket.identity, shortNames: ['b.k'] } }, 'shortNames entry "b.k"'],
  ])('refuses %s, naming it', (_label, change, named) => {
    expect(problemOf({ ...bucket, ...change })).toContain(named);
  });
});
