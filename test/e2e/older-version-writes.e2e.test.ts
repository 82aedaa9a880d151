import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { cacheClusterContract } from '../../src/admission/cache-cluster.fixture.ts';
import type { Contract } from '../../src/contract/contract-definition.ts';
import type { KubeObject } from '../../src/contract/values/kube-object.ts';
import { createContractRegistry } from '../../src/contract/registry.ts';
import { renderAdmissionPolicies } from '../../src/render/admission-policy.ts';
import { renderCustomResourceDefinition } from '../../src/render/custom-resource-definition.ts';
import type { Manifest } from '../../src/render/manifest.ts';
import {
  renderMutatingWebhookConfigurations,
  renderValidatingWebhookConfiguration,
} from '../../src/render/webhook-configurations.ts';
import { startTestServer, type TestServer } from '../integration/support/test-server.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { kubectl, warningLines } from './support/kubectl.ts';
import {
  applyStrict,
  expectStatus,
  installCrd,
  removeCrd,
  resourcePath,
  restClient,
  type Rest,
} from './support/raw-api.ts';

// An old client cannot change, unseen, what only a newer version says. A CacheCluster written in v1 with TLS on
// (`tls.enabled: true`, a block v1alpha1 has no place for) is written again by a client of v1alpha1 from a manifest
// that has no conversion annotation: crdgate's webhook refuses the write, naming the field, the version that shows
// it and how to write it; `crdgate check --old` says the same offline; a contract that chose to warn lets it through
// with that warning; and with crdgate's validating webhook gone, the rendered policy floor refuses it alone.

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const fieldManager = 'crdgate-e2e-older-version-writes';
const bin = fileURLToPath(new URL('../../src/bin.ts', import.meta.url));
const contractModule = fileURLToPath(new URL('./support/contracts/cache-cluster.ts', import.meta.url));

