import { describe, expect, it } from 'vitest';
import { byDirection, byReleaseStep, whenDifferent } from './comparisons.ts';

describe('whenDifferent', () => {
  const storageClass = whenDifferent<'class', string>('class');

  it('reports setting, changing and removing a value', () => {
    expect(storageClass.classify(undefined, 'ssd')).toBe('class');
    expect(storageClass.classify('ssd', 'hdd')).toBe('class');
    expect(storageClass.classify('ssd', undefined)).toBe('class');
  });

  it('reports nothing for equal or absent values', () => {
    expect(storageClass.classify('ssd', 'ssd')).toBeUndefined();
    expect(storageClass.classify(undefined, undefined)).toBeUndefined();
  });

  it('uses the given equality', () => {
    const caseBlind = whenDifferent<'class', string>('class', (a, b) => a.toLowerCase() === b.toLowerCase());
    expect(caseBlind.classify('SSD', 'ssd')).toBeUndefined();
  });
});

describe('byDirection', () => {
  const size = byDirection<'grow' | 'shrink', number>({
    compare: (a, b) => a - b,
    increase: 'grow',
    decrease: 'shrink',
  });

  it('tells growing from shrinking', () => {
    expect(size.classify(10, 20)).toBe('grow');
    expect(size.classify(20, 10)).toBe('shrink');
    expect(size.classify(20, 20)).toBeUndefined();
    expect(size.kinds).toEqual(['grow', 'shrink']);
  });

  it('leaves a value that appears or disappears to schema validation', () => {
    expect(size.classify(undefined, 20)).toBeUndefined();
    expect(size.classify(20, undefined)).toBeUndefined();
  });

  it('lists a kind once when both directions share it', () => {
    expect(
      byDirection({ compare: (a: number, b: number) => a - b, increase: 'scale', decrease: 'scale' }).kinds,
    ).toEqual(['scale']);
  });
});

describe('byReleaseStep', () => {
  const numerically = (a: readonly number[], b: readonly number[]) => {
    for (let i = 0; i < Math.max(a.length, b.length); i++)
      if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const release = byReleaseStep({ compare: numerically, upgrade: 'minor', major: 'major', downgrade: 'down' });

  it.each([
    [[16, 4], [16, 6], 'minor'],
    [[16, 9], [16, 10], 'minor'],
    [[3, 4, 2], [3, 5, 0], 'minor'],
    [[16, 4], [17, 0], 'major'],
    [[16, 6], [16, 4], 'down'],
    [[17, 0], [16, 9], 'down'],
    [[16, 4], [16, 4, 0], undefined],
  ])('classifies %j -> %j as %s', (from, to, kind) => {
    expect(release.classify(from, to)).toBe(kind);
  });

  it('leaves an absent side alone', () => {
    expect(release.classify(undefined, [16, 4])).toBeUndefined();
  });
});
