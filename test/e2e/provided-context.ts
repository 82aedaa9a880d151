import { inject } from 'vitest';

// What test/e2e/global-setup.ts hands to e2e tests through vitest's provide/inject.
// Only serializable data crosses that boundary, so the control planes' stop() stays in the setup.

export interface ProvidedControlPlane {
  apiServerUrl: string;
  etcdUrl: string;
  kubeconfigPath: string;
  kubectlPath: string;
  kubeApiserverVersion: string;
  dir: string;
  /** The folder holding kube-apiserver, etcd and kubectl, for tests that start a control plane of their own. */
  assetsDir: string;
  /** kube-apiserver's audit log (JSON lines): every write at the Metadata level, audit annotations included. */
  auditLogPath: string;
}

/** Set instead when no binaries could be found or built; tests skip (the setup fails instead under CRDGATE_REQUIRE_E2E=1). */
export interface UnavailableControlPlane {
  unavailable: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** One control plane per lane (test/e2e/lanes.ts). */
    controlPlanes: ProvidedControlPlane[] | UnavailableControlPlane;
  }
}

/**
 * The control plane of the lane this test file runs in: vitest runs as many files at once as there are lanes, each in
 * a worker numbered from 1 (VITEST_POOL_ID), and the worker's number picks the lane. Two files that run at once thus
 * never share an API server, while the files of one lane run one after another, as all of them did on one.
 */
export function laneControlPlane(): ProvidedControlPlane | UnavailableControlPlane {
  const provided = inject('controlPlanes');
  if ('unavailable' in provided) return provided;
  const worker = Number(process.env['VITEST_POOL_ID'] ?? '1');
  return provided[(worker - 1) % provided.length]!;
}
