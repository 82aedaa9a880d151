import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { runCli } from '../cli-runner.fixture.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-convert-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => runCli(dir, ...argv);

const v1 = {
  apiVersion: 'geo.example.com/v1',
  kind: 'GeoDatabase',
  metadata: { name: 'db', namespace: 'maps' },
  spec: {
    postgres: { version: '16.4', postgis: '3.4.2' },
    readReplicas: 2,
    storage: { size: '50Gi', storageClassName: 'ssd' },
    caches: [{ name: 'tiles', memory: '2Gi', version: '7.4', replicas: 2 }],
  },
};

describe('crdgate convert', () => {
  it('converts YAML down and back up losslessly, in the format it was given', async () => {
    await writeFile(join(dir, 'db.yaml'), stringify(v1));
    const down = await run('convert', '-f', 'db.yaml', '--to', 'geo.example.com/v1alpha1');
    expect(down.code).toBe(0);
    const alpha = parse(down.stdout);
    expect(alpha.spec).toEqual({
      postgresVersion: '16.4',
      postgisVersion: '3.4.2',
      replicas: 2,
      storageGB: 50,
      cacheMB: 0,
    });
    await writeFile(join(dir, 'alpha.yaml'), down.stdout);
    const up = await run('convert', '-f', 'alpha.yaml', '--to', 'geo.example.com/v1');
    expect(parse(up.stdout)).toEqual(v1);
  });

  it('answers JSON with JSON', async () => {
    await writeFile(join(dir, 'db.json'), JSON.stringify(v1));
    const result = await run('convert', '-f', 'db.json', '--to', 'geo.example.com/v1beta1');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).spec.replicas).toBe(2);
  });

  it('exits 2 for an unserved target version or a kind no contract knows', async () => {
    await writeFile(join(dir, 'db.yaml'), stringify(v1));
    expect(await run('convert', '-f', 'db.yaml', '--to', 'geo.example.com/v2')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('geo.example.com/v2'),
    });
    await writeFile(join(dir, 'cm.yaml'), stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }));
    expect(await run('convert', '-f', 'cm.yaml', '--to', 'v1')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('ConfigMap'),
    });
  });

  it('names --contract when none was given and the kind is not the built-in example', async () => {
    const cache = { apiVersion: 'cache.example.com/v1alpha1', kind: 'CacheCluster', metadata: { name: 'c' } };
    await writeFile(join(dir, 'cache.yaml'), stringify(cache));
    const result = await run('convert', '-f', 'cache.yaml', '--to', 'cache.example.com/v1');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('CacheCluster');
    expect(result.stderr).toContain('--contract MODULE');
  });

  it('exits 1 when the object itself cannot be converted', async () => {
    await writeFile(
      join(dir, 'bad.yaml'),
      stringify({ ...v1, apiVersion: 'geo.example.com/v1alpha1', spec: { storageGB: -3 } }),
    );
    const result = await run('convert', '-f', 'bad.yaml', '--to', 'geo.example.com/v1');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^CONVERSION_FAILED: /);
  });
});

describe('crdgate convert: as kube-apiserver serves the object in the version asked for', () => {
  it('prunes what that version does not declare and fills its schema defaults', async () => {
    const index = new URL('../index.ts', import.meta.url).pathname;
    const spec = (properties: Record<string, unknown>) => ({
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } },
    });
    await writeFile(
      join(dir, 'paint.ts'),
      `import { defineContract } from ${JSON.stringify(index)};
const copy = (apiVersion: string) => (object: any) => ({ ...object, apiVersion });
export default defineContract({
  identity: { group: 'paint.example.com', kind: 'Can', plural: 'cans', singular: 'can', scope: 'Namespaced' },
  versions: [
    { name: 'v1', served: true, storage: true, schema: ${JSON.stringify(spec({ legacy: { type: 'string' }, litres: { type: 'integer' } }).openAPIV3Schema)} },
    { name: 'v2', served: true, storage: false, schema: ${JSON.stringify(spec({ litres: { type: 'integer' }, colour: { type: 'string', default: 'blue' } }).openAPIV3Schema)} },
  ],
  hub: 'v1',
  conversions: { v2: { toHub: copy('paint.example.com/v1'), fromHub: copy('paint.example.com/v2') } },
});
`,
    );
    await writeFile(
      join(dir, 'can.json'),
      JSON.stringify({
        apiVersion: 'paint.example.com/v1',
        kind: 'Can',
        metadata: { name: 'c' },
        spec: { legacy: 'x', litres: 2 },
      }),
    );
    const result = await run('convert', '-f', 'can.json', '--to', 'paint.example.com/v2', '--contract', './paint.ts');
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({
      apiVersion: 'paint.example.com/v2',
      kind: 'Can',
      metadata: { name: 'c' },
      spec: { litres: 2, colour: 'blue' },
    });
  });
});
