// What test/e2e/global-setup.ts hands to e2e tests through vitest's provide/inject.
// Only serializable data crosses that boundary, so the control plane's stop() stays in the setup.

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
    controlPlane: ProvidedControlPlane | UnavailableControlPlane;
  }
}
