import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The wrapper go.mod files are the one place the control-plane versions are pinned; everything
// else (cache folder names, ldflags, reported versions) is read from them.

// Through src/ from src/control-plane/ and dist/control-plane/ alike: the package ships the go.mod files there.
export const KUBE_MODULE_DIR = fileURLToPath(new URL('../../src/control-plane/go/kube/', import.meta.url));
export const ETCD_MODULE_DIR = fileURLToPath(new URL('../../src/control-plane/go/etcd/', import.meta.url));
export const HELM_MODULE_DIR = fileURLToPath(new URL('../../src/control-plane/go/helm/', import.meta.url));
export const OLM_VALIDATE_MODULE_DIR = fileURLToPath(
  new URL('../../src/control-plane/go/olm-validate/', import.meta.url),
);

export interface ControlPlaneVersions {
  kubernetes: string; // v1.36.4
  etcd: string; // v3.6.16
}

export function readControlPlaneVersions(): ControlPlaneVersions {
  return {
    kubernetes: requiredVersion(KUBE_MODULE_DIR, 'k8s.io/kubernetes'),
    etcd: requiredVersion(ETCD_MODULE_DIR, 'go.etcd.io/etcd/server/v3'),
  };
}

/** The helm the chart's tests run (v4.3.1): built from its own wrapper module, apart from the control plane's. */
export function readHelmVersion(): string {
  return requiredVersion(HELM_MODULE_DIR, 'helm.sh/helm/v4');
}

/** The operator-framework/api whose bundle validators the OLM bundle's tests run (v0.45.0). */
export function readOperatorFrameworkApiVersion(): string {
  return requiredVersion(OLM_VALIDATE_MODULE_DIR, 'github.com/operator-framework/api');
}

function requiredVersion(moduleDir: string, modulePath: string): string {
  const goMod = readFileSync(`${moduleDir}go.mod`, 'utf8');
  const escaped = modulePath.replaceAll('.', '\\.');
  const version = new RegExp(`^\\s*(?:require\\s+)?${escaped}\\s+(v\\S+)`, 'm').exec(goMod)?.[1];
  if (!version) throw new Error(`${moduleDir}go.mod does not require ${modulePath}`);
  return version;
}
