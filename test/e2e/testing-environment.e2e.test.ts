import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneControlPlane } from './provided-context.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { contractTester, KubeApiError, startTestEnvironment, type TestEnvironment } from '../../src/testing.ts';
import { validGeoDatabase } from './support/geodatabases.ts';

// `crdgate/testing` as a user's vitest suite uses it: a control plane of its own, the contract in front of it.

const controlPlane = laneControlPlane();

function portOf(url: string): number {
  return Number(new URL(url).port);
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe.skipIf('unavailable' in controlPlane)('startTestEnvironment', () => {
  let env: TestEnvironment;
  const contract = geoDatabaseContract();
  const previousAssets = process.env['KUBEBUILDER_ASSETS'];

  beforeAll(async () => {
    if ('unavailable' in controlPlane) return;
    // Found the way a user's suite finds them (setup-envtest's variable), never built here.
    process.env['KUBEBUILDER_ASSETS'] = controlPlane.assetsDir;
    env = await startTestEnvironment({ contracts: contract, build: false });
  });

  afterAll(async () => {
    if (previousAssets === undefined) delete process.env['KUBEBUILDER_ASSETS'];
    else process.env['KUBEBUILDER_ASSETS'] = previousAssets;
    await env?.stop();
  });

  it('admits, defaults and refuses through the real API server', async () => {
    const created = (await env.client.create(validGeoDatabase(env.namespace, 'tiles'))) as {
      spec: { readReplicas?: number };
    };
    expect(created.spec.readReplicas).toBe(0);

    // The operator's part: once it reports the database Ready, the FSA guards its spec.
    for (const phase of ['Provisioning', 'Ready']) {
      const moved = await env.kubectl([
        'patch',
        'geodatabase',
        'tiles',
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { phase } }),
      ]);
      expect(moved).toMatchObject({ exitCode: 0, stderr: '' });
    }
    const tiles = {
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name: 'tiles', namespace: env.namespace },
    };
    const refused = await env.client
      .mergePatch(tiles, { spec: { storage: { size: '10Gi' } } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(KubeApiError);
    expect((refused as KubeApiError).code).toBe(403);
    expect((refused as KubeApiError).status.message).toContain('shrinking storage from 20Gi to 10Gi');
    expect((refused as KubeApiError).status.message).toContain('volumes cannot shrink');
  });

  it('reads an object through another version, converted by the same crdgate', async () => {
    const stored = await env.client.read({
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name: 'tiles', namespace: env.namespace },
    });
    const older = await env.client.read({
      apiVersion: 'geo.example.com/v1beta1',
      kind: 'GeoDatabase',
      metadata: { name: 'tiles', namespace: env.namespace },
    });
    expect(older.apiVersion).toBe('geo.example.com/v1beta1');
    // What the API server got from the webhook is what the contract converts to offline.
    const offline = contractTester(contract).convert(stored, 'geo.example.com/v1beta1');
    expect(older.spec).toEqual(offline.spec);
  });

  it('runs kubectl with its kubeconfig', async () => {
    const listed = await env.kubectl(['get', 'geodatabases', '-o', 'name']);
    expect(listed).toMatchObject({ exitCode: 0, stdout: 'geodatabase.geo.example.com/tiles\n' });
  });

  it('stops crdgate and the API server', async () => {
    const ports = [portOf(env.apiServerUrl), portOf(env.crdgateUrl)];
    expect(await Promise.all(ports.map(accepts))).toEqual([true, true]);
    await env.stop();
    expect(await Promise.all(ports.map(accepts))).toEqual([false, false]);
  });
});
