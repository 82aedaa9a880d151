import { describe, expect, it } from 'vitest';
import { whenParentExits } from './parent-exit.ts';

describe('whenParentExits', () => {
  it('resolves once the parent pid changes, and not before', async () => {
    let parent = 4242;
    let settled = false;
    const exited = whenParentExits(() => parent, 5).then(() => (settled = true));
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(settled).toBe(false);
    parent = 1;
    await exited;
    expect(settled).toBe(true);
  });
});
