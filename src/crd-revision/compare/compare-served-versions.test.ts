import { describe, expect, it } from 'vitest';
import { compareCrdRevisions } from './compare-crd-revisions.ts';
import { widgetCrd } from '../crd-revision.fixture.ts';

// crdify's served-version check: the new revision's served versions compared with each other, older against newer,
// less what the old revision's served versions already differed in. (compare-crd-revisions.test.ts has a row per
// rule; here, which versions are paired and which differences count.)
const freshCrd = (): any => widgetCrd();
const specOf = (crd: any, name: string) =>
  crd.spec.versions.find((v: any) => v.name === name).schema.openAPIV3Schema.properties.spec;
const served = (crd: any, now: any) =>
  compareCrdRevisions(crd, now).filter((finding) => finding.comparedWith !== undefined);
const summary = (findings: ReturnType<typeof served>) =>
  findings.map(({ rule, comparedWith, version, difference, path }) => ({
    rule,
    pair: `${comparedWith} → ${version}`,
    difference,
    path,
  }));

describe('compareServedVersions', () => {
  it('reports a difference the old revision already had no more', () => {
    const old = freshCrd();
    delete specOf(old, 'v1').properties.endpoint;
    const now = freshCrd();
    delete specOf(now, 'v1').properties.endpoint;
    expect(served(old, now)).toEqual([]);
    // The same difference, new in this revision, is reported.
    expect(summary(served(freshCrd(), now))).toEqual([
      {
        rule: 'servedVersionDifferenceConverted',
        pair: 'v1beta1 → v1',
        difference: 'existingFieldRemoval',
        path: 'spec.endpoint',
      },
    ]);
  });

  it('pairs versions by age, whatever their order in the CRD', () => {
    const now = freshCrd();
    now.spec.versions.reverse();
    specOf(now, 'v1beta1').properties.size.maximum = 20;
    expect(summary(served(freshCrd(), now))).toEqual([
      { rule: 'servedVersionDifferenceConverted', pair: 'v1beta1 → v1', difference: 'maximum', path: 'spec.size' },
    ]);
    expect(served(freshCrd(), now)[0]).toMatchObject({ old: 20, new: 10 });
  });

  it('pairs every older served version with every newer one, and leaves unserved versions out', () => {
    const withAlpha = () => {
      const crd = freshCrd();
      crd.spec.versions.unshift({ ...structuredClone(crd.spec.versions[0]), name: 'v1alpha1' });
      return crd;
    };
    const now = withAlpha();
    specOf(now, 'v1').properties.mode.enum = ['safe'];
    expect(summary(served(withAlpha(), now)).map(({ pair, difference }) => `${pair} ${difference}`)).toEqual([
      'v1alpha1 → v1 enum',
      'v1beta1 → v1 enum',
    ]);
    for (const version of ['v1alpha1', 'v1beta1'])
      now.spec.versions.find((v: any) => v.name === version).served = false;
    expect(served(withAlpha(), now)).toEqual([]);
  });

  it('is an error where conversion is None: the versions are relabelled, not converted', () => {
    const [old, now] = [freshCrd(), freshCrd()];
    old.spec.conversion = now.spec.conversion = { strategy: 'None' };
    specOf(now, 'v1').properties.name.pattern = '^[a-z]{3,}$';
    expect(served(old, now).map(({ rule, severity, difference }) => ({ rule, severity, difference }))).toEqual([
      { rule: 'servedVersionDifference', severity: 'error', difference: 'pattern' },
    ]);
  });

  it('takes no description for a difference between versions', () => {
    const now = freshCrd();
    specOf(now, 'v1').properties.size.description = 'How big, in v1.';
    expect(compareCrdRevisions(freshCrd(), now).map(({ rule }) => rule)).toEqual(['description']);
  });

  it('names the field only the newer version has, and says which write prunes it', () => {
    const now = freshCrd();
    specOf(now, 'v1').properties.color = { type: 'string' };
    const [finding] = served(freshCrd(), now);
    expect(finding).toMatchObject({
      version: 'v1',
      comparedWith: 'v1beta1',
      path: 'spec.color',
      new: { type: 'string' },
    });
    expect(finding).not.toHaveProperty('old');
    expect(finding!.message).toContain('v1beta1');
  });
});
