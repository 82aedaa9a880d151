import { describe, expect, it } from 'vitest';
import { compareQuantities, parseQuantity, type Quantity } from '../values/quantity.ts';
import { isCannotRead, readInteger, readQuantity, readRelease, readString, type CannotRead } from './value-readers.ts';

const reason = (reading: unknown) => (isCannotRead(reading) ? reading.reason : `read as ${String(reading)}`);
const quantity = (raw: unknown) => readQuantity(raw) as Quantity;

describe('value readers', () => {
  it('read integers, and fail closed on those past 2^53', () => {
    expect([3, -3, 0, 2 ** 53 - 1].map(readInteger)).toEqual([3, -3, 0, 2 ** 53 - 1]);
    expect(reason(readInteger(2 ** 53))).toBe('9007199254740992 is past 2^53, which crdgate cannot hold exactly');
    expect(isCannotRead(readInteger(-(2 ** 63)))).toBe(true);
    expect([1.5, '3', Number.NaN, Infinity, null, true].map(readInteger)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('read strings, the empty one included', () => {
    expect(['ssd', ''].map(readString)).toEqual(['ssd', '']);
    expect([1, null, false].map(readString)).toEqual([undefined, undefined, undefined]);
  });

  it('read quantities exactly, as strings and as integers', () => {
    expect(compareQuantities(quantity('2Gi'), quantity('2048Mi'))).toBe(0);
    expect(compareQuantities(quantity(1024), quantity('1Ki'))).toBe(0);
    expect(compareQuantities(quantity(1024), quantity('500Gi'))).toBe(-1);
    expect(compareQuantities(quantity(-5), quantity('-5000m'))).toBe(0);
    expect(compareQuantities(quantity(2 ** 53 - 1), quantity('9007199254740991'))).toBe(0);
  });

  it('read an integer as a quantity of its own, never the one a string of the same digits reads as', () => {
    expect(quantity(1024)).not.toBe(parseQuantity('1024'));
  });

  it('fail closed on a string that is no quantity, and on an integer past 2^53', () => {
    expect(['lots', '', '50GB', '1e2.5', ' 1'].map((raw) => reason(readQuantity(raw)))).toEqual([
      '"lots" is not a Kubernetes quantity',
      '"" is not a Kubernetes quantity',
      '"50GB" is not a Kubernetes quantity',
      '"1e2.5" is not a Kubernetes quantity',
      '" 1" is not a Kubernetes quantity',
    ]);
    expect(isCannotRead(readQuantity(2 ** 60))).toBe(true);
  });

  it('leave to the schema what no quantity field holds', () => {
    expect([1.5, null, true, [], {}].map(readQuantity)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('read releases, and fail closed on a string that is none', () => {
    expect(readRelease('16.10')).toEqual([16, 10]);
    expect((readRelease('v16') as CannotRead).reason).toBe('"v16" is not a release number such as 16.4');
    expect(isCannotRead(readRelease(''))).toBe(true);
    expect([16, null].map(readRelease)).toEqual([undefined, undefined]);
  });
});
