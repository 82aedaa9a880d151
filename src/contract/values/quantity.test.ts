import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addQuantities,
  compareQuantities,
  formatBinaryQuantity,
  isQuantity,
  isWholeNumber,
  maxQuantityLength,
  parseQuantity,
  quantityToBigInt,
  quantityToNumber,
  type Quantity,
} from './quantity.ts';

function parsed(text: string): Quantity {
  const quantity = parseQuantity(text);
  if (!quantity) throw new Error(`expected ${JSON.stringify(text)} to parse`);
  return quantity;
}

/** A rational as numerator / 10^scale, for comparison against hand-computed values. */
const exactly = (numerator: bigint, scale = 0) => ({ numerator, scale });

describe('parseQuantity', () => {
  it.each([
    ['0', exactly(0n)],
    ['-0', exactly(0n)],
    ['1', exactly(1n)],
    ['+12', exactly(12n)],
    ['-12', exactly(-12n)],
    ['007', exactly(7n)],
    ['0.1', exactly(1n, 1)],
    ['1.50', exactly(15n, 1)],
    ['.5', exactly(5n, 1)],
    ['1.', exactly(1n)],
    ['1.G', exactly(1_000_000_000n)],
    ['1n', exactly(1n, 9)],
    ['1u', exactly(1n, 6)],
    ['1m', exactly(1n, 3)],
    ['500m', exactly(5n, 1)],
    ['1k', exactly(1000n)],
    ['1M', exactly(1_000_000n)],
    ['1G', exactly(10n ** 9n)],
    ['1T', exactly(10n ** 12n)],
    ['1P', exactly(10n ** 15n)],
    ['1E', exactly(10n ** 18n)],
    ['1Ki', exactly(1024n)],
    ['1Mi', exactly(1024n ** 2n)],
    ['1Gi', exactly(1024n ** 3n)],
    ['1Ti', exactly(1024n ** 4n)],
    ['1Pi', exactly(1024n ** 5n)],
    ['1Ei', exactly(1024n ** 6n)],
    ['1.5Gi', exactly(1536n * 1024n ** 2n)],
    ['0.1Ki', exactly(1024n, 1)],
    ['1e3', exactly(1000n)],
    ['1E3', exactly(1000n)],
    ['1e+3', exactly(1000n)],
    ['1.5e-3', exactly(15n, 4)],
    ['12e0', exactly(12n)],
    ['-2.5e2', exactly(-250n)],
  ])('parses %j exactly', (text, expected) => {
    expect(parseQuantity(text)).toEqual(expected);
    expect(isQuantity(text)).toBe(true);
  });

  it.each([
    '',
    '+',
    '-',
    '.',
    'Gi',
    'm',
    '1.5.5',
    '1GiB',
    '1 Gi',
    ' 1',
    '1 ',
    '1K',
    '1ki',
    '1gi',
    '1e',
    '1e-',
    '1e1.5',
    '1Ee3',
    '.5i',
    '0.1mi',
    '1+1',
    'aoeu',
    '1e1001',
    '1e-1001',
    '1'.repeat(maxQuantityLength + 1),
  ])('rejects %j', (text) => {
    expect(parseQuantity(text)).toBeUndefined();
    expect(isQuantity(text)).toBe(false);
  });

  it('accepts the longest allowed text and the extreme exponents', () => {
    expect(isQuantity('1'.repeat(maxQuantityLength))).toBe(true);
    expect(parsed('1e1000')).toEqual(exactly(10n ** 1000n));
    expect(parsed('1e-1000')).toEqual(exactly(1n, 1000));
  });
});

describe('parseQuantity, parsed again', () => {
  it('gives the same value, frozen so that sharing it is safe, and stays right past its memo', () => {
    const first = parseQuantity('50Gi');
    expect(parseQuantity('50Gi')).toEqual(first);
    expect(Object.isFrozen(parseQuantity('50Gi'))).toBe(true);
    // Far more spellings than the memo holds: each still parses to its own value.
    for (let i = 0; i < 2_000; i++) expect(parseQuantity(`${i}Mi`)).toEqual({ numerator: BigInt(i) << 20n, scale: 0 });
    expect(parseQuantity('50Gi')).toEqual(first);
    expect(parseQuantity('50Gx')).toBeUndefined();
    expect(isQuantity('50Gx')).toBe(false);
    expect(isQuantity('50Gi')).toBe(true);
  });
});

