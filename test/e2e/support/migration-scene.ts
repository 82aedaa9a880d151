import { laneControlPlane, type ProvidedControlPlane } from '../provided-context.ts';
import { useCrdgateInFront, type CrdgateScene } from './crdgate-in-front.ts';
import {
  applyCrdVersions,
  createGeoDatabases,
  createNamespaces,
  storedApiVersion,
  storedGeoDatabases,
  type VersionFlags,
} from './storage-migration.ts';

const provided = laneControlPlane();
/** The control plane every e2e file shares, or undefined where none could be had: the migration files then skip. */
export const sharedControlPlane: ProvidedControlPlane | undefined = 'unavailable' in provided ? undefined : provided;

export interface MigrationScene {
  cp: ProvidedControlPlane;
  scene: () => CrdgateScene;
  /** The admin's `--kubeconfig`, for runMigrate. */
  kubeconfig: string[];
  /** Applies the CRD with this storage version (and versions unserved or removed); resolves once the API server acts on it. */
  setVersions: (storage: string, flags?: Omit<VersionFlags, 'storage'>) => Promise<void>;
  /** Objects stored in v1beta1 while v1 is the storage version (what a migration is for), in new namespaces. */
  objectsToMigrate: (
    prefix: string,
    namespaceCount: number,
    perNamespace: number,
    options?: { inFlight?: number },
  ) => Promise<string[]>;
  /** The apiVersion each GeoDatabase of the namespaces is stored in, as etcd holds it. */
  storedIn: (namespaces: string[]) => Promise<string[]>;
}

/**
 * The setting of a migration e2e file, inside its describe (skipped without sharedControlPlane): crdgate in front of
 * the shared API server, in a namespace named from `prefix`, and the steps every such file takes.
 */
export function useMigrationScene(prefix: string): MigrationScene {
  const cp = sharedControlPlane as ProvidedControlPlane;
  const scene = useCrdgateInFront(cp, prefix);
  const setVersions = (storage: string, flags: Omit<VersionFlags, 'storage'> = {}) =>
    applyCrdVersions(scene().kubeConfig, cp.etcdUrl, scene().gate.crd, { ...flags, storage }, scene().namespace);
  return {
    cp,
    scene,
    kubeconfig: ['--kubeconfig', cp.kubeconfigPath],
    setVersions,
    async objectsToMigrate(namespacePrefix, namespaceCount, perNamespace, options = {}) {
      await setVersions('v1beta1');
      const namespaces = await createNamespaces(scene().kubeConfig, namespacePrefix, namespaceCount);
      await createGeoDatabases(scene().kubeConfig, namespaces, perNamespace, options);
      await setVersions('v1');
      return namespaces;
    },
    storedIn: async (namespaces) => (await storedGeoDatabases(cp.etcdUrl, namespaces)).map(storedApiVersion),
  };
}
