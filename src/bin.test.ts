import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('./bin.ts', import.meta.url));

/** Runs the `crdgate` entry point as a process; `pretendNode` makes it see another Node.js version. */
function runBin(args: string[], pretendNode?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const pretend = pretendNode
    ? ['--import', `data:text/javascript,Object.defineProperty(process.versions, 'node', { value: '${pretendNode}' })`]
    : [];
  return new Promise((resolve) => {
    execFile(process.execPath, [...pretend, bin, ...args], (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe('the crdgate command (bin)', () => {
  it('runs the CLI on the Node version crdgate needs', async () => {
    const result = await runBin(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('usage: crdgate COMMAND');
  });

  it('says in one line which Node it needs, and exits 2, on an older one', async () => {
    const engines = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')).engines.node as string;
    const required = /^>=(\d+)/.exec(engines)?.[1];
    const result = await runBin(['serve'], '20.20.2');
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(new RegExp(`^crdgate: Node\\.js ${required} or newer is required, this is Node\\.js 20\\.20\\.2 `))]);
  });
});
