import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiException, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli-runner.fixture.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import {
  createCrdgateProcess,
  removeCrdgateProcess,
  type CrdgateProcess,
} from './support/crdgate-restartable-process.ts';
import {
  geoDatabases,
  invalidGeoDatabase,
  invalidGeoDatabaseFields,
  validGeoDatabase,
} from './support/geodatabases.ts';
import { kubectl } from './support/kubectl.ts';

// Two teams install crdgate for their own kinds in one cluster, in one namespace, each with `manifests --name`:
// neither install may overwrite the other's cluster-scoped objects, and each kind must be decided by its own server.

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const widgetContract = fileURLToPath(new URL('../integration/support/widget-contract.ts', import.meta.url));
const widgets = { group: 'toys.example.com', version: 'v1', plural: 'widgets' } as const;

interface Install {
  name: string;
  crd: string;
  gate: CrdgateProcess;
}

/** The Status of a write the API server refused: its HTTP code and the causes, as a client reads them. */
async function refused(
  call: Promise<unknown>,
): Promise<{ code: number; causes: Array<{ reason?: string; field?: string }> }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = (typeof error.body === 'string' ? JSON.parse(error.body) : error.body) as {
      details?: { causes?: Array<{ reason?: string; field?: string }> };
    };
    return { code: error.code, causes: body.details?.causes ?? [] };
  }
  throw new Error('the API server accepted the write');
}

/** The decision codes a crdgate process logged for /validate calls about one object. */
/**
 * The codes once the gate's log records one: the server writes its log asynchronously, so on a loaded machine the
 * line can reach the file after the API server has answered the client.
 */
async function loggedValidationCodes(gate: CrdgateProcess, object: string): Promise<string[]> {
  return eventually(`${object} in the log of ${gate.certDir}`, async () => {
    const codes = await validationCodes(gate, object);
    return codes.length > 0 ? codes : undefined;
  });
}

async function validationCodes(gate: CrdgateProcess, object: string): Promise<string[]> {
  const logs = (await readdir(gate.certDir)).filter((file) => file.endsWith('.log'));
  const lines = (await Promise.all(logs.map((file) => readFile(join(gate.certDir, file), 'utf8'))))
    .join('')
    .split('\n');
  return lines
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { path?: string; object?: string; code?: string })
    .filter((entry) => entry.path === '/validate' && entry.object === object)
    .map((entry) => String(entry.code));
}

