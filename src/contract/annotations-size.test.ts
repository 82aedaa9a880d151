import { describe, expect, it } from 'vitest';
import { annotationsSize, maxAnnotationsBytes } from './annotations-size.ts';

describe('annotationsSize', () => {
  it('adds up the UTF-8 bytes of keys and values', () => {
    expect(annotationsSize({})).toBe(0);
    expect(annotationsSize({ ab: 'cde', f: '' })).toBe(6);
    expect(annotationsSize({ é: '日本' })).toBe(2 + 6);
    expect(annotationsSize({ emoji: '🗺️' })).toBe(5 + 7);
  });

  it('has the API server limit of 256 KiB', () => {
    expect(maxAnnotationsBytes).toBe(262_144);
  });
});
