import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { crdRevisionOverrideAnnotation } from '../../src/crd-gate/decide-crd-revision.ts';
import { liveObjectJudge, warmLiveObjectJudge } from '../../src/crd-gate/live-object-judge.ts';
import { readLiveObjects } from '../../src/crd-gate/read-live-objects.ts';
import { createKubeApi } from '../../src/kube/kube-api.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { crdGateWebhookName, renderCrdGateWebhook } from '../../src/render/crd-gate-webhook.ts';
import { startTestServer, type TestServer } from '../integration/support/test-server.ts';
import { crdUpdateReview } from '../../src/crd-gate/crd-gate.fixture.ts';
import { postJson, startCrdgateProcess } from './support/crdgate-process.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { auditedWrites } from './support/audit-log.ts';
import { kubectl, warningLines, waitEstablished } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const group = 'gate.e2e.crdgate.example.com';
const crdName = `pipes.${group}`;
/** A revision of the CRD with these spec fields, and these annotations, as a chart would ship it. */
const pipeCrd = (fields: Record<string, unknown>, annotations: Record<string, string> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: crdName, annotations },
  spec: {
    group,
    scope: 'Namespaced',
    names: { plural: 'pipes', singular: 'pipe', kind: 'Pipe', listKind: 'PipeList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: fields } } } },
      },
    ],
  },
});
const original = { size: { type: 'integer' }, colour: { type: 'string' } };

/**
 * The CRD gate through the suite's kube-apiserver: crdgate's real server (in this process, over TLS) holding the
 * gate's webhook as `crdgate manifests --crd-gate` renders it, reading the live Pipes with the admin's kubeconfig; the
 * CRD changed with a client-side `kubectl apply -f`, as Helm upgrades a chart's CRDs.
 */
