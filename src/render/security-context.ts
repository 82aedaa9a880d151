// The restricted Pod Security Standard, which every pod crdgate renders meets.

/**
 * The `node` user of the official Node.js images, which the Dockerfile runs as. Numeric, because the kubelet can
 * only enforce runAsNonRoot on a numeric user.
 */
const nodeUserId = 1000;

export function restrictedPodSecurityContext(): Record<string, unknown> {
  return {
    runAsNonRoot: true,
    runAsUser: nodeUserId,
    runAsGroup: nodeUserId,
    // Makes the mounted Secret's files (mode 0440) readable by the group the process runs in.
    fsGroup: nodeUserId,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

export function restrictedContainerSecurityContext(): Record<string, unknown> {
  return {
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ['ALL'] },
  };
}
