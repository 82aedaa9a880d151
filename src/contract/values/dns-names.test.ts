import { describe, expect, it } from 'vitest';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain } from './dns-names.ts';

describe('isDns1123Label', () => {
  it.each(['a', 'tiles', 'cache-1', '0', '1a', 'a'.repeat(63)])('accepts %j', (text) => {
    expect(isDns1123Label(text)).toBe(true);
  });

  it.each(['', 'Tiles', '-a', 'a-', 'a_b', 'a.b', 'a b', 'a'.repeat(64), 'ü', 'a\n'])('rejects %j', (text) => {
    expect(isDns1123Label(text)).toBe(false);
  });
});

describe('isDns1035Label', () => {
  it.each(['a', 'v1', 'v1beta1', 'v2-preview', 'a'.repeat(63)])('accepts %j', (text) => {
    expect(isDns1035Label(text)).toBe(true);
  });

  it.each(['', '1', '1a', '0-a', 'V1', 'v1-', '-v1', 'v1.0', 'v1_beta', 'a'.repeat(64), 'a\n'])(
    'rejects %j',
    (text) => {
      expect(isDns1035Label(text)).toBe(false);
    },
  );
});

describe('isDns1123Subdomain', () => {
  it.each([
    'a',
    'geo.example.com',
    'a-1.b-2',
    '1.2',
    `${'a'.repeat(63)}.${'b'.repeat(63)}`,
    'a'.repeat(253),
    `${'a'.repeat(63)}.`.repeat(3) + 'a'.repeat(61),
  ])('accepts %j', (text) => {
    expect(isDns1123Subdomain(text)).toBe(true);
  });

  it.each([
    '',
    '.a',
    'a.',
    'a..b',
    'A.b',
    'a.-b',
    'a-.b',
    'a'.repeat(254),
    `${'a'.repeat(63)}.`.repeat(4) + 'a',
    'a\n',
  ])('rejects %j', (text) => {
    expect(isDns1123Subdomain(text)).toBe(false);
  });
});
