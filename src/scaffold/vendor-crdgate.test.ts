import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { NpmError } from './npm.ts';
import { vendorCrdgate } from './vendor-crdgate.ts';

// With real npm, on a small package named crdgate whose prepare script leaves a mark in dist/ (as crdgate's builds
// dist/): packing crdgate itself would build the whole of it.

let work: string;
let packageRoot: string;
let project: string;

beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'crdgate-vendor-'));
  packageRoot = join(work, 'crdgate');
  project = join(work, 'project');
  await mkdir(join(packageRoot, 'dist'), { recursive: true });
  await writeFile(join(packageRoot, 'dist', 'index.js'), 'export {};\n');
  await mkdir(project);
});

afterEach(() => rm(work, { recursive: true, force: true }));

async function writePackage(prepare: string): Promise<void> {
  const manifest = { name: 'crdgate', version: '0.0.0-test', type: 'module', files: ['dist'], scripts: { prepare } };
  await writeFile(join(packageRoot, 'package.json'), JSON.stringify(manifest));
}

const markPrepared = `node -e "require('node:fs').writeFileSync('dist/prepared.js', '')"`;

async function tarballFiles(tarball: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('tar', ['-tzf', tarball]);
  return stdout.trim().split('\n').sort();
}

describe('vendorCrdgate', () => {
  it('packs an installed crdgate as it is, without running its scripts', async () => {
    // An installed package has no sources to build from: a prepare script that fails must not run.
    await writePackage('node -e "process.exit(3)"');
    const tarball = await vendorCrdgate(packageRoot, project);
    expect(tarball).toBe('vendor/crdgate-0.0.0-test.tgz');
    expect(await tarballFiles(join(project, tarball))).toEqual(['package/dist/index.js', 'package/package.json']);
  });

  it('builds a git checkout first, through its prepare script, as npm pack does for publishing', async () => {
    await writePackage(markPrepared);
    await mkdir(join(packageRoot, '.git'));
    const tarball = await vendorCrdgate(packageRoot, project);
    expect(await tarballFiles(join(project, tarball))).toContain('package/dist/prepared.js');
    expect(existsSync(join(packageRoot, 'dist', 'prepared.js'))).toBe(true);
  });

  it('fails with what npm and the failing script said', async () => {
    await writePackage(`node -e "console.error('tsc: cannot find the sources'); process.exit(3)"`);
    await mkdir(join(packageRoot, '.git'));
    const failure = await vendorCrdgate(packageRoot, project).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(NpmError);
    expect((failure as Error).message).toMatch(/^npm pack failed:\n/);
    expect((failure as Error).message).toContain('tsc: cannot find the sources');
    expect((failure as Error).message).not.toMatch(/A complete log of this run/);
  });
});
