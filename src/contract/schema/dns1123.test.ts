import { describe, expect, it } from 'vitest';
import { isDns1123Label, isDns1123Subdomain } from './dns1123.ts';

describe('isDns1123Label', () => {
  it.each(['a', 'tiles', 'cache-1', '0', '1a', 'a'.repeat(63)])('accepts %j', (text) => {
    expect(isDns1123Label(text)).toBe(true);
  });

  it.each(['', 'Tiles', '-a', 'a-', 'a_b', 'a.b', 'a b', 'a'.repeat(64), 'ü'])('rejects %j', (text) => {
    expect(isDns1123Label(text)).toBe(false);
  });
});

describe('isDns1123Subdomain', () => {
  it.each(['a', 'geo.example.com', 'a-1.b-2', `${'a'.repeat(63)}.${'b'.repeat(63)}`, 'a'.repeat(253)])('accepts %j', (text) => {
    expect(isDns1123Subdomain(text)).toBe(true);
  });

  it.each(['', '.a', 'a.', 'a..b', 'A.b', 'a.-b', 'a'.repeat(254)])('rejects %j', (text) => {
    expect(isDns1123Subdomain(text)).toBe(false);
  });
});