describe('compareQuantities', () => {
  it.each([
    ['1Gi', '1024Mi', 0],
    ['1.5Gi', '1536Mi', 0],
    ['0.1', '100m', 0],
    ['1G', '1Gi', -1],
    ['1Ki', '1k', 1],
    ['-1', '1m', -1],
    ['1e3', '1k', 0],
    ['64Mi', '0.0625Gi', 0],
    ['1n', '0', 1],
  ] as const)('%s vs %s -> %d', (a, b, expected) => {
    expect(compareQuantities(parsed(a), parsed(b))).toBe(expected);
    expect(compareQuantities(parsed(b), parsed(a))).toBe(expected === 0 ? 0 : -expected);
  });

  const decimal = fc.record({
    units: fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
    scale: fc.integer({ min: 0, max: 12 }),
  });

  /** Writes units / 10^scale as a plain decimal, the way a person would. */
  function decimalText({ units, scale }: { units: bigint; scale: number }): string {
    const digits = (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
    const sign = units < 0n ? '-' : '';
    return scale === 0 ? `${sign}${digits}` : `${sign}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }

  it('agrees with cross-multiplied bigint arithmetic for decimals', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const left = a.units * 10n ** BigInt(b.scale);
        const right = b.units * 10n ** BigInt(a.scale);
        const expected = left < right ? -1 : left > right ? 1 : 0;
        expect(compareQuantities(parsed(decimalText(a)), parsed(decimalText(b)))).toBe(expected);
      }),
    );
  });

  const suffixed = fc.record({
    count: fc.bigInt({ min: -(10n ** 6n), max: 10n ** 6n }),
    suffix: fc.constantFrom(
      ['', 1n],
      ['k', 10n ** 3n],
      ['M', 10n ** 6n],
      ['G', 10n ** 9n],
      ['T', 10n ** 12n],
      ['E', 10n ** 18n],
      ['e2', 100n],
      ['Ki', 1n << 10n],
      ['Mi', 1n << 20n],
      ['Gi', 1n << 30n],
      ['Ei', 1n << 60n],
    ),
  });

  it('agrees with bigint arithmetic for suffixed whole numbers', () => {
    fc.assert(
      fc.property(suffixed, suffixed, (a, b) => {
        const left = a.count * a.suffix[1];
        const right = b.count * b.suffix[1];
        const expected = left < right ? -1 : left > right ? 1 : 0;
        const qa = parsed(`${a.count}${a.suffix[0]}`);
        const qb = parsed(`${b.count}${b.suffix[0]}`);
        expect(compareQuantities(qa, qb)).toBe(expected);
        expect(quantityToBigInt(qa)).toBe(left);
      }),
    );
  });

  it('is consistent with addition', () => {
    fc.assert(
      fc.property(decimal, decimal, (a, b) => {
        const qa = parsed(decimalText(a));
        const sum = addQuantities(qa, parsed(decimalText(b)));
        const expected = b.units > 0n ? 1 : b.units < 0n ? -1 : 0;
        expect(compareQuantities(sum, qa)).toBe(expected);
      }),
    );
  });
});

describe('addQuantities', () => {
  it('adds exactly and normalises', () => {
    expect(addQuantities(parsed('0.1'), parsed('0.2'))).toEqual(parsed('300m'));
    expect(addQuantities(parsed('1.5Gi'), parsed('512Mi'))).toEqual(parsed('2Gi'));
    expect(addQuantities(parsed('500m'), parsed('-0.5'))).toEqual(exactly(0n));
  });
});

describe('whole numbers', () => {
  it('tells whole quantities from fractional ones', () => {
    expect(isWholeNumber(parsed('1m'))).toBe(false);
    expect(isWholeNumber(parsed('1000m'))).toBe(true);
    expect(isWholeNumber(parsed('0.5Ki'))).toBe(true);
    expect(isWholeNumber(parsed('0.1Ki'))).toBe(false);
    expect(quantityToBigInt(parsed('1m'))).toBeUndefined();
    expect(quantityToBigInt(parsed('2Gi'))).toBe(2n * 1024n ** 3n);
  });

  it('gives the nearest double for display', () => {
    expect(quantityToNumber(parsed('0.1'))).toBe(0.1);
    expect(quantityToNumber(parsed('1.5Gi'))).toBe(1.5 * 2 ** 30);
    expect(quantityToNumber(parsed('-250m'))).toBe(-0.25);
  });
});

describe('formatBinaryQuantity', () => {
  it.each([
    [0n, '0'],
    [1000n, '1000'],
    [1024n, '1Ki'],
    [53687091200n, '50Gi'],
    [1536n * 1024n * 1024n, '1536Mi'],
    [3n << 60n, '3Ei'],
    [1n << 70n, '1024Ei'],
    [-2048n, '-2Ki'],
  ])('%d -> %s', (bytes, expected) => {
    expect(formatBinaryQuantity(bytes)).toBe(expected);
  });

  it('round trips through parseQuantity and uses the largest exact suffix', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 80n), max: 1n << 80n }), (bytes) => {
        const text = formatBinaryQuantity(bytes);
        expect(parseQuantity(text)).toEqual(exactly(bytes));
        const count = BigInt(/^-?\d+/.exec(text)![0]);
        if (!text.endsWith('Ei') && count !== 0n) expect(count % 1024n).not.toBe(0n);
      }),
    );
  });
});
