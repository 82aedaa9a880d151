import { describe, expect, it } from 'vitest';
import { crdNameProblems, type CrdNames } from './crd-names.ts';

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
    ['a plural ending in -', { plural: 'buckets-' }, 'plural'],
    ['a plural of 64 characters', { plural: 'b'.repeat(64) }, 'plural'],
    ['a plural starting with a digit', { plural: '3buckets' }, 'plural'],
    ['a plural with a dot', { plural: 'buck.ets' }, 'plural'],
    ['an uppercase singular', { singular: 'Bucket' }, 'singular'],
    ['an empty singular', { singular: '' }, 'singular'],
    ['a group without a dot', { group: 'storage' }, 'group'],
    ['a group with an empty part', { group: 'storage..example.com' }, 'group'],
    ['a group of 254 characters', { group: `${'g'.repeat(200)}.${'h'.repeat(53)}` }, 'group'],
    ["Kubernetes' own group", { group: 'storage.k8s.io' }, 'group'],
    [
      'a CRD name over 253 characters',
      { plural: 'b'.repeat(63), group: `${'g'.repeat(100)}.${'h'.repeat(90)}` },
      "CRD's name",
    ],
    ['a kind that is not UpperCamelCase', { kind: 'bucket' }, 'kind'],
    ['a kind of 64 characters', { kind: `B${'b'.repeat(63)}` }, 'kind'],
    ['a kind whose list kind would pass 63 characters', { kind: `B${'b'.repeat(59)}` }, 'list kind'],
    ['a listKind with a dot', { listKind: 'Bucket.List' }, 'listKind'],
    ['a listKind equal to the kind', { listKind: 'Bucket' }, 'listKind'],
    ['a short name with uppercase', { shortNames: ['Bk'] }, 'shortNames'],
    ['a category ending in -', { categories: ['all-'] }, 'categories'],
  ])('refuses %s, naming the field', (_label, change, field) => {
    const problems = crdNameProblems({ ...names, ...change }, ['v1']);
    expect(problems.length).toBeGreaterThan(0);
    // A name too long can make a derived one too long as well (the list kind, the CRD's name); the first is its own.
    expect(problems[0]).toContain(field);
  });

  it.each(['V1', '1', 'v1-', 'v1.0', 'v1_beta', '', 'v'.repeat(64)])('refuses the version name %j', (version) => {
    const problems = crdNameProblems(names, ['v1', version]);
    expect(problems).toEqual([expect.stringContaining(`version name "${version}"`)]);
  });
});
