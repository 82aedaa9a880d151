import { describe, expect, it } from 'vitest';
import { compareVersionAge } from './version-age.ts';

describe('compareVersionAge', () => {
  it("orders versions oldest first, as apimachinery's priority list ranks them newest first", () => {
    // apimachinery's own example of its order, highest priority first.
    const newestFirst = [
      'v10',
      'v2',
      'v1',
      'v11beta2',
      'v10beta3',
      'v3beta1',
      'v12alpha1',
      'v11alpha2',
      'foo1',
      'foo10',
    ];
    const shuffled = [...newestFirst].sort();
    expect(shuffled.sort(compareVersionAge)).toEqual([...newestFirst].reverse());
  });

  it('is zero for a name and itself only', () => {
    expect(compareVersionAge('v1beta1', 'v1beta1')).toBe(0);
    expect(compareVersionAge('other', 'other')).toBe(0);
    expect(compareVersionAge('v1beta1', 'v1')).toBeLessThan(0);
    expect(compareVersionAge('v1', 'v1beta1')).toBeGreaterThan(0);
  });
});
