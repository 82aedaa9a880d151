import { describe, expect, it } from 'vitest';
import { StorageRulesTally } from './storage-rules.ts';

const cause = (field: string) => ({ field, message: `Invalid value: 1: ${field} is wrong` });

describe('StorageRulesTally', () => {
  it('counts every object judged and every one that breaks the rules, in the order given', () => {
    const tally = new StorageRulesTally();
    tally.add({ namespace: 'maps', name: 'a' }, { causes: [] });
    tally.add({ namespace: 'maps', name: 'b' }, { causes: [cause('spec.size')] });
    tally.add({ name: 'cluster-wide' }, { causes: [cause('spec')] });
    expect(tally.report()).toEqual({
      checked: true,
      judged: 3,
      breaking: 2,
      objects: [
        { namespace: 'maps', name: 'b', causes: [cause('spec.size')], moreCauses: 0 },
        { name: 'cluster-wide', causes: [cause('spec')], moreCauses: 0 },
      ],
    });
  });

  it('keeps the first 20 objects and their first 3 causes, and counts the rest, so a million objects hold a few lines', () => {
    const tally = new StorageRulesTally();
    const causes = ['spec.a', 'spec.b', 'spec.c', 'spec.d', 'spec.e'].map(cause);
    for (let i = 0; i < 1_000; i++) tally.add({ namespace: 'maps', name: `db-${i}` }, { causes });
    const report = tally.report();
    expect(report).toMatchObject({ checked: true, judged: 1_000, breaking: 1_000 });
    expect(report.objects.map((object) => object.name)).toEqual(Array.from({ length: 20 }, (_, i) => `db-${i}`));
    expect(report.objects[0]).toEqual({
      namespace: 'maps',
      name: 'db-0',
      causes: [cause('spec.a'), cause('spec.b'), cause('spec.c')],
      moreCauses: 2,
    });
  });

  it('says the rules were not checked, and why, when told at the start', () => {
    const tally = new StorageRulesTally('the engine is not there');
    expect(tally.judging).toBe(false);
    tally.add({ name: 'a' }, { causes: [cause('spec')] });
    expect(tally.report()).toEqual({
      checked: false,
      notChecked: 'the engine is not there',
      judged: 0,
      breaking: 0,
      objects: [],
    });
  });

  it('stops judging at the first object that cannot be judged, keeping what came before and naming it', () => {
    const tally = new StorageRulesTally();
    tally.add({ namespace: 'maps', name: 'a' }, { causes: [cause('spec.size')] });
    tally.add({ namespace: 'maps', name: 'b' }, { notJudged: 'the API server engine failed on the object' });
    expect(tally.judging).toBe(false);
    tally.add({ namespace: 'maps', name: 'c' }, { causes: [cause('spec.size')] });
    const report = tally.report();
    expect(report).toMatchObject({ checked: false, judged: 1, breaking: 1, objects: [{ name: 'a' }] });
    expect(report.checked === false && report.notChecked).toBe(
      'the judging stopped at maps/b, after 1 objects: the API server engine failed on the object',
    );
  });
});
