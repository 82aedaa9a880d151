import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManifestFile } from './manifest.ts';
import { readManifestDirectory, writeManifestDirectory } from './manifest-directory.ts';
import { manifestsToYaml } from './manifest-yaml.ts';

const file = (path: string, name: string): ManifestFile => ({
  path,
  manifests: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }],
});

describe('writeManifestDirectory / readManifestDirectory', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crdgate-manifests-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the files, sub-folders included, and reads them back by relative path', async () => {
    const files = [file('00-a.yaml', 'a'), file('nested/b.yaml', 'b')];
    expect(await writeManifestDirectory(dir, files)).toEqual({ written: ['00-a.yaml', 'nested/b.yaml'], removed: [] });
    expect(await readManifestDirectory(dir)).toEqual(
      new Map([
        ['00-a.yaml', manifestsToYaml(files[0]!.manifests)],
        ['nested/b.yaml', manifestsToYaml(files[1]!.manifests)],
      ]),
    );
  });

  it('removes generated files it no longer renders, and keeps files written by hand', async () => {
    await writeManifestDirectory(dir, [file('old.yaml', 'old'), file('kept.yaml', 'kept')]);
    await mkdir(join(dir, 'mine'));
    await writeFile(join(dir, 'mine', 'secret.yaml'), 'apiVersion: v1\nkind: Secret\n');

    expect(await writeManifestDirectory(dir, [file('kept.yaml', 'kept')])).toEqual({
      written: ['kept.yaml'],
      removed: ['old.yaml'],
    });
    expect([...(await readManifestDirectory(dir)).keys()]).toEqual(['kept.yaml', 'mine/secret.yaml']);
    expect(await readFile(join(dir, 'mine', 'secret.yaml'), 'utf8')).toBe('apiVersion: v1\nkind: Secret\n');
  });

  it('writes a JSON file as formatted JSON, and reads it back with the YAML files', async () => {
    await writeManifestDirectory(dir, [
      file('a.yaml', 'a'),
      { path: 'nested/dashboard.json', json: { title: 't', panels: [] } },
    ]);
    const read = await readManifestDirectory(dir);
    expect([...read.keys()]).toEqual(['a.yaml', 'nested/dashboard.json']);
    expect(JSON.parse(read.get('nested/dashboard.json')!)).toEqual({ title: 't', panels: [] });
  });

  it('reads a folder that does not exist as empty', async () => {
    expect(await readManifestDirectory(join(dir, 'absent'))).toEqual(new Map());
  });
});
