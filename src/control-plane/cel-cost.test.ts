import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { effectiveVersions } from './go/sync-go-mod.ts';
import { estimatePolicyCosts, type CelCostReport } from './cel-cost.ts';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'crdgate-cel-cost-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

// A stand-in for celcost: keeps what it was given, answers with a fixed report and exit status. The real one is
// exercised against a real API server by test/e2e/policy-budgets.e2e.test.ts.
async function fakeEstimator(script: string): Promise<string> {
  const path = join(base, 'celcost');
  await writeFile(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o755);
  return path;
}

const report = (ok: boolean): CelCostReport => ({
  estimator: { 'k8s.io/apiserver': 'v0.36.4' },
  limits: { perCallLimit: 1_000_000, runtimeCELCostBudget: 10_000_000 },
  policies: [{ name: 'p', expressions: [], typeCheckingWarnings: [], problems: ok ? [] : ['too costly'], ok }],
  ok,
});

describe('estimatePolicyCosts', () => {
  it('hands celcost the manifests as YAML documents on stdin and returns its report', async () => {
    const estimator = await fakeEstimator(`cat > "${base}/input"; printf '%s' '${JSON.stringify(report(true))}'`);
    const manifests = [
      {
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'p' },
        spec: { validations: [{ expression: "object.spec.x != 'a\\nb'" }] },
      },
      { kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' } },
    ];
    expect(await estimatePolicyCosts(estimator, manifests)).toEqual(report(true));
    const documents = parseAllDocuments(await readFile(join(base, 'input'), 'utf8'));
    expect(documents.map((document) => document.toJS())).toEqual(manifests);
  });

  it('returns the report of a policy that fails the estimate (exit status 1) rather than throwing', async () => {
    const estimator = await fakeEstimator(`cat > /dev/null; printf '%s' '${JSON.stringify(report(false))}'; exit 1`);
    expect(await estimatePolicyCosts(estimator, [])).toMatchObject({
      ok: false,
      policies: [{ problems: ['too costly'] }],
    });
  });

  it('throws with what celcost said when it cannot read its input', async () => {
    const estimator = await fakeEstimator(
      `echo 'celcost: no ValidatingAdmissionPolicy among the documents' >&2; exit 2`,
    );
    await expect(estimatePolicyCosts(estimator, [{ kind: 'ConfigMap' }])).rejects.toThrow(
      /exit 2\): celcost: no ValidatingAdmissionPolicy among the documents/,
    );
  });

  it('throws when celcost exits 0 without a JSON report', async () => {
    const estimator = await fakeEstimator('cat > /dev/null; echo not json');
    await expect(estimatePolicyCosts(estimator, [])).rejects.toThrow(/exited 0 without a JSON report/);
  });
});

describe("celcost's go.mod", () => {
  const goMod = (dir: string) => readFile(fileURLToPath(new URL(`./go/${dir}/go.mod`, import.meta.url)), 'utf8');

  it('builds with the very module versions kube-apiserver is built with, so it judges CEL as the API server does', async () => {
    const kube = effectiveVersions(await goMod('kube'));
    const celcost = effectiveVersions(await goMod('celcost'));
    const stagingVersion = kube.get('k8s.io/kubernetes')!.replace(/^v1\./, 'v0.');
    for (const module of ['k8s.io/apiserver', 'k8s.io/apiextensions-apiserver', 'k8s.io/apimachinery', 'k8s.io/api'])
      expect(celcost.get(module), module).toBe(stagingVersion);
    expect(celcost.get('github.com/google/cel-go')).toBeDefined();
    const differing = [...celcost].filter(([module, version]) => kube.get(module) !== version);
    expect(differing, 'modules celcost builds at another version than ../kube (run sync-go-mod.ts)').toEqual([]);
  });
});
