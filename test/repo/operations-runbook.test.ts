import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const runbookUrl = new URL('../../docs/operations.md', import.meta.url);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

async function anchors(url: URL): Promise<Set<string>> {
  const text = await readFile(url, 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => anchorOf(heading!)));
}

describe('the runbook (docs/operations.md)', () => {
  it('links only to files and sections that exist, the README included', async () => {
    const text = await readFile(runbookUrl, 'utf8');
    const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target!).filter((target) => !/^https?:/.test(target));
    expect(links).toContain('../README.md#runbook-changing-the-storage-version');
    const broken: string[] = [];
    for (const link of links) {
      const [path, anchor] = link.split('#');
      const url = path ? new URL(path, runbookUrl) : runbookUrl;
      const headings = await anchors(url).catch(() => undefined);
      if (!headings || (anchor !== undefined && !headings.has(anchor))) broken.push(link);
    }
    expect(broken).toEqual([]);
  });

  it('is linked from the README', async () => {
    expect(await readFile(new URL('../../README.md', import.meta.url), 'utf8')).toContain('](docs/operations.md)');
  });
});
