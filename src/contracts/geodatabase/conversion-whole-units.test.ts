import { describe, expect, it } from 'vitest';
import {
  formatWholeUnits,
  gibibyte,
  mebibyte,
  spelledAsWholeUnits,
  wholeUnitsRoundedUp,
} from './conversion-whole-units.ts';

describe('wholeUnitsRoundedUp', () => {
  it.each([
    ['50Gi', 50],
    ['51200Mi', 50],
    ['1.5Gi', 2],
    ['1073741824', 1],
    ['1073741825', 2],
    ['1e9', 1],
    ['500M', 1],
    ['1Ti', 1024],
    ['0', 0],
    ['1', 1],
    ['100m', 1],
    ['8Ei', 2 ** 33],
  ])('shows %s as %i GiB', (size, gib) => {
    expect(wholeUnitsRoundedUp(size, gibibyte)).toBe(gib);
  });

  it('counts MiB the same way', () => {
    expect(wholeUnitsRoundedUp('100M', mebibyte)).toBe(96);
    expect(wholeUnitsRoundedUp('2Gi', mebibyte)).toBe(2048);
  });

  it.each([['abc'], ['-1Gi'], [''], ['1e100'], [5], [null], [undefined]])('has no count for %j', (value) => {
    expect(wholeUnitsRoundedUp(value, gibibyte)).toBeUndefined();
  });

  it('has a count up to the largest exact JSON integer', () => {
    expect(wholeUnitsRoundedUp(`${Number.MAX_SAFE_INTEGER}Gi`, gibibyte)).toBe(Number.MAX_SAFE_INTEGER);
    expect(wholeUnitsRoundedUp(`${Number.MAX_SAFE_INTEGER + 1}Gi`, gibibyte)).toBeUndefined();
  });
});

describe('formatWholeUnits', () => {
  it('spells a count canonically', () => {
    expect(formatWholeUnits(50, gibibyte)).toBe('50Gi');
    expect(formatWholeUnits(1024, gibibyte)).toBe('1Ti');
    expect(formatWholeUnits(1536, mebibyte)).toBe('1536Mi');
    expect(formatWholeUnits(0, gibibyte)).toBe('0');
  });
});

describe('spelledAsWholeUnits', () => {
  it('is true only for the canonical spelling of the count', () => {
    expect(spelledAsWholeUnits('50Gi', 50, gibibyte)).toBe(true);
    expect(spelledAsWholeUnits('51200Mi', 50, gibibyte)).toBe(false);
    expect(spelledAsWholeUnits('1024Gi', 1024, gibibyte)).toBe(false);
    expect(spelledAsWholeUnits('50Gi', undefined, gibibyte)).toBe(false);
  });
});
