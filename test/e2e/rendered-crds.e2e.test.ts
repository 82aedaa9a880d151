import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../../src/admission/scalable-geodatabase.fixture.ts';
import type { Contract } from '../../src/contract/contract-definition.ts';
import { describeFormat } from '../../src/contract/schema/kubernetes-formats.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { toyContract } from '../../src/conversion/toy-contract.fixture.ts';
import { messageBrokerContract } from '../../src/policy/message-broker.fixture.ts';
import { clusterWidgetContract } from '../../src/render/cluster-widget-contract.fixture.ts';
import { renderCustomResourceDefinition, renderOwnerCrd } from '../../src/render/custom-resource-definition.ts';
import type { Manifest } from '../../src/render/manifest.ts';
import { scaffoldProject } from '../../src/scaffold/scaffold-project.ts';
import { scaffoldNames } from '../../src/scaffold/scaffold-names.ts';
import { importingSource } from '../repo/guide-examples.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import {
  dbClusterContract,
  dbClusterTwoVersionContract,
  declarativeDbPoolerContract,
} from './support/db-operator-contracts.ts';
import { expectStatus, installCrd, removeCrd, restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

// Every CRD crdgate renders, applied to a real kube-apiserver v1.36: the built-in example, the contracts of the
// tests' fixtures, the CRDs `crdgate init` scaffolds, and the operators' CRDs crdgate renders for a local cluster.
// None draws a warning: crdgate's own formats (quantity, dns1123-label) are CEL rules there, which the API server
// knows. And the API server alone, no crdgate in front of it, then refuses what it used to store: a size of 50GB
// and a cache named Tiles_1, in crdgate's words.

const fieldManager = 'crdgate-e2e-rendered-crds';
const endpoint = { target: { url: 'https://127.0.0.1:1' } };

/** The CRD in a group of its own (`id`): a new CRD every run, which is when the API server warns. */
function ofItsOwn(crd: Manifest, id: string): Manifest {
  const spec = crd['spec'] as { group: string; names: { plural: string }; conversion?: unknown };
  const group = `r${id}.${spec.group}`;
  // No crdgate answers conversions here; what is applied is the CRD's schema.
  return {
    ...crd,
    metadata: { ...crd.metadata, name: `${spec.names.plural}.${group}` },
    spec: { ...spec, group, conversion: { strategy: 'None' } },
  };
}

/** The contract that `crdgate init` scaffolds for these versions, loaded from its generated source. */
async function scaffolded(
  dir: string,
  kind: string,
  versions: string[],
  scope: 'Namespaced' | 'Cluster',
  storage = versions.at(-1)!,
): Promise<Contract> {
  const names = scaffoldNames('scaffold.example.com', kind);
  const files = scaffoldProject(
    names,
    { scope, versions, hub: versions.at(-1)!, storage },
    { crdgate: '0.1.0', node: '24', typescript: '5', typesNode: '24', fastCheck: '4' },
  );
  const project = join(dir, kind);
  for (const file of files.filter(
    (candidate) => candidate.path.startsWith('src/') && !candidate.path.endsWith('.test.ts'),
  )) {
    await mkdir(dirname(join(project, file.path)), { recursive: true });
    await writeFile(join(project, file.path), importingSource(file.content));
  }
  const module = (await import(pathToFileURL(join(project, 'src', 'contract.ts')).href)) as { default: () => Contract };
  return module.default();
}

describe.skipIf(!controlPlane)('the CRDs crdgate renders, applied to kube-apiserver', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const runId = randomUUID().slice(0, 8);
  let api: Rest | undefined;
  const rest = () => api ?? (api = restClient(cp.kubeconfigPath));
  let dir: string;
  const installed: Manifest[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-rendered-crds-'));
  });

  afterAll(async () => {
    if (api !== undefined) {
      for (const crd of installed) await removeCrd(api, crd);
      api.close();
    }
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const rendered = async (): Promise<[string, Manifest][]> => [
    ...[
      geoDatabaseContract(),
      scalableGeoDatabaseContract(),
      messageBrokerContract(),
      clusterWidgetContract(),
      toyContract(),
    ].map((contract): [string, Manifest] => [
      `${contract.identity.kind} (crdgate's own CRD)`,
      renderCustomResourceDefinition(contract, endpoint),
    ]),
    ...[dbClusterContract(), dbClusterTwoVersionContract(), declarativeDbPoolerContract()].map(
      (contract): [string, Manifest] => [`${contract.identity.kind} (an operator's CRD)`, renderOwnerCrd(contract)!],
    ),
    ...(
      await Promise.all([
        scaffolded(dir, 'Bucket', ['v1'], 'Namespaced'),
        scaffolded(dir, 'Queue', ['v1alpha1', 'v1beta1', 'v1'], 'Namespaced'),
        scaffolded(dir, 'Tenant', ['v1'], 'Cluster'),
        // init --storage v1alpha1: a kind already stored in its older version, the hub v1.
        scaffolded(dir, 'Cache', ['v1alpha1', 'v1'], 'Namespaced', 'v1alpha1'),
      ])
    ).map((contract): [string, Manifest] => [
      `${contract.identity.kind} (crdgate init's)`,
      renderCustomResourceDefinition(contract, endpoint),
    ]),
  ];

  it('draws no warning from the API server, for any of them', { timeout: 240_000 }, async () => {
    const crds = await rendered();
    expect(crds.length).toBe(12);
    const [, cache] = crds.find(([name]) => name.startsWith('Cache '))!;
    expect(
      (cache['spec'] as { versions: { name: string; storage: boolean }[] }).versions.map((v) => [v.name, v.storage]),
    ).toEqual([
      ['v1alpha1', true],
      ['v1', false],
    ]);
    const warnings: Record<string, string[]> = {};
    for (const [index, [name, crd]] of crds.entries()) {
      // Each in a group of its own: two contracts here render geodatabases.
      const own = ofItsOwn(crd, `${runId}${index}`);
      installed.push(own);
      warnings[name] = await installCrd(rest(), own, fieldManager);
    }
    expect(warnings).toEqual(Object.fromEntries(crds.map(([name]) => [name, []])));
  });

  it(
    "refuses a size of 50GB and a cache named Tiles_1 by itself, in crdgate's words",
    { timeout: 120_000 },
    async () => {
      const crd = ofItsOwn(renderCustomResourceDefinition(geoDatabaseContract(), endpoint), `${runId}x`);
      installed.push(crd);
      expect(await installCrd(rest(), crd, fieldManager)).toEqual([]);
      const group = (crd['spec'] as { group: string }).group;
      const namespace = `rendered-crds-${runId}`;
      await rest()
        .send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
        .then(expectStatus(201));
      const geoDatabase = (name: string, spec: Record<string, unknown>) => ({
        apiVersion: `${group}/v1`,
        kind: 'GeoDatabase',
        metadata: { name, namespace },
        spec: { postgres: { version: '16.4', postgis: '3.4.2' }, storage: { size: '20Gi' }, ...spec },
      });
      const collection = `/apis/${group}/v1/namespaces/${namespace}/geodatabases`;
      try {
        const refused = await rest().send(
          'POST',
          collection,
          geoDatabase('broken', { storage: { size: '50GB' }, caches: [{ name: 'Tiles_1', memory: '1Gi' }] }),
        );
        expect(refused.status).toBe(422);
        const causes = (
          (refused.body as { details?: { causes?: { field: string; message: string }[] } }).details?.causes ?? []
        ).map((cause) => `${cause.field}: ${cause.message}`);
        expect(causes.sort()).toEqual(
          [
            `spec.caches[0].name: Invalid value: "Tiles_1": must be ${describeFormat('dns1123-label')}`,
            `spec.storage.size: Invalid value: "50GB": must be ${describeFormat('quantity')}`,
          ].sort(),
        );
        // A valid one is stored: the rules refuse no quantity or name crdgate takes.
        await rest()
          .send(
            'POST',
            collection,
            geoDatabase('valid', { storage: { size: '1.5Gi' }, caches: [{ name: 'tiles-1', memory: '512Mi' }] }),
          )
          .then(expectStatus(201));
      } finally {
        await rest()
          .send('DELETE', `/api/v1/namespaces/${namespace}`)
          .then(expectStatus(200, 202, 404));
      }
    },
  );
});
