import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';

// Through crdgate's own process: vitest's module loader transforms what it imports, so the errors a module load
// gives in it are not Node's.
const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));

describe('a --contract module that does not load', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crdgate-contract-module-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function failureOf(source: string): Promise<{ message: string }> {
    await writeFile(join(dir, 'contract.ts'), source);
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, [bin, 'fsa', '--contract', './contract.ts'], { cwd: dir }, (error, _stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stderr }),
      ),
    );
    expect(code).toBe(2);
    return { message: stderr };
  }

  it('names the file and line of a syntax error, which the message alone does not', async () => {
    const error = await failureOf('export default 1;\n}}}\n');
    expect(error.message).toContain(`${join(dir, 'contract.ts')}:2: `);
  });

  it('names where an error thrown while the module runs came from', async () => {
    const error = await failureOf('const x: any = undefined;\nx.boom();\nexport default 1;\n');
    expect(error.message).toContain(`(at file://${join(dir, 'contract.ts')}:2:`);
  });
});
