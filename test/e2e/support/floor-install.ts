import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli-runner.fixture.ts';
import type { ProvidedControlPlane } from '../provided-context.ts';
import { createCrdgateProcess, removeCrdgateProcess, type CrdgateProcess } from './crdgate-restartable-process.ts';
import { kubectl, type KubectlResult, crdNotBeingDeleted } from './kubectl.ts';

// The GeoDatabase install the policy-floor files share: crdgate serving as a process of its own on 127.0.0.1, the
// manifests a user renders for it (`crdgate manifests --url ... --ca-bundle ... --out DIR`), and what removes them.

const crdName = 'geodatabases.geo.example.com';

export interface RenderedInstall {
  gate: CrdgateProcess;
  workDir: string;
  /** The tree `crdgate manifests --out` wrote: the base, and overlays/policy-floor beside it. */
  tree: string;
  /** What crdgate manifests said on stderr: the policy floor's summary. */
  stderr: string;
}

/** What a file adds to the install: `crdgate serve`'s arguments (more contracts, a kubeconfig) and `crdgate manifests`'s (the same contracts, settings). */
export interface InstallArgs {
  serve?: string[];
  manifests?: string[];
}

/**
 * Starts crdgate, renders its manifests under `installName`, makes the test's namespace, and waits until the CRD of
 * the file before is gone (its instances are deleted first; applying to it would fail).
 */
export async function renderGeoDatabaseInstall(
  cp: ProvidedControlPlane,
  installName: string,
  namespace: string,
  args: InstallArgs = {},
): Promise<RenderedInstall> {
  const workDir = await mkdtemp(join(tmpdir(), `crdgate-e2e-${installName}-`));
  const tree = join(workDir, 'deploy');
  const created = await kubectl(cp, ['create', 'namespace', namespace]);
  if (created.exitCode !== 0) throw new Error(`kubectl create namespace ${namespace}: ${created.stderr}`);
  const gate = await createCrdgateProcess(args.serve);
  await gate.start();
  const rendered = await runCli(
    workDir,
    'manifests',
    '--url',
    `https://127.0.0.1:${gate.port}`,
    '--ca-bundle',
    join(gate.certDir, 'ca.crt'),
    '--name',
    installName,
    '--out',
    tree,
    ...(args.manifests ?? []),
  );
  if (rendered.code !== 0) throw new Error(`crdgate manifests exited ${rendered.code}: ${rendered.stderr}`);
  await crdNotBeingDeleted(cp, crdName);
  return { gate, workDir, tree, stderr: rendered.stderr };
}

/**
 * Webhooks and policies first, so that no later write of a GeoDatabase is sent to a crdgate that is gone; the CRD
 * names this crdgate for conversion, so it goes too (its objects with it), then crdgate, the namespace and the
 * files. Resolves with the CRD's deletion: left behind, a CRD naming a crdgate that is gone for conversion would
 * break the next file's reads.
 */
export async function removeGeoDatabaseInstall(
  cp: ProvidedControlPlane,
  installName: string,
  namespace: string,
  install: Partial<RenderedInstall>,
): Promise<KubectlResult> {
  const policyName = `${installName}.${crdName}`;
  await kubectl(cp, [
    'delete',
    '--ignore-not-found',
    `validatingwebhookconfiguration/${installName}`,
    `mutatingwebhookconfiguration/${installName}`,
    `validatingadmissionpolicybinding/${policyName}`,
    `validatingadmissionpolicy/${policyName}`,
    `mutatingadmissionpolicybinding/${policyName}`,
    `mutatingadmissionpolicy/${policyName}`,
  ]);
  const crdDeleted = await kubectl(cp, [
    'delete',
    '--ignore-not-found',
    '--wait=true',
    '--timeout=60s',
    `crd/${crdName}`,
  ]);
  if (install.gate) await removeCrdgateProcess(install.gate);
  // No controller-manager runs, so the namespace stays Terminating; its name is unique to this run.
  await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
  if (install.workDir) await rm(install.workDir, { recursive: true, force: true });
  return crdDeleted;
}
