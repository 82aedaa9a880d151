import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInTempDir } from '../cli-runner.fixture.ts';

// The scaffolded project's own tests, its install and its manifests run in test/e2e/init.e2e.test.ts; here, what
// the command writes and refuses.

const { dir: tempDir, run } = cliInTempDir('crdgate-init-');

describe('crdgate init', () => {
  it('writes a project for the kind, pinned to the versions crdgate itself uses', async () => {
    const result = await run('init', 'bucket', '--group', 'storage.example.com', '--kind', 'Bucket', '--skip-install');
    expect(result, result.stderr).toMatchObject({ code: 0 });
    const files = await readdir(join(tempDir(), 'bucket'), { recursive: true });
    expect(files.sort()).toEqual(
      ['.dockerignore', '.gitignore', 'Dockerfile', 'README.md', 'examples', 'examples/bucket.yaml', 'package.json', 'src', 'src/contract.test.ts', 'src/contract.ts', 'tsconfig.json'].sort(),
    );
    const own = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    const project = JSON.parse(await readFile(join(tempDir(), 'bucket', 'package.json'), 'utf8'));
    expect(project.dependencies).toEqual({ crdgate: `^${own.version}` });
    expect(project.devDependencies).toEqual({ node: own.devDependencies.node, typescript: own.devDependencies.typescript, '@types/node': own.devDependencies['@types/node'] });
    const contract = await readFile(join(tempDir(), 'bucket', 'src', 'contract.ts'), 'utf8');
    expect(contract).toContain("export const group = 'storage.example.com';");
    expect(contract).toContain("kind: 'Bucket', plural: 'buckets'");
    expect(await readFile(join(tempDir(), 'bucket', 'Dockerfile'), 'utf8')).toContain(`FROM node:${own.devDependencies.node}-bookworm-slim`);
  });

  it('uses the crdgate dependency it is given', async () => {
    const result = await run('init', 'pinned', '--group', 'storage.example.com', '--kind', 'Bucket', '--crdgate', 'file:../crdgate-0.1.0.tgz', '--skip-install');
    expect(result.code).toBe(0);
    expect(JSON.parse(await readFile(join(tempDir(), 'pinned', 'package.json'), 'utf8')).dependencies).toEqual({ crdgate: 'file:../crdgate-0.1.0.tgz' });
  });

  it.each([
    [['init', '--group', 'a.example.com', '--kind', 'A'], 'DIR is required'],
    [['init', 'x', '--kind', 'A'], '--group is required'],
    [['init', 'x', '--group', 'nodots', '--kind', 'A'], '--group "nodots" must be a DNS subdomain'],
    [['init', 'x', '--group', 'a.example.com', '--kind', 'lower'], '--kind "lower" must be UpperCamelCase'],
    [['init', 'x', '--group', 'a.example.com', '--kind', 'A', '--plural', 'Bad_Plural'], '--plural "Bad_Plural"'],
    [['init', 'x', 'y', '--group', 'a.example.com', '--kind', 'A'], 'unexpected argument "y"'],
  ])('exits 2 with one line for %j', async (argv, named) => {
    const result = await run(...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(named);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('refuses to write into a folder that is not empty', async () => {
    await writeFile(join(tempDir(), 'precious.txt'), 'keep me');
    const result = await run('init', '.', '--group', 'a.example.com', '--kind', 'A', '--skip-install');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('is not empty');
    expect(await readFile(join(tempDir(), 'precious.txt'), 'utf8')).toBe('keep me');
  });
});
