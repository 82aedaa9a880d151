import { describe, expect, it } from 'vitest';
import { createListProgress } from './list-progress.ts';

describe('createListProgress', () => {
  it('estimates the total from the objects listed so far and what the server says remains', () => {
    const progress = createListProgress();
    expect(progress.total).toBeUndefined();
    progress.page(4, 6, true);
    expect(progress.total).toBe(10);
    progress.page(4, 2, true);
    expect(progress.total).toBe(10);
    progress.page(2, undefined, false);
    expect(progress.total).toBe(10);
  });

  it('counts a list started again from the beginning as a new pass, not on top of the first', () => {
    const progress = createListProgress();
    progress.page(4, 4, true);
    progress.restart(); // 410 without a token: the list starts over
    progress.page(4, 4, true);
    expect(progress.total).toBe(8);
    progress.page(4, undefined, false);
    expect(progress.total).toBe(8);
  });
});
