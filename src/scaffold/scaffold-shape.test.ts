import { describe, expect, it } from 'vitest';
import {
  isVersionName,
  scaffoldShape,
  spokeVersions,
  versionIdentifier,
  versionKey,
  versionVariable,
} from './scaffold-shape.ts';

describe('scaffoldShape', () => {
  it('is one namespaced version, v1, when no flag says otherwise', () => {
    expect(scaffoldShape({})).toEqual({ scope: 'Namespaced', versions: ['v1'], hub: 'v1', storage: 'v1' });
  });

  it('makes the last version the hub, unless --hub names another', () => {
    expect(scaffoldShape({ versions: 'v1alpha1,v1beta1,v1' })).toMatchObject({ hub: 'v1' });
    const shape = scaffoldShape({ versions: 'v1beta1, v1', hub: 'v1beta1', scope: 'Cluster' });
    expect(shape).toEqual({ scope: 'Cluster', versions: ['v1beta1', 'v1'], hub: 'v1beta1', storage: 'v1beta1' });
    expect(spokeVersions(shape as never)).toEqual(['v1']);
  });

  it('stores in the hub, unless --storage names the older version a kind is already stored in', () => {
    expect(scaffoldShape({ versions: 'v1alpha1,v1' })).toMatchObject({ hub: 'v1', storage: 'v1' });
    expect(scaffoldShape({ versions: 'v1alpha1,v1', storage: 'v1alpha1' })).toEqual({
      scope: 'Namespaced',
      versions: ['v1alpha1', 'v1'],
      hub: 'v1',
      storage: 'v1alpha1',
    });
  });

  it.each([
    [{ scope: 'namespaced' }, '--scope "namespaced" must be Namespaced or Cluster'],
    [{ versions: 'v1,V2' }, '"V2" is not a version name'],
    [{ versions: 'v1,,v2' }, '"" is not a version name'],
    [{ versions: '1v' }, '"1v" is not a version name'],
    [{ versions: 'v1,v1' }, '--versions names v1 more than once'],
    [{ versions: 'v1beta1,v1', hub: 'v2' }, '--hub "v2" is not one of the versions (v1beta1, v1)'],
    [{ versions: 'v1beta1,v1', storage: 'v1alpha1' }, '--storage "v1alpha1" is not one of the versions (v1beta1, v1)'],
  ])('refuses %j', (flags, problem) => {
    const shape = scaffoldShape(flags);
    expect('problems' in shape && shape.problems.join('; ')).toContain(problem);
  });
});

describe('isVersionName', () => {
  it('takes what the API server takes for a CRD version: a DNS-1035 label', () => {
    for (const name of ['v1', 'v1beta1', 'v2alpha3', 'v2-preview', 'a'.repeat(63)])
      expect(isVersionName(name), name).toBe(true);
    for (const name of ['', 'V1', '1', 'v1-', '-v1', 'v1.0', 'v1_beta', 'a'.repeat(64)])
      expect(isVersionName(name), name).toBe(false);
  });
});

describe('version names in the generated code', () => {
  it('turn into identifiers, and into object keys quoted only when they must be', () => {
    expect([versionIdentifier('v1beta1'), versionIdentifier('v2-preview')]).toEqual(['V1beta1', 'V2Preview']);
    expect([versionVariable('v1beta1'), versionVariable('v2-preview')]).toEqual(['v1beta1', 'v2Preview']);
    expect([versionKey('v1beta1'), versionKey('v2-preview')]).toEqual(['v1beta1', "'v2-preview'"]);
  });
});