describe.skipIf(!controlPlane)(
  'two installs named with `manifests --name`, side by side in front of the real API server',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const suffix = randomUUID().slice(0, 8);
    // One namespace for both: the names alone must keep them apart.
    const namespace = `crdgate-e2e-named-${suffix}`;
    const installs: Install[] = [];
    let customObjects: CustomObjectsApi;

    const geo = (): Install => installs[0]!;
    const toys = (): Install => installs[1]!;

    beforeAll(async () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cp.kubeconfigPath);
      customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
      for (const [name, contractArgs, crd] of [
        [`geo-${suffix}`, [], 'geodatabases.geo.example.com'],
        [`toys-${suffix}`, ['--contract', widgetContract], 'widgets.toys.example.com'],
      ] as const) {
        const gate = await createCrdgateProcess([...contractArgs]);
        installs.push({ name, crd, gate });
        await gate.start();
        // Rendered as a user outside the cluster would: no --image, even for a contract of their own.
        const out = join(gate.certDir, 'manifests');
        const rendered = await runCli(
          gate.certDir,
          'manifests',
          '--name',
          name,
          '--namespace',
          namespace,
          ...contractArgs,
          '--url',
          `https://127.0.0.1:${gate.port}`,
          '--ca-bundle',
          join(gate.certDir, 'ca.crt'),
          '--out',
          out,
        );
        expect(rendered.code, rendered.stderr).toBe(0);
        // Another file may have just deleted the GeoDatabase CRD; applying to a CRD still being deleted fails.
        await eventually(`the previous ${crd} to be gone`, async () => {
          const got = await kubectl(cp, [
            'get',
            'crd',
            crd,
            '--ignore-not-found',
            '-o',
            'jsonpath={.metadata.deletionTimestamp}',
          ]);
          return got.exitCode === 0 && got.stdout === '' ? true : undefined;
        });
        for (const source of [
          ['-k', out],
          ['-f', join(out, 'migration')],
        ]) {
          const applied = await kubectl(cp, ['apply', '--server-side', '--validate=strict', ...source]);
          expect(applied.exitCode, applied.stderr).toBe(0);
        }
        expect(
          (await kubectl(cp, ['wait', '--for=condition=Established', `crd/${crd}`, '--timeout=60s'])).exitCode,
        ).toBe(0);
      }
    });

    afterAll(async () => {
      // Webhooks first, so that nothing is left to call a stopped crdgate; no controller-manager removes the namespace.
      for (const { name, crd, gate } of installs) {
        await kubectl(cp, [
          'delete',
          'validatingwebhookconfiguration,mutatingwebhookconfiguration',
          name,
          '--ignore-not-found',
        ]);
        await kubectl(cp, [
          'delete',
          'clusterrole,clusterrolebinding,flowschema,prioritylevelconfiguration',
          `${name}-migrate`,
          '--ignore-not-found',
        ]);
        await kubectl(cp, ['delete', 'crd', crd, '--ignore-not-found']);
        await removeCrdgateProcess(gate);
      }
      await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
    });

    it("keeps both installs' cluster-scoped objects, each pointing at its own server", async () => {
      for (const { name, gate } of installs) {
        const urls: string[] = [];
        for (const kind of ['validatingwebhookconfiguration', 'mutatingwebhookconfiguration']) {
          const got = await kubectl(cp, ['get', kind, name, '-o', 'jsonpath={.webhooks[*].clientConfig.url}']);
          // The widget contract has no defaults, so its install has no mutating configuration at all.
          if (kind === 'mutatingwebhookconfiguration' && name.startsWith('toys-')) {
            expect(got.stderr).toContain('NotFound');
            continue;
          }
          expect(got.exitCode, got.stderr).toBe(0);
          urls.push(...got.stdout.split(' ').filter((url) => url !== ''));
        }
        // Each webhook calls this install's own server.
        expect(urls.length).toBeGreaterThan(0);
        for (const url of urls)
          expect(url).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${gate.port}/(validate|mutate)$`));
        const role = await kubectl(cp, [
          'get',
          'clusterrole',
          `${name}-migrate`,
          '-o',
          'jsonpath={.rules[*].resourceNames[*]}',
        ]);
        expect(role.exitCode, role.stderr).toBe(0);
      }
      const accounts = await kubectl(cp, ['get', 'serviceaccounts', '-n', namespace, '-o', 'name']);
      expect(
        accounts.stdout
          .split('\n')
          .filter((line) => line.endsWith('-migrate'))
          .sort(),
      ).toEqual([`serviceaccount/geo-${suffix}-migrate`, `serviceaccount/toys-${suffix}-migrate`]);
    });

    it('refuses a bad GeoDatabase through the GeoDatabase install only, and admits a good one', async () => {
      const bad = invalidGeoDatabase(namespace, 'bad-geo');
      const status = await eventually('the GeoDatabase install to refuse a bad GeoDatabase', async () => {
        const attempt = await refused(
          customObjects.createNamespacedCustomObject({ ...geoDatabases, namespace, body: bad, dryRun: 'All' }),
        );
        return attempt.causes.length > 0 ? attempt : undefined;
      });
      expect(status.code).toBe(422);
      expect(status.causes.map((cause) => cause.field)).toEqual(expect.arrayContaining(invalidGeoDatabaseFields));
      expect(await loggedValidationCodes(geo().gate, `${namespace}/bad-geo`)).toContain('OBJECT_INVALID');
      expect(await validationCodes(toys().gate, `${namespace}/bad-geo`)).toEqual([]);

      const created = (await customObjects.createNamespacedCustomObject({
        ...geoDatabases,
        namespace,
        body: validGeoDatabase(namespace, 'good-geo'),
      })) as {
        spec: { readReplicas?: number };
      };
      // Defaulted by the GeoDatabase install's mutating webhook.
      expect(created.spec.readReplicas).toBe(0);
    });

    it('refuses a bad Widget through the Widget install only, and admits a good one', async () => {
      const widget = (name: string, spec: Record<string, unknown>) => ({
        apiVersion: 'toys.example.com/v1',
        kind: 'Widget',
        metadata: { name, namespace },
        spec,
      });
      const status = await eventually('the Widget install to refuse a gold Widget wider than 3', async () => {
        const attempt = await refused(
          customObjects.createNamespacedCustomObject({
            ...widgets,
            namespace,
            body: widget('bad-widget', { size: 5, color: 'gold' }),
            dryRun: 'All',
          }),
        );
        return attempt.causes.length > 0 ? attempt : undefined;
      });
      expect(status).toEqual({
        code: 422,
        causes: [expect.objectContaining({ reason: 'FieldValueInvalid', field: 'spec.size' })],
      });
      expect(await loggedValidationCodes(toys().gate, `${namespace}/bad-widget`)).toContain('OBJECT_INVALID');
      expect(await validationCodes(geo().gate, `${namespace}/bad-widget`)).toEqual([]);

      const created = (await customObjects.createNamespacedCustomObject({
        ...widgets,
        namespace,
        body: widget('good-widget', { size: 2, color: 'gold' }),
      })) as {
        metadata: { name: string };
      };
      expect(created.metadata.name).toBe('good-widget');
    });
  },
);
