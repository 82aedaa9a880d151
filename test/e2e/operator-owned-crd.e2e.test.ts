import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneControlPlane } from './provided-context.ts';
import { KubeConfig } from '@kubernetes/client-node';
import { eventually } from '../../src/local-loop/eventually.ts';
import { serverSideApply } from '../../src/local-loop/server-side-apply.ts';
import { compileContractPolicy } from '../../src/policy/compile-policy.ts';
import { renderAdmissionPolicies } from '../../src/render/admission-policy.ts';
import { startTestEnvironment, type TestEnvironment } from '../../src/testing.ts';
import { dbClusterContract, dbPoolerContract, operatorCrdFile } from './support/db-operator-contracts.ts';

// crdgate in front of kinds whose CRDs an operator's chart installs (crdOwner: 'external'): the CRDs applied as
// their owner has them, crdgate's webhooks alone in front, the state read from the operator's phase sentences and
// from its conditions, and the group's other kind untouched.

const controlPlane = laneControlPlane();

describe.skipIf('unavailable' in controlPlane)('a contract guarding an operator-owned CRD', () => {
  let env: TestEnvironment;
  const previousAssets = process.env['KUBEBUILDER_ASSETS'];
  const cluster = dbClusterContract();
  const pooler = dbPoolerContract();

  beforeAll(async () => {
    if ('unavailable' in controlPlane) return;
    process.env['KUBEBUILDER_ASSETS'] = controlPlane.assetsDir;
    env = await startTestEnvironment({ contracts: [cluster, pooler], build: false });
  });

  afterAll(async () => {
    if (previousAssets === undefined) delete process.env['KUBEBUILDER_ASSETS'];
    else process.env['KUBEBUILDER_ASSETS'] = previousAssets;
    await env?.stop();
  });

  const kubectl = async (...args: string[]) => env.kubectl(args);
  const status = (kind: string, name: string, value: object) =>
    kubectl('patch', kind, name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: value }));
  const patch = (kind: string, name: string, spec: object, annotations?: Record<string, string>) =>
    kubectl(
      'patch',
      kind,
      name,
      '--type=merge',
      '-p',
      JSON.stringify({ spec, ...(annotations ? { metadata: { annotations } } : {}) }),
    );

  it("applies the CRDs as their owner has them: crdgate's own conversion and caBundle are nowhere", async () => {
    const crd = JSON.parse((await kubectl('get', 'crd', 'dbclusters.dbops.example.com', '-o', 'json')).stdout) as {
      metadata: { annotations: Record<string, string> };
      spec: { conversion: { strategy: string } };
    };
    expect(crd.metadata.annotations['helm.sh/chart']).toBe('dbops-0.3.1');
    expect(crd.spec.conversion.strategy).toBe('None');
  });

  it('reads the phase sentences: refuses a storage shrink and a major upgrade by image tag while the cluster is healthy', async () => {
    const created = await env.kubectl(['apply', '-f', '-'], {
      stdin: JSON.stringify({
        apiVersion: 'dbops.example.com/v1',
        kind: 'DbCluster',
        metadata: { name: 'orders', namespace: 'default' },
        spec: { instances: 3, imageName: 'registry.example/pg:16.4', storage: { size: '10Gi' } },
      }),
    });
    expect(created).toMatchObject({ exitCode: 0 });
    // The operator's moves, in its words: no warning, these are the machine's moves.
    for (const phase of ['Setting up primary', 'Cluster in healthy state'])
      expect(await status('dbcluster', 'orders', { phase })).toMatchObject({ exitCode: 0, stderr: '' });

    const shrink = await patch('dbcluster', 'orders', { storage: { size: '5Gi' } });
    expect(shrink.exitCode).not.toBe(0);
    expect(shrink.stderr).toContain(
      'DbCluster.dbops.example.com "orders" cannot be changed: spec.storage.size: shrinking storage from 10Gi to 5Gi is unsupported: a volume cannot shrink',
    );
    const major = await patch('dbcluster', 'orders', { imageName: 'registry.example/pg:17.0' });
    expect(major.stderr).toContain(
      'a major upgrade from registry.example/pg:16.4 to registry.example/pg:17.0 is unsupported',
    );
    expect((await patch('dbcluster', 'orders', { storage: { size: '20Gi' } })).exitCode).toBe(0);
  });

  it('refuses an image it cannot read the version of, unless a person overrides it', async () => {
    const digest = await patch('dbcluster', 'orders', { imageName: 'registry.example/pg@sha256:0123' });
    expect(digest.exitCode).not.toBe(0);
    expect(digest.stderr).toContain(
      'changing registry.example/pg:16.4 to registry.example/pg@sha256:0123 cannot be judged: an image named by digest says nothing of its version',
    );
    const overridden = await patch(
      'dbcluster',
      'orders',
      { imageName: 'registry.example/pg@sha256:0123' },
      { 'dbops.example.com/override-transitions': 'digest of 16.4, ticket 7' },
    );
    expect(overridden.exitCode).toBe(0);
    expect(overridden.stderr).toContain('overriding an undecidable change of spec.imageName');
    // The annotation stays on the object until removed, and would let later changes through.
    expect((await kubectl('annotate', 'dbcluster', 'orders', 'dbops.example.com/override-transitions-')).exitCode).toBe(
      0,
    );
  });

  it('refuses a replica change mid-upgrade, through kubectl scale too', async () => {
    expect(await status('dbcluster', 'orders', { phase: 'Upgrading cluster' })).toMatchObject({
      exitCode: 0,
      stderr: '',
    });
    const scaled = await kubectl('scale', 'dbcluster', 'orders', '--replicas=5');
    expect(scaled.exitCode).not.toBe(0);
    expect(scaled.stderr).toContain(
      'changing instances from 3 to 5 is not allowed while the cluster is Upgrading (allowed in: Ready, Scaling)',
    );
  });

  it('warns once about a phase it does not know, and refuses spec changes in it', async () => {
    const into = await status('dbcluster', 'orders', { phase: 'Switchover in progress' });
    expect(into.stderr).toContain('status.phase: "Switchover in progress" is not a state of the DbCluster machine');
    const again = await status('dbcluster', 'orders', { phase: 'Switchover in progress', instances: 3 });
    expect(again).toMatchObject({ exitCode: 0, stderr: '' });
    const grow = await patch('dbcluster', 'orders', { storage: { size: '30Gi' } });
    expect(grow.stderr).toContain(
      'is not allowed while the cluster is in the unrecognised phase "Switchover in progress"',
    );
    // Out of it into a state the machine knows: no news, the move in was warned about.
    expect(await status('dbcluster', 'orders', { phase: 'Cluster in healthy state' })).toMatchObject({
      exitCode: 0,
      stderr: '',
    });
  });

  it("reads the pooler's state from its conditions", async () => {
    const created = await env.kubectl(['apply', '-f', '-'], {
      stdin: JSON.stringify({
        apiVersion: 'dbops.example.com/v1',
        kind: 'DbPooler',
        metadata: { name: 'rw', namespace: 'default' },
        spec: { instances: 2, mode: 'session' },
      }),
    });
    expect(created.exitCode).toBe(0);
    expect(
      await status('dbpooler', 'rw', { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] }),
    ).toMatchObject({ exitCode: 0, stderr: '' });
    expect((await patch('dbpooler', 'rw', { mode: 'transaction' })).exitCode).toBe(0);
    // The operator has not caught up with generation 2 yet: the pooler is Reconfiguring.
    const mid = await patch('dbpooler', 'rw', { instances: 4 });
    expect(mid.exitCode).not.toBe(0);
    expect(mid.stderr).toContain(
      'changing instances from 2 to 4 is not allowed while the pooler is Reconfiguring (allowed in: Ready)',
    );
  });

  it("leaves the group's other kinds alone", async () => {
    // The rest of the operator's chart: its CRDs, applied by their owner (crdgate applied the two it guards).
    expect(
      await kubectl(
        'apply',
        '--server-side',
        '--force-conflicts',
        '--field-manager=dbops-chart',
        '-f',
        operatorCrdFile,
      ),
    ).toMatchObject({ exitCode: 0 });
    expect(
      (await kubectl('wait', '--for=condition=Established', 'crd/dbbackups.dbops.example.com', '--timeout=30s'))
        .exitCode,
    ).toBe(0);
    const backup = await env.kubectl(['apply', '-f', '-'], {
      stdin: JSON.stringify({
        apiVersion: 'dbops.example.com/v1',
        kind: 'DbBackup',
        metadata: { name: 'nightly', namespace: 'default' },
        spec: { cluster: 'orders' },
      }),
    });
    expect(backup).toMatchObject({ exitCode: 0 });
  });

  it('holds the phase sentences in the policy floor too, on a CRD that bounds no phase, with crdgate gone', async () => {
    // What compiles on the owner's CRD: the replicas (an integer); its strings have no maxLength to bound the cost.
    const coverage = compileContractPolicy(cluster).coverage.changeKinds;
    expect(coverage.filter((entry) => entry.enforcedBy === 'policy').map((entry) => entry.kind)).toEqual(['scale']);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(env.kubeconfigPath);
    await serverSideApply(kubeConfig, renderAdmissionPolicies([cluster, pooler], 'crdgate'));
    // Both compile: the cluster's machine by its phase, the pooler's (whose state reader is code) what every state refuses.
    expect(
      (await kubectl('get', 'validatingadmissionpolicies', '-o', 'name')).stdout.trim().split('\n').sort(),
    ).toEqual([
      'validatingadmissionpolicy.admissionregistration.k8s.io/crdgate.dbclusters.dbops.example.com',
      'validatingadmissionpolicy.admissionregistration.k8s.io/crdgate.dbpoolers.dbops.example.com',
    ]);
    expect((await kubectl('delete', 'validatingwebhookconfiguration', 'crdgate')).exitCode).toBe(0);
    // Neither contract has defaults: there was never a mutating configuration.
    expect((await kubectl('get', 'mutatingwebhookconfiguration', 'crdgate')).stderr).toContain('NotFound');
    expect(await status('dbcluster', 'orders', { phase: 'Upgrading cluster' })).toMatchObject({ exitCode: 0 });
    const scale = (phaseNote: string) =>
      eventually(`the policy to refuse a replica change ${phaseNote}`, async () => {
        // Dry runs until the API server has picked the policy up: nothing is written before it judges.
        const changed = await kubectl(
          'patch',
          'dbcluster',
          'orders',
          '--dry-run=server',
          '--type=merge',
          '-p',
          JSON.stringify({ spec: { instances: 5 } }),
        );
        return changed.exitCode !== 0 ? changed : undefined;
      });
    const upgrading = await scale('mid-upgrade');
    expect(upgrading.stderr).toContain('ValidatingAdmissionPolicy');
    expect(upgrading.stderr).toContain(
      'spec.instances: changing instances from 3 to 5 is not allowed while the cluster is Upgrading (allowed in: Ready, Scaling)',
    );
    expect(await status('dbcluster', 'orders', { phase: 'Switchover in progress' })).toMatchObject({ exitCode: 0 });
    expect((await scale('in an unknown phase')).stderr).toContain(
      'is not allowed while the cluster is in a phase the machine does not know',
    );
    expect(await status('dbcluster', 'orders', { phase: 'Cluster in healthy state' })).toMatchObject({ exitCode: 0 });
    expect((await patch('dbcluster', 'orders', { instances: 5 })).exitCode).toBe(0);
  });
});
