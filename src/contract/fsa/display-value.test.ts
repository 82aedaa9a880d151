import { describe, expect, it } from 'vitest';
import { displayValue } from './display-value.ts';

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
