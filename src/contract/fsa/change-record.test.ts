import { describe, expect, it } from 'vitest';
import { displayValue, fieldValue } from './change-record.ts';

describe('displayValue', () => {
  it('shows strings bare and other values as JSON', () => {
    expect(displayValue('16.4')).toBe('16.4');
    expect(displayValue(3)).toBe('3');
    expect(displayValue({ size: '1Gi' })).toBe('{"size":"1Gi"}');
  });

  it('keeps hostile strings short and free of control characters', () => {
    const shown = displayValue(`a\nb${'x'.repeat(1000)}`);
    expect(shown).not.toMatch(/[\u0000-\u001f]/);
    expect(shown.length).toBeLessThan(80);
  });
});

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
