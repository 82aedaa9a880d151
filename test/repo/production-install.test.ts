import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = new URL('../../', import.meta.url).pathname;

// The image installs production dependencies only (`npm ci --omit=dev`) and runs the compiled CLI. The rendered
// migration Job runs `migrate` on that image, so the compiled CLI must load and run with nothing else.
describe('the compiled CLI on production dependencies only, as the image has it', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crdgate-production-'));
    await cp(join(root, 'package.json'), join(dir, 'package.json'));
    await cp(join(root, 'package-lock.json'), join(dir, 'package-lock.json'));
    await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: dir,
      timeout: 240_000,
    });
    await run(
      join(root, 'node_modules/.bin/tsc'),
      ['-p', join(root, 'tsconfig.build.json'), '--outDir', join(dir, 'dist')],
      { cwd: root, timeout: 240_000 },
    );
  }, 300_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) =>
    run(process.execPath, [join(dir, 'dist/cli.js'), ...args], { cwd: dir, timeout: 60_000 }).then(
      (result) => ({ code: 0, ...result }),
      (error: { code: number; stdout: string; stderr: string }) => ({
        code: error.code,
        stdout: error.stdout,
        stderr: error.stderr,
      }),
    );

  it('runs migrate as far as the kubeconfig, with no devDependency installed', async () => {
    const result = await cli(
      'migrate',
      '--resource',
      'geodatabases.geo.example.com',
      '--kubeconfig',
      join(dir, 'no-such-kubeconfig'),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^crdgate migrate: cannot load the kubeconfig .*no-such-kubeconfig/);
  }, 60_000);

  it('prints the migrate usage', async () => {
    const result = await cli('migrate', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('crdgate migrate --resource PLURAL.GROUP');
  }, 60_000);
});
