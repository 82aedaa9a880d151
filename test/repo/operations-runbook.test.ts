import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { brokenLinks, relativeLinks } from './markdown-links.ts';

const runbookUrl = new URL('../../docs/operations.md', import.meta.url);

describe('the runbook (docs/operations.md)', () => {
  it('links only to files and sections that exist, the storage-version runbook included', async () => {
    expect(await relativeLinks(runbookUrl)).toContain('migration.md#runbook-changing-the-storage-version');
    expect(await brokenLinks(runbookUrl)).toEqual([]);
  });

  it('is linked from the README', async () => {
    expect(await readFile(new URL('../../README.md', import.meta.url), 'utf8')).toContain('](docs/operations.md)');
  });
});
