import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repoRoot = new URL('../../', import.meta.url);

/** The paths git ignores among these, by git's own rules (--no-index: whether or not they exist or are tracked). */
async function ignored(paths: string[]): Promise<string[]> {
  try {
    const { stdout } = await promisify(execFile)('git', ['check-ignore', '--no-index', ...paths], { cwd: repoRoot });
    return stdout.split('\n').filter(Boolean);
  } catch (error) {
    // Exit 1: none of them is ignored.
    if ((error as { code?: number }).code === 1) return [];
    throw error;
  }
}

describe('certs/', () => {
  it('is kept with its README, while the certificates and keys written into it are ignored', async () => {
    const written = ['certs/ca.crt', 'certs/ca.key', 'certs/tls.crt', 'certs/tls.key'];
    expect(await ignored([...written, 'certs/README.md'])).toEqual(written);
    expect(await readFile(new URL('certs/README.md', repoRoot), 'utf8')).toMatch(/^# certs\//);
  });

  it('keeps the keys out of the Docker build context too', async () => {
    const lines = (await readFile(new URL('.dockerignore', repoRoot), 'utf8')).split('\n');
    expect(lines).toContain('certs/*');
    expect(lines).toContain('!certs/README.md');
  });
});
