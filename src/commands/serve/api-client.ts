import { createKubeApi, type KubeWatchApi } from '../../kube/kube-api.ts';
import { loadApiServerAccess } from '../../kube/kube-config.ts';
import { apiServerAccessFromFlags } from '../kube-options.ts';
import type { KubeFlags } from './flags.ts';

/** How serve's helpers reach the API server: the one client, once it can be made. */
export type ApiServerClient = () => Promise<KubeWatchApi>;

/**
 * No timeout shorter than a watch's: the helpers' requests are lists, watches (which TCP keepalive ends) and the
 * certificate manager's writes; a /scale read and the CRD gate's reads bound themselves.
 */
const requestTimeoutMs = 30_000;

/**
 * The client of every helper of serve (the certificate manager, the /scale reader, the owner CRD follower, the CRD
 * gate), made once. A kubeconfig named on the command line, or one --manage-certs needs, must load now (its problem
 * is a command error); a default one ($KUBECONFIG, ~/.kube/config, the in-cluster service account) that cannot load
 * yet is tried again at each use until it does, so a server started before its API server reaches it once it is
 * up. Its problem is then a KubeconfigError: the helpers log it as a reason, with no stack.
 */
export async function apiServerClient(
  kube: KubeFlags,
  cwd: string,
  { mustLoadNow }: { mustLoadNow: boolean },
): Promise<ApiServerClient> {
  if (mustLoadNow || kube.kubeconfig !== undefined || kube.context !== undefined) {
    const api = createKubeApi(await apiServerAccessFromFlags(kube, cwd), { timeoutMs: requestTimeoutMs });
    return async () => api;
  }
  let made: Promise<KubeWatchApi> | undefined;
  return () => {
    made ??= loadApiServerAccess(undefined, undefined, cwd)
      .then((config) => createKubeApi(config, { timeoutMs: requestTimeoutMs }))
      .catch((error: unknown) => {
        made = undefined;
        throw error;
      });
    return made;
  };
}
