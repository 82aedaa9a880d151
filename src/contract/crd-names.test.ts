import { describe, expect, it } from 'vitest';
import { crdNameProblems, type CrdNames } from './crd-names.ts';

// The field each problem names is the CRD's, as kube-apiserver names it; crd-names.api-server.test.ts holds every
// answer to the API server engine's (kube-apiserver's own validation).

const names: CrdNames = { group: 'storage.example.com', kind: 'Bucket', plural: 'buckets', singular: 'bucket' };

describe('crdNameProblems', () => {
  it('accepts what kube-apiserver accepts', () => {
    expect(crdNameProblems(names, ['v1', 'v1beta1', 'v2-preview'])).toEqual([]);
    const long = { ...names, plural: 'b'.repeat(63), singular: 's'.repeat(63), kind: `K${'k'.repeat(58)}` };
    expect(crdNameProblems({ ...long, group: `${'g'.repeat(100)}.${'h'.repeat(88)}` }, ['v1'])).toEqual([]);
    expect(
      crdNameProblems({ ...names, listKind: 'Bucket-Set', shortNames: ['bk'], categories: ['all', 'storage'] }, ['v1']),
    ).toEqual([]);
  });

  it.each([
    [
      'a lowercase kind (Zalando postgres-operator has one)',
      { kind: 'postgresql', plural: 'postgresqls', singular: 'postgresql' },
    ],
    ['a kind with digits', { kind: 'S3Bucket', plural: 's3buckets', singular: 's3bucket' }],
    ['a kind with a dash', { kind: 'my-bucket', plural: 'my-buckets', singular: 'my-bucket' }],
    ['a kind of 63 characters with a short listKind', { kind: `B${'b'.repeat(62)}`, listKind: 'BucketList' }],
    ['a lowercase listKind', { listKind: 'bucket-list' }],
    ['a short name twice', { shortNames: ['bk', 'bk'] }],
    ['an empty singular and listKind, which the API server defaults', { singular: '', listKind: '' }],
  ])('accepts %s, as kube-apiserver does', (_label, change) => {
    expect(crdNameProblems({ ...names, ...change }, ['v1'])).toEqual([]);
  });

  it.each([
    ['a plural ending in -', { plural: 'buckets-' }, 'spec.names.plural'],
    ['a plural of 64 characters', { plural: 'b'.repeat(64) }, 'spec.names.plural'],
    ['a plural starting with a digit', { plural: '3buckets' }, 'spec.names.plural'],
    ['a plural with a dot', { plural: 'buck.ets' }, 'spec.names.plural'],
    ['an uppercase singular', { singular: 'Bucket' }, 'spec.names.singular'],
    ['a group without a dot', { group: 'storage' }, 'spec.group'],
    ['a group with an empty part', { group: 'storage..example.com' }, 'spec.group'],
    ['a group of 254 characters', { group: `${'g'.repeat(200)}.${'h'.repeat(53)}` }, 'spec.group'],
    ["Kubernetes' own group", { group: 'storage.k8s.io' }, 'metadata.annotations[api-approved.kubernetes.io]'],
    [
      'a CRD name over 253 characters',
      { plural: 'b'.repeat(63), group: `${'g'.repeat(100)}.${'h'.repeat(90)}` },
      'metadata.name',
    ],
    ['a kind with an underscore', { kind: 'Bucket_Set' }, 'spec.names.kind'],
    ['a kind starting with a digit', { kind: '3Bucket' }, 'spec.names.kind'],
    ['a kind of 64 characters', { kind: `B${'b'.repeat(63)}` }, 'spec.names.kind'],
    ['a kind whose list kind would pass 63 characters', { kind: `B${'b'.repeat(59)}` }, 'spec.names.listKind'],
    ['a listKind with a dot', { listKind: 'Bucket.List' }, 'spec.names.listKind'],
    ['a listKind equal to the kind', { listKind: 'Bucket' }, 'spec.names.listKind'],
    ['a short name with uppercase', { shortNames: ['bk', 'Bk'] }, 'spec.names.shortNames[1]'],
    ['a category ending in -', { categories: ['all-'] }, 'spec.names.categories[0]'],
  ])('refuses %s, naming the field', (_label, change, field) => {
    const problems = crdNameProblems({ ...names, ...change }, ['v1']);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.some((problem) => problem.includes(`${field}: `))).toBe(true);
  });

  it.each(['V1', '1', 'v1-', 'v1.0', 'v1_beta', '', 'v'.repeat(64)])('refuses the version name %j', (version) => {
    const problems = crdNameProblems(names, ['v1', version]);
    expect(problems).toEqual([expect.stringMatching(/^spec\.versions\[1\]\.name: Invalid value: /)]);
  });
});
