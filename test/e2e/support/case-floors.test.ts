import { describe, expect, it } from 'vitest';
import { countsUnderFloors } from './case-floors.ts';

describe('countsUnderFloors', () => {
  it('names each count under its floor, a missing count as 0', () => {
    expect(countsUnderFloors({ cases: 401, 'wrong type': 40 }, { cases: 400, 'wrong type': 41, null: 1 })).toEqual([
      'wrong type: 40, under its floor of 41',
      'null: 0, under its floor of 1',
    ]);
  });

  it('passes counts at or over their floors, and counts with no floor', () => {
    expect(countsUnderFloors({ cases: 400, extra: 0 }, { cases: 400 })).toEqual([]);
  });
});
