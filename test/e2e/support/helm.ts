import { execFile } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import type { ProvidedControlPlane } from '../provided-context.ts';
import type { KubectlResult } from './kubectl.ts';

/**
 * Runs helm (src/control-plane/helm-binary.ts) against the control plane as the admin user, with its caches and
 * configuration in `home` (a test's own folder: nothing of the machine's helm is read or written). A failing
 * command resolves too: tests assert its output.
 */
export function helm(
  helmPath: string,
  home: string,
  controlPlane: ProvidedControlPlane | undefined,
  args: string[],
): Promise<KubectlResult> {
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: home,
    HELM_CACHE_HOME: `${home}/cache`,
    HELM_CONFIG_HOME: `${home}/config`,
    HELM_DATA_HOME: `${home}/data`,
    ...(controlPlane !== undefined ? { KUBECONFIG: controlPlane.kubeconfigPath } : {}),
  };
  return new Promise((resolve, reject) => {
    execFile(helmPath, args, { env, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ exitCode: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The objects of a multi-document YAML stream (helm template, kubectl kustomize), empty documents left out. */
export function yamlObjects(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
}

/**
 * Objects by kind, namespace and name, as the API server would hold them apart; the annotations that only tell
 * helm what to do (keep on uninstall, run as a hook) are dropped, and so is the Namespace, which a chart leaves to
 * `helm install --create-namespace`.
 */
export function comparable(objects: readonly KubeObject[]): Map<string, KubeObject> {
  const byKey = new Map<string, KubeObject>();
  for (const object of objects) {
    if (object.kind === 'Namespace') continue;
    const copy = structuredClone(object);
    const annotations = Object.entries(copy.metadata.annotations ?? {}).filter(([key]) => !key.startsWith('helm.sh/'));
    if (annotations.length > 0) copy.metadata.annotations = Object.fromEntries(annotations);
    else delete copy.metadata.annotations;
    const key = `${copy.kind}/${copy.metadata.namespace ?? ''}/${copy.metadata.name}`;
    if (byKey.has(key)) throw new Error(`${key} is rendered twice`);
    byKey.set(key, copy);
  }
  return new Map([...byKey].sort(([a], [b]) => a.localeCompare(b)));
}
