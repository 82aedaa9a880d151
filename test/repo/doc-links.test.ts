import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { anchorOf, anchors, brokenLinks, relativeLinks } from './markdown-links.ts';

const repo = new URL('../../', import.meta.url);
const docs = (await readdir(new URL('docs/', repo)))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const pages = ['README.md', ...docs, 'bench/README.md'];

describe('the documentation', () => {
  it.each(pages)('%s links only to files and headings that exist', async (page) => {
    expect(await brokenLinks(new URL(page, repo))).toEqual([]);
  });

  it('is reachable from the README in one click: every page of docs/ and bench/README.md', async () => {
    const linked = new Set((await relativeLinks(new URL('README.md', repo))).map((link) => link.split('#')[0]));
    expect([...docs, 'bench/README.md'].filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('the anchors the link check expects', () => {
  it("are GitHub's: code marks and punctuation dropped, underscores kept, repeats numbered", async () => {
    expect(anchorOf("Guarding an operator's CRD: `crdOwner: 'external'`")).toBe(
      'guarding-an-operators-crd-crdowner-external',
    );
    expect(anchorOf('The local loop: `crdgate dev` and `crdgate/testing`')).toBe(
      'the-local-loop-crdgate-dev-and-crdgatetesting',
    );
    expect(anchorOf('`--via status` and snake_case')).toBe('--via-status-and-snake_case');
    expect(await anchors(new URL('docs/operations.md', repo))).toContain('certificates-three-ways');
  });
});
