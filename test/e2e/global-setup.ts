import type { TestProject } from 'vitest/node';
import { startControlPlane } from '../../src/control-plane/control-plane.ts';
import { resolveKubeAssets } from '../../src/control-plane/kube-assets.ts';
import { missingPrerequisite } from '../missing-prerequisite.ts';
import type { ProvidedControlPlane } from './provided-context.ts';

// One control plane for the whole e2e project: starting kube-apiserver takes seconds, so files
// share it and keep out of each other's way with their own namespaces and resource names.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const say = (line: string): void => {
    process.stderr.write(`[e2e] ${line}\n`);
  };
  const assets = await resolveKubeAssets({ build: true, log: (line) => say(`kube-bin: ${line}`) });
  if ('unavailable' in assets) {
    missingPrerequisite('the e2e tests (no kube-apiserver, etcd and kubectl)', assets.unavailable);
    project.provide('controlPlane', { unavailable: assets.unavailable });
    return async () => {};
  }

  const controlPlane = await startControlPlane({ assetsDir: assets.dir, log: say });
  const etcdVersion = await fetch(`${controlPlane.etcdUrl}/version`)
    .then(async (response) => ((await response.json()) as { etcdserver?: string }).etcdserver ?? 'unknown')
    .catch(() => 'unknown');
  say(`control plane: kube-apiserver ${controlPlane.kubeApiserverVersion}, etcd v${etcdVersion}, at ${controlPlane.apiServerUrl} (logs in ${controlPlane.dir})`);
  const provided: ProvidedControlPlane = {
    apiServerUrl: controlPlane.apiServerUrl,
    etcdUrl: controlPlane.etcdUrl,
    kubeconfigPath: controlPlane.kubeconfigPath,
    kubectlPath: controlPlane.kubectlPath,
    kubeApiserverVersion: controlPlane.kubeApiserverVersion,
    dir: controlPlane.dir,
    assetsDir: assets.dir,
  };
  project.provide('controlPlane', provided);
  return () => controlPlane.stop();
}