describe.skipIf(!controlPlane)('a write in an older version that would change a field it cannot show', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const runId = randomUUID().slice(0, 8);
  const namespace = `older-writes-${runId}`;
  const refusing = cacheClusterContract();
  const warning = cacheClusterContract({ group: 'warn.cache.example.com', hiddenFieldChanges: 'warn' });
  const contracts = [refusing, warning];
  let server: TestServer | undefined;
  let api: Rest | undefined;
  let dir: string | undefined;
  let crds: Manifest[] = [];
  let webhookConfigurations: Manifest[] = [];
  const rest = () => api ?? (api = restClient(cp.kubeconfigPath));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-older-writes-'));
    server = await startTestServer({ registry: createContractRegistry(contracts) });
    const endpoint = { target: { url: `https://127.0.0.1:${server.port}` }, caBundlePem: server.ca.toString('utf8') };
    crds = contracts.map((contract) => renderCustomResourceDefinition(contract, endpoint));
    const name = `crdgate-e2e-older-writes-${runId}`;
    webhookConfigurations = [
      renderValidatingWebhookConfiguration(contracts, endpoint),
      ...renderMutatingWebhookConfigurations(contracts, endpoint),
    ].map((configuration) => ({ ...configuration, metadata: { ...configuration.metadata, name } }));
    await rest()
      .send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
      .then(expectStatus(201));
    for (const crd of crds) await installCrd(rest(), crd, fieldManager);
    await applyStrict(rest(), webhookConfigurations, fieldManager);
  });

  afterAll(async () => {
    try {
      if (api) {
        for (const manifest of [...webhookConfigurations, ...renderAdmissionPolicies([refusing], runId)])
          await api
            .send('DELETE', `${resourcePath(manifest.apiVersion, manifest.kind)}/${manifest.metadata.name}`)
            .then(expectStatus(200, 404));
        for (const crd of crds) await removeCrd(api, crd);
        await api.send('DELETE', `/api/v1/namespaces/${namespace}`).then(expectStatus(200, 202, 404));
      }
    } finally {
      api?.close();
      await server?.stop();
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  });

  /** A CacheCluster as its v1 client writes it, TLS on; created, then Running (so that a change is judged). */
  async function createdWithTls(contract: Contract, name: string): Promise<KubeObject> {
    const file = await manifest(`${name}-v1.yaml`, v1Object(contract, name));
    const created = await kubectl(cp, ['apply', '--server-side', '--field-manager', 'v1-client', '-f', file]);
    expect(created.exitCode, created.stderr).toBe(0);
    const status = await kubectl(cp, [
      'patch',
      `${contract.identity.plural}.v1.${contract.identity.group}`,
      name,
      '-n',
      namespace,
      '--subresource',
      'status',
      '--type',
      'merge',
      '-p',
      '{"status":{"phase":"Running"}}',
    ]);
    expect(status.exitCode, status.stderr).toBe(0);
    return read(contract, name, 'v1');
  }

  function v1Object(contract: Contract, name: string): KubeObject {
    return {
      apiVersion: `${contract.identity.group}/v1`,
      kind: 'CacheCluster',
      metadata: { name, namespace },
      spec: { memory: '512Mi', replicas: 3, tls: { enabled: true } },
    };
  }

  /** The same cluster as a v1alpha1 manifest has it, with one more node: no conversion annotation. */
  function v1alpha1Object(contract: Contract, name: string): KubeObject {
    return {
      apiVersion: `${contract.identity.group}/v1alpha1`,
      kind: 'CacheCluster',
      metadata: { name, namespace },
      spec: { memoryMB: 512, nodes: 4 },
    };
  }

  async function read(contract: Contract, name: string, version: string): Promise<KubeObject> {
    const path = `/apis/${contract.identity.group}/${version}/namespaces/${namespace}/${contract.identity.plural}/${name}`;
    return (await rest().send('GET', path).then(expectStatus(200))).body as KubeObject;
  }

  async function manifest(file: string, object: KubeObject): Promise<string> {
    const path = join(dir!, file);
    await writeFile(path, file.endsWith('.json') ? JSON.stringify(object) : stringify(object));
    return path;
  }

  const refusalOf = (contract: Contract, name: string) =>
    `spec.tls (v1 field; no v1alpha1 equivalent): the stored object holds {"enabled":true} here, which v1alpha1 ` +
    `cannot show, and this write would change it to {"enabled":false} unseen: write it in v1 (kubectl edit ` +
    `${contract.identity.plural}.v1.${contract.identity.group} ${name} -n ${namespace}), or send the annotation ` +
    `${contract.identity.group}/conversion-data back as v1alpha1 reads it`;

  it('refuses kubectl replace of a v1alpha1 manifest without the annotation, naming the field, the version and how', async () => {
    const name = 'replaced';
    await createdWithTls(refusing, name);
    const replaced = await kubectl(cp, [
      'replace',
      '-f',
      await manifest(`${name}.yaml`, v1alpha1Object(refusing, name)),
    ]);
    expect(replaced.exitCode).not.toBe(0);
    expect(replaced.stderr).toContain(refusalOf(refusing, name));
    const after = await read(refusing, name, 'v1');
    expect(after.spec).toEqual({ memory: '512Mi', replicas: 3, tls: { enabled: true } });

    // `crdgate check --old` with the stored object decides the same, in the same words.
    const stored = await manifest(`${name}-stored.json`, after);
    const checked = await runCheck(['-f', join(dir!, `${name}.yaml`), '--old', stored, '-o', 'json']);
    expect(checked.code).toBe(1);
    const [object] = (JSON.parse(checked.stdout) as { objects: { message: string; causes: { field: string }[] }[] })
      .objects;
    expect(object!.causes.map((cause) => cause.field)).toEqual(['spec.tls (v1 field; no v1alpha1 equivalent)']);
    expect(replaced.stderr).toContain(object!.message);
  });

  it('refuses an update in v1alpha1 sent without the annotation, and takes the one sent with it as read', async () => {
    const name = 'updated';
    const stored = await createdWithTls(refusing, name);
    const path = `/apis/${refusing.identity.group}/v1alpha1/namespaces/${namespace}/cacheclusters/${name}`;
    const asRead = await read(refusing, name, 'v1alpha1');
    expect(asRead.metadata?.annotations?.[`${refusing.identity.group}/conversion-data`]).toBe(
      '{"tls":{"enabled":true}}',
    );
    const withoutAnnotation = {
      ...v1alpha1Object(refusing, name),
      metadata: { name, namespace, resourceVersion: stored.metadata!.resourceVersion },
    };
    const refused = await rest().send('PUT', path, withoutAnnotation);
    expect(refused.status).toBe(403);
    const body = refused.body as { message: string; details: { causes: { field: string; message: string }[] } };
    expect(body.details.causes).toContainEqual(
      expect.objectContaining({ field: 'spec.tls (v1 field; no v1alpha1 equivalent)' }),
    );
    expect(body.message).toContain(refusalOf(refusing, name));
    // The same edit, the annotation sent back as read (kubectl edit, a read-modify-write): TLS stays on.
    const edited = { ...asRead, spec: { ...(asRead.spec as object), nodes: 4 } };
    await rest().send('PUT', path, edited).then(expectStatus(200));
    expect((await read(refusing, name, 'v1')).spec).toEqual({ memory: '512Mi', replicas: 4, tls: { enabled: true } });
  });

  it('keeps TLS on through server-side apply of the v1alpha1 manifest: the annotation is no field the manifest sets', async () => {
    const name = 'applied';
    await createdWithTls(refusing, name);
    const file = await manifest(`${name}.yaml`, v1alpha1Object(refusing, name));
    const applied = await kubectl(cp, [
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager',
      'v1alpha1-client',
      '-f',
      file,
    ]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect((await read(refusing, name, 'v1')).spec).toEqual({ memory: '512Mi', replicas: 4, tls: { enabled: true } });
  });

  it('lets the write through with that as a warning where the contract chose to warn', async () => {
    const name = 'warned';
    await createdWithTls(warning, name);
    const replaced = await kubectl(cp, [
      'replace',
      '-f',
      await manifest(`${name}.yaml`, v1alpha1Object(warning, name)),
    ]);
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(warningLines(replaced)).toEqual([
      'Warning: spec.tls (v1 field; no v1alpha1 equivalent): a write in v1alpha1, which cannot show it, changed ' +
        '{"enabled":true} to {"enabled":false}; write it in v1',
    ]);
    expect((await read(warning, name, 'v1')).spec).toEqual({
      memory: '512Mi',
      replicas: 4,
      tls: { enabled: false },
    });
  });

  it('is refused by the policy floor alone, while crdgate validates nothing', async () => {
    const name = 'floored';
    await createdWithTls(refusing, name);
    const validating = webhookConfigurations.find((each) => each.kind === 'ValidatingWebhookConfiguration')!;
    await rest()
      .send('DELETE', `${resourcePath(validating.apiVersion, validating.kind)}/${validating.metadata.name}`)
      .then(expectStatus(200));
    await applyStrict(rest(), renderAdmissionPolicies([refusing], runId), fieldManager);
    const file = await manifest(`${name}.yaml`, v1alpha1Object(refusing, name));
    // The API server picks the policy up from a watch.
    let replaced = await kubectl(cp, ['replace', '--dry-run=server', '-f', file]);
    for (let tries = 0; replaced.exitCode === 0 && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      replaced = await kubectl(cp, ['replace', '--dry-run=server', '-f', file]);
    }
    expect(replaced.exitCode).not.toBe(0);
    expect(replaced.stderr).toContain('ValidatingAdmissionPolicy');
    expect(replaced.stderr).toContain(
      `CacheCluster spec.tls (v1 field; no v1alpha1 equivalent): the stored object holds a value here, which v1alpha1 ` +
        `cannot show, and this write would change it unseen: write it in v1 (kubectl edit ` +
        `cacheclusters.v1.cache.example.com ${name} -n ${namespace}), or send the annotation ` +
        `cache.example.com/conversion-data back as v1alpha1 reads it`,
    );
    // A v1 client's write of the same change is no business of the rule.
    const v1 = await kubectl(cp, [
      'replace',
      '--dry-run=server',
      '-f',
      await manifest(`${name}-v1.yaml`, {
        ...v1Object(refusing, name),
        spec: { memory: '512Mi', replicas: 4, tls: { enabled: false } },
      }),
    ]);
    expect(v1.exitCode, v1.stderr).toBe(0);
  });
});

/** `crdgate check` with the CacheCluster contract; exit 1 is a denial. */
async function runCheck(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const argv = [bin, 'check', ...args, '--contract', contractModule];
  return new Promise((resolve, reject) =>
    execFile(process.execPath, argv, (error, stdout, stderr) => {
      const code = error ? Number(error.code) : 0;
      if (code !== 0 && code !== 1) reject(new Error(`crdgate check exited ${code}: ${stderr}`));
      else resolve({ code, stdout, stderr });
    }),
  );
}
