import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startControlPlane } from '../../src/control-plane/control-plane.ts';
import { resolveKubeAssets } from '../../src/control-plane/kube-assets.ts';
import { missingPrerequisite } from '../missing-prerequisite.ts';
import { TOOLS_BUILD_STEP } from '../tools/suite-tools.ts';
import { e2eLanes } from './lanes.ts';
import type { ProvidedControlPlane } from './provided-context.ts';

// One control plane per lane (lanes.ts) for the whole e2e project: starting kube-apiserver takes seconds, so the
// files of a lane share it and keep out of each other's way with their own namespaces and resource names.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const say = (line: string): void => {
    process.stderr.write(`[e2e] ${line}\n`);
  };
  // Built by test/tools/tools-setup.ts, which runs first.
  const assets = await resolveKubeAssets({ build: false, buildStep: TOOLS_BUILD_STEP });
  if ('unavailable' in assets) {
    missingPrerequisite('the e2e tests (no kube-apiserver, etcd and kubectl)', assets.unavailable);
    project.provide('controlPlanes', { unavailable: assets.unavailable });
    return async () => {};
  }
  const lanes = e2eLanes();
  const started = await Promise.allSettled(
    Array.from({ length: lanes }, (_, lane) => startLane(lane, assets.dir, (line) => say(`lane ${lane + 1}: ${line}`))),
  );
  const stopAll = () =>
    Promise.all(started.map((lane) => (lane.status === 'fulfilled' ? lane.value.stop() : undefined))).then(() => {});
  const failed = started.find((lane) => lane.status === 'rejected');
  if (failed) {
    await stopAll();
    throw failed.reason;
  }
  project.provide(
    'controlPlanes',
    started.map((lane) => (lane as PromiseFulfilledResult<Lane>).value.provided),
  );
  return stopAll;
}

interface Lane {
  provided: ProvidedControlPlane;
  stop: () => Promise<void>;
}

async function startLane(lane: number, assetsDir: string, say: (line: string) => void): Promise<Lane> {
  // Writes are audited at the Metadata level, which records the audit annotations webhooks return (crdgate's
  // override record): a test reads them where an operator's audit pipeline would.
  const auditDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-audit-'));
  const auditLogPath = join(auditDir, 'audit.log');
  await writeFile(join(auditDir, 'policy.yaml'), auditPolicy);
  const controlPlane = await startControlPlane({
    assetsDir,
    log: say,
    extraApiServerFlags: [
      `--audit-policy-file=${join(auditDir, 'policy.yaml')}`,
      `--audit-log-path=${auditLogPath}`,
      '--audit-log-mode=blocking',
      // ClusterIPs apart from the other lanes': a test that plays kube-proxy puts a Service's ClusterIP on this
      // machine's loopback interface.
      `--service-cluster-ip-range=10.0.${lane}.0/24`,
    ],
  });
  const etcdVersion = await fetch(`${controlPlane.etcdUrl}/version`)
    .then(async (response) => ((await response.json()) as { etcdserver?: string }).etcdserver ?? 'unknown')
    .catch(() => 'unknown');
  say(
    `control plane: kube-apiserver ${controlPlane.kubeApiserverVersion}, etcd v${etcdVersion}, at ${controlPlane.apiServerUrl} (logs in ${controlPlane.dir})`,
  );
  return {
    provided: {
      apiServerUrl: controlPlane.apiServerUrl,
      etcdUrl: controlPlane.etcdUrl,
      kubeconfigPath: controlPlane.kubeconfigPath,
      kubectlPath: controlPlane.kubectlPath,
      kubeApiserverVersion: controlPlane.kubeApiserverVersion,
      dir: controlPlane.dir,
      assetsDir,
      auditLogPath,
    },
    stop: async () => {
      await controlPlane.stop();
      await rm(auditDir, { recursive: true, force: true });
    },
  };
}

const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    verbs: [create, update, patch, delete]
  - level: None
`;
