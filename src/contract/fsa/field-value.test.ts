import { describe, expect, it } from 'vitest';
import { fieldValue } from './field-value.ts';

describe('fieldValue', () => {
  it('reads a present field', () => {
    expect(fieldValue({ storage: { size: '10Gi' } }, ['storage', 'size'])).toBe('10Gi');
    expect(fieldValue({ readReplicas: 2 }, ['readReplicas'], 0)).toBe(2);
  });

  it('replaces an absent or null field with what absence means', () => {
    expect(fieldValue({}, ['readReplicas'], 0)).toBe(0);
    expect(fieldValue({ readReplicas: null }, ['readReplicas'], 0)).toBe(0);
    expect(fieldValue({ readReplicas: null }, ['readReplicas'])).toBeUndefined();
    expect(fieldValue('not an object', ['storage', 'size'], '1Gi')).toBe('1Gi');
  });
});
