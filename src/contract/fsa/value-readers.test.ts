import { describe, expect, it } from 'vitest';
import { compareQuantities } from '../quantity.ts';
import { readInteger, readQuantity, readString } from './value-readers.ts';

describe('value readers', () => {
  it('read integers only', () => {
    expect(readInteger(3)).toBe(3);
    expect([1.5, '3', Number.NaN, 2 ** 60, null].map(readInteger)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('read strings only', () => {
    expect(readString('ssd')).toBe('ssd');
    expect(readString(1)).toBeUndefined();
  });

  it('read quantities exactly', () => {
    expect(compareQuantities(readQuantity('2Gi')!, readQuantity('2048Mi')!)).toBe(0);
    expect([readQuantity('lots'), readQuantity(2)]).toEqual([undefined, undefined]);
  });
});
