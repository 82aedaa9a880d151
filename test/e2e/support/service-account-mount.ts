import { spawn } from 'node:child_process';

// What a kubelet gives a pod to reach the API server, without a kubelet: its service account's folder (token,
// ca.crt, namespace) where a pod has it, in a mount namespace of the process's own, so nothing of this machine's
// filesystem changes. Needs root, unshare and mount (util-linux).

export const serviceAccountPath = '/var/run/secrets/kubernetes.io/serviceaccount';

// A fresh /run (/var/run is /run), the folder bound there read-only, then the command, as the user given (the
// container's) or as it is. $1: the folder, $2/$3: uid and gid or empty, the rest: the command.
const inMountNamespace = `set -e
sa="$1" uid="$2" gid="$3"; shift 3
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p ${serviceAccountPath.replace('/var/run', '/run')}
mount --bind -o ro "$sa" ${serviceAccountPath.replace('/var/run', '/run')}
if [ -n "$uid" ]; then exec setpriv --reuid="$uid" --regid="$gid" --clear-groups -- "$@"; fi
exec "$@"`;

/**
 * The command line that runs `command` with the service account's folder `dir` mounted where a pod has it. unshare and
 * sh exec what follows: the process started is the command's.
 */
export function withServiceAccountMounted(
  dir: string,
  command: readonly string[],
  user?: { uid: number; gid: number },
): [string, ...string[]] {
  return [
    'unshare',
    ...['--mount', '--propagation', 'private', '--', 'sh', '-c', inMountNamespace, 'sh', dir],
    ...(user ? [String(user.uid), String(user.gid)] : ['', '']),
    ...command,
  ];
}

/** Why a process cannot be given a mount namespace of its own here, or undefined when it can. */
export function mountNamespaceProblem(): Promise<string | undefined> {
  if (process.getuid?.() !== 0) return Promise.resolve('not running as root');
  return new Promise((resolve) => {
    const child = spawn(
      'unshare',
      [
        ...['--mount', '--propagation', 'private', '--', 'sh', '-c'],
        'mount -t tmpfs tmpfs /run && setpriv --reuid=1000 --regid=1000 --clear-groups -- true',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error) => resolve(`unshare cannot run: ${error.message}`));
    child.once('exit', (code) =>
      resolve(code === 0 ? undefined : `unshare --mount failed (exit ${code}): ${stderr.trim()}`),
    );
  });
}
