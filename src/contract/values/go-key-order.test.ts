import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goKeyOrder, inGoKeyOrder } from './go-key-order.ts';

const utf8Order = (a: string, b: string) => Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b)));

describe('goKeyOrder', () => {
  it('orders keys by their UTF-8 bytes, as Go sorts a map', () => {
    // Full Unicode: surrogate pairs against characters from U+E000 are where UTF-16 order and UTF-8 order part.
    const key = fc.string({
      unit: fc.oneof(
        fc.constantFrom('a', 'B', '-', '\uE000', '\uFFFF', '😀', 'é'),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      ),
    });
    fc.assert(fc.property(key, key, (a, b) => Math.sign(goKeyOrder(a, b)) === utf8Order(a, b)));
  });

  it('puts a character past the surrogates after an emoji, as its bytes are', () => {
    // U+FF21 (EF BC A1) against U+1F600 (F0 9F 98 80): in UTF-16, 0xFF21 > 0xD83D, and the bytes say the opposite.
    expect(Math.sign(goKeyOrder('Ａ', '😀'))).toBe(-1);
    expect(Math.sign(goKeyOrder('ab', 'a'))).toBe(1);
  });

  it('keeps a __proto__ key of parsed JSON as data', () => {
    const ordered = inGoKeyOrder(JSON.parse('{"b":1,"__proto__":{"polluted":true},"a":2}') as Record<string, unknown>);
    expect(Object.keys(ordered)).toEqual(['__proto__', 'a', 'b']);
    expect(Object.getPrototypeOf(ordered)).toBe(Object.prototype);
    expect((ordered as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
