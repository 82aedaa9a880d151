import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../cli-runner.fixture.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-manifests-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => runCli(dir, ...argv);

describe('crdgate manifests', () => {
  it('prints URL clientConfigs with the CA bundle for a crdgate outside the cluster', async () => {
    await run('certs', '--out', 'pki');
    const ca = await readFile(join(dir, 'pki', 'ca.crt'));
    const { code, stdout } = await run('manifests', '--url', 'https://127.0.0.1:9443', '--ca-bundle', 'pki/ca.crt');
    expect(code).toBe(0);
    const objects = parseAllDocuments(stdout).map((d) => d.toJS());
    const kinds = objects.map((o) => o.kind);
    expect(kinds).toEqual(expect.arrayContaining(['CustomResourceDefinition', 'ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']));
    expect(kinds).not.toContain('Deployment');
    const clientConfigs = [
      ...objects.filter((o) => o.kind.endsWith('WebhookConfiguration')).flatMap((o) => o.webhooks.map((w: any) => w.clientConfig)),
      objects.find((o) => o.kind === 'CustomResourceDefinition').spec.conversion.webhook.clientConfig,
    ];
    expect(clientConfigs.map((c) => c.url).sort()).toEqual(['https://127.0.0.1:9443/convert', 'https://127.0.0.1:9443/mutate', 'https://127.0.0.1:9443/validate']);
    for (const config of clientConfigs) expect(Buffer.from(config.caBundle, 'base64')).toEqual(ca);
  });

  it.each([
    [['--url', 'http://127.0.0.1:9443'], '--url'],
    [['--url', 'https://127.0.0.1:9443/hooks'], '--url'],
    [['--ca-bundle', 'absent.crt'], 'absent.crt'],
    [['--ca-bundle', 'not-pem.crt'], 'not-pem.crt'],
    [['--namespace', 'Crdgate_System'], '--namespace'],
  ])('exits 2 with one line for %j', async (flags, named) => {
    await writeFile(join(dir, 'not-pem.crt'), 'hello');
    const result = await run('manifests', ...flags);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(named);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});