describe.skipIf(!controlPlane)('the CRD gate through kube-apiserver', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const suffix = randomUUID().slice(0, 8);
  const namespace = `crdgate-e2e-gate-${suffix}`;
  const configuration = `crdgate-e2e-gate-${suffix}`;
  let work: string;
  let server: TestServer;

  /** `kubectl apply -f` of the CRD revision, as a file. */
  const applyRevision = async (crd: object, ...flags: string[]) => {
    const file = join(work, `crd-${randomUUID().slice(0, 6)}.yaml`);
    await writeFile(file, stringify(crd));
    return kubectl(cp, ['apply', '-f', file, ...flags]);
  };
  const liveFields = async () => {
    const read = await kubectl(cp, ['get', 'crd', crdName, '-o', 'json']);
    const crd = JSON.parse(read.stdout) as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: object } } } } }> };
    };
    return Object.keys(crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties).sort();
  };

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'crdgate-e2e-gate-'));
    expect(warmLiveObjectJudge()).toBeUndefined();
    const created = await applyRevision(pipeCrd(original));
    expect(created.exitCode, created.stderr).toBe(0);
    expect((await waitEstablished(cp, crdName)).exitCode).toBe(0);
    expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
    // Five Pipes, two of them with a colour.
    const pipes = Array.from({ length: 5 }, (_, i) => ({
      apiVersion: `${group}/v1`,
      kind: 'Pipe',
      metadata: { name: `pipe-${i}`, namespace },
      spec: { size: i, ...(i < 2 ? { colour: 'red' } : {}) },
    }));
    await writeFile(join(work, 'pipes.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: pipes }));
    const stored = await kubectl(cp, ['apply', '-f', join(work, 'pipes.yaml')]);
    expect(stored.exitCode, stored.stderr).toBe(0);

    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(cp.kubeconfigPath);
    const api = createKubeApi(kubeConfig, { timeoutMs: 30_000 });
    const reads = {
      api: async () => api,
      bounds: { pageSize: 500, maxObjects: 5_000, timeoutMs: 6_000 },
      judgeFor: liveObjectJudge,
    };
    server = await startTestServer({
      crdGate: { readLive: (oldCrd, newCrd) => readLiveObjects(reads, oldCrd, newCrd) },
    });
    const webhook = renderCrdGateWebhook([crdName], {
      target: { url: `https://127.0.0.1:${server.port}` },
      caBundlePem: server.ca.toString('utf8'),
    });
    await writeFile(
      join(work, 'gate.yaml'),
      stringify({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: configuration },
        webhooks: [webhook],
      }),
    );
    const registered = await kubectl(cp, ['apply', '-f', join(work, 'gate.yaml')]);
    expect(registered.exitCode, registered.stderr).toBe(0);
    // The API server picks the configuration up from a watch a moment later: probe with a dry run until the gate answers.
    await eventually('the CRD gate to refuse a breaking revision', async () => {
      const probe = await applyRevision(pipeCrd({ size: { type: 'integer' } }), '--dry-run=server');
      return probe.stderr.includes(`admission webhook "${crdGateWebhookName}" denied`) ? true : undefined;
    });
  });

  afterAll(async () => {
    await kubectl(cp, ['delete', 'validatingwebhookconfiguration', configuration, '--ignore-not-found']);
    await server?.stop();
    await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
    await kubectl(cp, ['delete', 'crd', crdName, '--wait=false', '--ignore-not-found']);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('refuses a breaking revision with the findings and their counts, and the CRD stays as it was', async () => {
    const refused = await applyRevision(pipeCrd({ size: { type: 'integer' } }));
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain(`admission webhook "${crdGateWebhookName}" denied the request`);
    expect(refused.stderr).toContain('existingFieldRemoval ×1 (v1 spec.colour)');
    expect(refused.stderr).toContain(
      `of 5 live objects: fieldDroppedOnRead (2 objects, e.g. ${namespace}/pipe-0 v1 spec.colour)`,
    );
    expect(refused.stderr).toContain(crdRevisionOverrideAnnotation);
    expect(await liveFields()).toEqual(['colour', 'size']);
  });

  it('lets a safe revision through', async () => {
    const applied = await applyRevision(pipeCrd({ ...original, shape: { type: 'string' } }));
    expect(applied.exitCode, applied.stderr).toBe(0);
    // spec.shape was pruned before: etcd may hold values there that reads would show again (crdgate cannot see them).
    expect(warningLines(applied)).toEqual([
      expect.stringMatching(/^Warning: prunedFieldsMayReturn \(the revision\): /),
    ]);
    expect(await liveFields()).toEqual(['colour', 'shape', 'size']);
  });

  it('lets through, with a warning, a field removal that no live object is affected by, as check weighs it', async () => {
    // No Pipe holds a shape: removing it breaks none of them (dry run: the CRD keeps it for what follows).
    const applied = await applyRevision(pipeCrd(original), '--dry-run=server');
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(warningLines(applied)).toContainEqual(
      expect.stringContaining(
        'of error severity that none of the 5 live objects is affected by: existingFieldRemoval ×1 (v1 spec.shape)',
      ),
    );
    expect(await liveFields()).toEqual(['colour', 'shape', 'size']);
  });

  it('lets a breaking revision through once with the override, audited, and refuses the next one that carries the same value', async () => {
    const reason = 'colour moves to a label, ticket 42';
    const overridden = await applyRevision(
      pipeCrd({ size: { type: 'integer' }, shape: { type: 'string' } }, { [crdRevisionOverrideAnnotation]: reason }),
    );
    expect(overridden.exitCode, overridden.stderr).toBe(0);
    expect(warningLines(overridden)).toEqual([
      `Warning: ${crdRevisionOverrideAnnotation}: applying an unsafe revision of ${crdName}; reason: "${reason}"`,
    ]);
    expect(await liveFields()).toEqual(['shape', 'size']);
    const audited = await eventually('the override in the audit log', async () => {
      const events = await auditedWrites(cp, {
        apiGroup: 'apiextensions.k8s.io',
        resource: 'customresourcedefinitions',
        name: crdName,
      });
      return events.find((event) => event.annotations?.[`${crdGateWebhookName}/override-crd-revision`] !== undefined);
    });
    expect(audited.responseStatus?.code).toBe(200);
    expect(audited.annotations?.[`${crdGateWebhookName}/override-crd-revision`]).toContain(
      'existingFieldRemoval ×1 (v1 spec.colour)',
    );

    // The annotation stays on the CRD: it authorised the write that set it, and nothing since. Every Pipe holds a
    // size, so its removal is an error whatever the live objects are weighed for.
    const again = await applyRevision(
      pipeCrd({ shape: { type: 'string' } }, { [crdRevisionOverrideAnnotation]: reason }),
    );
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr).toContain(`admission webhook "${crdGateWebhookName}" denied the request`);
    expect(again.stderr).toContain('existingFieldRemoval ×1 (v1 spec.size)');
    expect(again.stderr).toContain('carries the value an earlier write set');
    expect(await liveFields()).toEqual(['shape', 'size']);
  });

  it('is served by `crdgate serve --crd-gate` as its own process, reading the live objects with the kubeconfig it is given and the rules file', async () => {
    const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
    // The rules alone decide: a field removal no live object holds is then an error, as check decides it.
    await writeFile(join(work, 'crd-rules.yaml'), 'evidence: rules\n');
    const gate = await startCrdgateProcess(
      cli,
      [
        'serve',
        '--crd-gate',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--cert-dir',
        join(work, 'serve-certs'),
        '--crd-rules',
        join(work, 'crd-rules.yaml'),
      ],
      work,
    );
    try {
      const live = JSON.parse((await kubectl(cp, ['get', 'crd', crdName, '-o', 'json'])).stdout) as Parameters<
        typeof crdUpdateReview
      >[0];
      const breaking = {
        ...live,
        metadata: { ...live.metadata, annotations: {} },
        spec: pipeCrd({ shape: { type: 'string' } }).spec,
      };
      const answer = await postJson(
        gate.port,
        '/crd-gate',
        crdUpdateReview(live, breaking),
        await readFile(join(work, 'serve-certs', 'ca.crt')),
      );
      expect(answer.status).toBe(200);
      expect(answer.json.response.allowed, gate.output()).toBe(false);
      // Every Pipe holds a size, which this revision drops.
      expect(answer.json.response.status.message).toContain('of 5 live objects: fieldDroppedOnRead (5 objects');
      // No Pipe holds a shape: weighed against them its removal would be a warning, but this gate has the rules decide.
      const shapeless = { ...breaking, spec: pipeCrd({ size: { type: 'integer' } }).spec };
      const byRules = await postJson(
        gate.port,
        '/crd-gate',
        crdUpdateReview(live, shapeless),
        await readFile(join(work, 'serve-certs', 'ca.crt')),
      );
      expect(byRules.json.response.allowed, gate.output()).toBe(false);
      expect(byRules.json.response.status.message).toContain('existingFieldRemoval ×1 (v1 spec.shape)');
    } finally {
      expect(await gate.stop()).toBe(0);
    }
  });
});
