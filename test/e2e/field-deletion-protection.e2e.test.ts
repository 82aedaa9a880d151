import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../src/local-loop/eventually.ts';
import { serverSideApply } from '../../src/local-loop/server-side-apply.ts';
import { compileContractPolicy } from '../../src/policy/compile-policy.ts';
import { renderAdmissionPolicies } from '../../src/render/admission-policy.ts';
import { defineContract, fieldDeletionRule, fromCrd, readCrdFile, type Contract } from '../../src/index.ts';
import { startTestEnvironment, type TestEnvironment } from '../../src/testing.ts';
import { laneControlPlane } from './provided-context.ts';
import { operatorCrdFile } from './support/db-operator-contracts.ts';

// A deletion protection in the spec, as many operators' kinds have one (`spec.deletionProtection: true`), written as
// data: crdgate's webhook refuses the DELETE, and so does the ValidatingAdmissionPolicy it renders once crdgate is
// gone, in the same words; the command those words give lifts the protection, run as they give it.

const controlPlane = laneControlPlane();

/** The operator's DbCluster CRD, a release of which adds `spec.deletionProtection`. */
function protectedClusterContract(): Contract {
  const crd = structuredClone(readCrdFile(operatorCrdFile, { name: 'dbclusters.dbops.example.com' })) as Record<
    string,
    any
  >;
  crd['spec'].versions[0].schema.openAPIV3Schema.properties.spec.properties.deletionProtection = { type: 'boolean' };
  return defineContract({
    ...fromCrd(crd, { crdOwner: 'external' }),
    deletionRules: [fieldDeletionRule({ field: 'spec.deletionProtection', equals: true })],
  });
}

/** The kubectl arguments of the command a refusal names to lift the protection. */
function liftingCommand(stderr: string): string[] {
  const found = /first lift the protection: kubectl (patch \S+ \S+(?: -n \S+)?) --type merge -p '([^']+)'/.exec(stderr);
  if (found === null) throw new Error(`no lifting command in: ${stderr}`);
  return [...found[1]!.split(' '), '--type', 'merge', '-p', found[2]!];
}

describe.skipIf('unavailable' in controlPlane)('a deletion protection held in the spec', () => {
  let env: TestEnvironment;
  const previousAssets = process.env['KUBEBUILDER_ASSETS'];
  const contract = protectedClusterContract();

  beforeAll(async () => {
    if ('unavailable' in controlPlane) return;
    process.env['KUBEBUILDER_ASSETS'] = controlPlane.assetsDir;
    env = await startTestEnvironment({ contracts: [contract], build: false });
  });

  afterAll(async () => {
    if (previousAssets === undefined) delete process.env['KUBEBUILDER_ASSETS'];
    else process.env['KUBEBUILDER_ASSETS'] = previousAssets;
    await env?.stop();
  });

  const kubectl = (...args: string[]) => env.kubectl(args);
  const create = (name: string, spec: Record<string, unknown>) =>
    env.kubectl(['create', '-f', '-'], {
      stdin: JSON.stringify({
        apiVersion: 'dbops.example.com/v1',
        kind: 'DbCluster',
        metadata: { name, namespace: 'default' },
        spec: { instances: 1, ...spec },
      }),
    });
  const expectedMessage = (name: string) =>
    contract.deletionRules![0]!({
      apiVersion: 'dbops.example.com/v1',
      kind: 'DbCluster',
      metadata: { name, namespace: 'default' },
      spec: { deletionProtection: true },
    })!;

  it('crdgate up: refuses the DELETE of a protected object, and the command it names lifts the protection', async () => {
    for (const [name, spec] of [
      ['kept', { deletionProtection: true }],
      ['unset', {}],
      ['off', { deletionProtection: false }],
    ] as const)
      expect(await create(name, spec)).toMatchObject({ exitCode: 0 });
    for (const name of ['unset', 'off']) expect((await kubectl('delete', 'dbcluster', name)).exitCode).toBe(0);

    const refused = await kubectl('delete', 'dbcluster', 'kept');
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stderr).toContain('admission webhook "validate.dbclusters.dbops.example.com" denied the request');
    expect(refused.stderr).toContain(expectedMessage('kept'));
    expect((await kubectl('get', 'dbcluster', 'kept', '-o', 'jsonpath={.spec.deletionProtection}')).stdout).toBe(
      'true',
    );

    expect(await kubectl(...liftingCommand(refused.stderr))).toMatchObject({ exitCode: 0 });
    expect((await kubectl('delete', 'dbcluster', 'kept')).exitCode).toBe(0);
  });

  it('crdgate gone: the policy floor refuses it in the same words, and the same command lifts it', async () => {
    expect(compileContractPolicy(contract).coverage.deletionRules).toEqual([
      { rule: 'spec.deletionProtection=true', enforcedBy: 'policy' },
    ]);
    expect(await create('vault', { deletionProtection: true })).toMatchObject({ exitCode: 0 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(env.kubeconfigPath);
    await serverSideApply(kubeConfig, renderAdmissionPolicies([contract], 'crdgate'));
    expect((await kubectl('delete', 'validatingwebhookconfiguration', 'crdgate')).exitCode).toBe(0);

    const refused = await eventually('the policy to refuse the protected DELETE', async () => {
      // Dry runs until the API server has picked the policy up: nothing is deleted before it judges.
      const attempt = await kubectl('delete', 'dbcluster', 'vault', '--dry-run=server');
      return attempt.exitCode !== 0 ? attempt : undefined;
    });
    expect(refused.stderr).toContain("ValidatingAdmissionPolicy 'crdgate.dbclusters.dbops.example.com'");
    expect(refused.stderr).toContain(expectedMessage('vault'));

    expect(await kubectl(...liftingCommand(refused.stderr))).toMatchObject({ exitCode: 0 });
    expect((await kubectl('delete', 'dbcluster', 'vault')).exitCode).toBe(0);
    expect((await kubectl('get', 'dbcluster', 'vault')).stderr).toContain('NotFound');
  });
});
