import { describe, expect, it } from 'vitest';
import { overlay } from './overlay.ts';

describe('overlay', () => {
  it('merges objects field by field, at every depth', () => {
    expect(overlay({ storage: { class: 'ssd' }, extra: 1 }, { storage: { size: '1Gi' }, replicas: 2 })).toEqual({
      storage: { class: 'ssd', size: '1Gi' },
      extra: 1,
      replicas: 2,
    });
  });

  it('lets what is shown win over what was lost', () => {
    expect(overlay({ size: '1536Mi' }, { size: '2Gi' })).toEqual({ size: '2Gi' });
    expect(overlay({ storage: { size: 'x' } }, { storage: 'not an object' })).toEqual({ storage: 'not an object' });
    expect(overlay('stale', { size: 1 })).toEqual({ size: 1 });
  });

  it('keeps what was lost where nothing is shown', () => {
    expect(overlay({ a: 1 }, undefined)).toEqual({ a: 1 });
    const shown = { a: 1 };
    expect(overlay(undefined, shown)).toBe(shown);
  });

  it('does not modify its arguments', () => {
    const lost = Object.freeze({ a: Object.freeze({ b: 1 }) });
    const shown = Object.freeze({ a: Object.freeze({ c: 2 }) });
    expect(overlay(lost, shown)).toEqual({ a: { b: 1, c: 2 } });
  });
});
