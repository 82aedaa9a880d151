import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCertDir } from '../../src/certs/cert-dir.ts';
import { main } from '../../src/cli.ts';
import { defineContract } from '../../src/contract/define-contract.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { renderCustomResourceDefinition } from '../../src/render/custom-resource-definition.ts';
import { manifestsToYaml } from '../../src/render/manifest-yaml.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { kubectl, warningLines } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

describe.skipIf(!controlPlane)('the manifests `crdgate manifests` renders, checked by the real API server', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const suffix = randomUUID().slice(0, 8);
  const namespace = `crdgate-e2e-manifests-${suffix}`;
  let workDir: string;
  let outDir: string;

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-manifests-'));
    outDir = join(workDir, 'manifests');
    const certs = await writeCertDir(join(workDir, 'certs'), {
      dnsNames: [`crdgate.${namespace}.svc`],
      ipAddresses: [],
      days: 1,
    });
    const output: string[] = [];
    const io = {
      stdout: (text: string) => output.push(text),
      stderr: (text: string) => output.push(text),
      cwd: workDir,
      waitForStop: () => new Promise<string>(() => {}),
    };
    const code = await main(
      ['manifests', '--namespace', namespace, '--ca-bundle', certs.files.caCert, '--out', outDir],
      io,
    );
    expect(code, output.join('')).toBe(0);
  });

  afterAll(async () => {
    // No controller-manager runs, so the namespace stays Terminating; its name is unique to this run.
    await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false']);
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('are all accepted under strict field validation, with no Pod Security warning', async () => {
    expect(
      (await kubectl(cp, ['apply', '--server-side', '-f', join(outDir, 'base', '00-namespace.yaml')])).exitCode,
    ).toBe(0);
    const outputs: string[] = [];
    // Server-side dry run of the kustomize base and the migration folder: the API server checks each object
    // against its schema (an unknown or misspelt field is an error), and the namespace's Pod Security label
    // makes it warn about any pod template that breaks the restricted standard.
    const dryRun = ['apply', '--server-side', '--force-conflicts', '--dry-run=server', '--validate=strict'];
    for (const source of [
      ['-k', outDir],
      ['-f', join(outDir, 'migration')],
    ]) {
      const applied = await kubectl(cp, [...dryRun, ...source]);
      expect(applied.exitCode, applied.stderr).toBe(0);
      expect(warningLines(applied)).toEqual([]);
      outputs.push(applied.stdout);
    }
    for (const kind of [
      'deployment.apps/crdgate',
      'customresourcedefinition.apiextensions.k8s.io/geodatabases.geo.example.com',
      'validatingwebhookconfiguration.admissionregistration.k8s.io/crdgate',
      'job.batch/crdgate-migrate-geodatabases',
    ]) {
      expect(outputs.join('')).toContain(kind);
    }
    expect(await readFile(join(outDir, 'base', '30-webhook-configurations.yaml'), 'utf8')).toContain(
      `namespace: ${namespace}`,
    );
  });

  it("says crdgate's own formats as CEL rules, which the API server takes without a warning and holds itself", async () => {
    // A group of its own makes the CRD new on every run, which is when the API server warns of formats it does not know.
    const base = geoDatabaseContract();
    const contract = defineContract({
      ...base,
      identity: { ...base.identity, group: `e2e-${suffix}.geo.example.com` },
    });
    const file = join(workDir, 'crd.yaml');
    await writeFile(
      file,
      manifestsToYaml([renderCustomResourceDefinition(contract, { target: { url: 'https://127.0.0.1:9443' } })]),
    );

    const created = await kubectl(cp, ['create', '--dry-run=server', '-o', 'json', '-f', file]);
    expect(created.exitCode, created.stderr).toBe(0);
    expect(warningLines(created)).toEqual([]);
    const stored = JSON.parse(created.stdout);
    const size = stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.storage.properties.size;
    expect(size).not.toHaveProperty('format');
    expect(size['x-kubernetes-validations']).toEqual([
      { rule: 'isQuantity(self)', message: 'must be a Kubernetes quantity such as 500m, 64Mi, 2Gi or 1.5e3' },
    ]);
  });
});
