import { spawn } from 'node:child_process';
import { chmodSync, chownSync, readdirSync } from 'node:fs';
import { request } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { isAbsolute, join, posix } from 'node:path';
import { acquireFileLock } from '../../../src/control-plane/file-lock.ts';
import type { ImageConfig } from './container-image.ts';
import { withServiceAccountMounted } from './service-account-mount.ts';

export { serviceAccountPath } from './service-account-mount.ts';

/** The parts of a rendered pod template that a kubelet reads to start its first container. */
export interface PodTemplateSpec {
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsUser?: number; runAsGroup?: number; runAsNonRoot?: boolean; fsGroup?: number };
  volumes?: Array<{ name: string; secret?: { secretName: string; defaultMode?: number } }>;
  automountServiceAccountToken?: boolean;
  containers: ContainerSpec[];
}

interface ContainerSpec {
  name: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value?: string; valueFrom?: { fieldRef?: { fieldPath: string } } }>;
  ports?: Array<{ name?: string; containerPort: number }>;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}

interface Probe {
  httpGet?: { path: string; port: number | string; scheme?: string };
}

export interface PodRun {
  /** The image the container runs: its configuration, and a folder standing for its WORKDIR. */
  image: { config: ImageConfig; workDir: string };
  pod: PodTemplateSpec;
  metadata: { name: string; namespace: string };
  /** A folder on this machine for each mountPath; the container's paths under it are mapped there. */
  mounts: Record<string, string>;
  /** The variables the kubelet adds for the cluster's services (KUBERNETES_SERVICE_HOST/PORT). */
  serviceEnv?: Record<string, string>;
  /**
   * A folder holding token, ca.crt and namespace, bound at the standard service-account path in a mount namespace
   * of the container's own: a library reading the in-cluster configuration finds it where a pod has it.
   */
  serviceAccountDir?: string;
  /** The folder of the Node binary that stands for the image's `node`. */
  nodeBinDir: string;
}

export interface RunningContainer {
  pid: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, as the kubelet stops a container; SIGKILL after the pod's grace period. */
  stop: () => Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** An HTTPS GET of a probe's path on the container's port, as the kubelet sends it (no certificate check). */
  probe: (which: 'readinessProbe' | 'livenessProbe') => Promise<{ status: number; body: string }>;
}

// The image's PATH (the node image's, where `node` is /usr/local/bin/node), with this machine's Node in its place.
const imagePath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/**
 * Starts a pod's first container as a kubelet and a container runtime would, without either: the container's
 * command and args over the image's ENTRYPOINT and CMD (Kubernetes' rules), `$(VAR)` references expanded from the
 * container's env, that env (field references resolved) over the image's ENV, the image's WORKDIR as the working
 * directory, the pod's or the image's user (when this process may switch users), and each mounted path mapped to a
 * folder of this machine in the arguments. What the kubelet would add is passed in: service variables and the
 * service account's files.
 */
export async function startContainer(run: PodRun): Promise<RunningContainer> {
  const container = run.pod.containers[0]!;
  const releasePorts = await takeHostPorts((container.ports ?? []).map((port) => port.containerPort));
  const { config, workDir } = run.image;
  const containerEnv = resolveEnv(container, run.metadata);
  const expand = (value: string) =>
    value.replace(/\$\((\w+)\)/g, (whole, name: string) => containerEnv[name] ?? run.serviceEnv?.[name] ?? whole);
  const mapPath = (value: string): string => {
    for (const [mountPath, folder] of Object.entries(run.mounts)) {
      if (value === mountPath || value.startsWith(`${mountPath}/`)) return join(folder, value.slice(mountPath.length));
    }
    return value;
  };
  const [command, ...args] = commandLine(container, config).map(expand).map(mapPath);
  if (!command) throw new Error(`container ${container.name}: neither the pod nor the image gives a command`);
  const env: Record<string, string> = {
    PATH: imagePath,
    HOSTNAME: run.metadata.name,
    HOME: '/nonexistent',
    ...config.env,
    ...run.serviceEnv,
    ...containerEnv,
  };
  env['PATH'] = `${run.nodeBinDir}:${env['PATH']}`;
  const executable = command === 'node' ? join(run.nodeBinDir, 'node') : command;
  const uid = run.pod.securityContext?.runAsUser ?? config.user.uid;
  const gid = run.pod.securityContext?.runAsGroup ?? config.user.gid;
  if (run.pod.securityContext?.runAsNonRoot && uid === 0)
    throw new Error('runAsNonRoot with user 0: the kubelet would refuse to start the container');
  const switchUser = process.getuid?.() === 0;
  if (switchUser) fillSecretVolumes(run);
  const cwd = workDir;
  if (!isAbsolute(config.workingDir)) throw new Error(`WORKDIR ${config.workingDir} is not absolute`);

  // With a service account, in a mount namespace of its own that holds its folder where a pod has it; the script
  // switches to the container's user there.
  const [file, ...fileArgs] = run.serviceAccountDir
    ? withServiceAccountMounted(run.serviceAccountDir, [executable, ...args], { uid, gid })
    : [executable, ...args];
  const child = spawn(file, fileArgs, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(switchUser && !run.serviceAccountDir ? { uid, gid } : {}),
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => void releasePorts().then(() => resolve({ code, signal }))),
  );
  const grace = (run.pod.terminationGracePeriodSeconds ?? 30) * 1000;
  return {
    pid: child.pid!,
    output: () => output,
    exited,
    stop: async () => {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), grace);
      const result = await exited;
      clearTimeout(killer);
      return result;
    },
    probe: (which) => {
      const httpGet = container[which]?.httpGet;
      if (!httpGet) throw new Error(`container ${container.name} has no ${which} httpGet`);
      const port =
        typeof httpGet.port === 'number'
          ? httpGet.port
          : container.ports?.find((p) => p.name === httpGet.port)?.containerPort;
      if (port === undefined) throw new Error(`container ${container.name}: no port named ${httpGet.port}`);
      if (httpGet.scheme !== 'HTTPS') throw new Error(`${which}: only HTTPS probes are sent here`);
      return httpsGet(port, httpGet.path);
    },
  };
}

/**
 * A pod has its own network; these containers share this machine's, so two of them (from test files of two lanes)
 * must not listen on one port at once. Each port is taken as a lock file for as long as its container runs, and must
 * then be free: a server left listening there would answer the probes in the container's place.
 */
async function takeHostPorts(ports: number[]): Promise<() => Promise<void>> {
  const releases: Array<() => Promise<void>> = [];
  const releaseAll = async () => {
    for (const release of releases.splice(0)) await release();
  };
  try {
    for (const port of [...new Set(ports)].sort((a, b) => a - b)) {
      const log = (line: string) => process.stderr.write(`[kubelet] ${line}\n`);
      releases.push(await acquireFileLock(join(tmpdir(), `crdgate-e2e-host-port-${port}.lock`), `port ${port}`, log));
      if (await listens(port)) throw new Error(`a server already listens on port ${port}, the container's port`);
    }
  } catch (error) {
    await releaseAll();
    throw error;
  }
  return releaseAll;
}

function listens(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Kubernetes' rules: a container `command` replaces the image's ENTRYPOINT and drops its CMD; `args` alone replace
 * the CMD.
 */
export function commandLine(
  container: Pick<ContainerSpec, 'command' | 'args'>,
  config: Pick<ImageConfig, 'entrypoint' | 'cmd'>,
): string[] {
  if (container.command) return [...container.command, ...(container.args ?? [])];
  return [...config.entrypoint, ...(container.args ?? config.cmd)];
}

/**
 * A Secret volume's files as the kubelet writes them: the volume's defaultMode (0644 when none), owned by root and
 * the pod's fsGroup, so that a non-root container reads them through its group.
 */
function fillSecretVolumes(run: PodRun): void {
  const container = run.pod.containers[0]!;
  for (const mount of container.volumeMounts ?? []) {
    const secret = run.pod.volumes?.find((volume) => volume.name === mount.name)?.secret;
    const folder = run.mounts[mount.mountPath];
    if (!secret || !folder) continue;
    chownSync(folder, 0, run.pod.securityContext?.fsGroup ?? 0);
    chmodSync(folder, 0o755);
    for (const file of readdirSync(folder)) {
      chownSync(join(folder, file), 0, run.pod.securityContext?.fsGroup ?? 0);
      chmodSync(join(folder, file), secret.defaultMode ?? 0o644);
    }
  }
}

function resolveEnv(container: ContainerSpec, metadata: PodRun['metadata']): Record<string, string> {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const field = variable.valueFrom?.fieldRef?.fieldPath;
    if (variable.value !== undefined) env[variable.name] = variable.value;
    else if (field === 'metadata.name') env[variable.name] = metadata.name;
    else if (field === 'metadata.namespace') env[variable.name] = metadata.namespace;
    else
      throw new Error(
        `env ${variable.name}: ${JSON.stringify(variable.valueFrom)} is not resolved by this test's kubelet`,
      );
  }
  return env;
}

function httpsGet(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: posix.normalize(path),
        method: 'GET',
        rejectUnauthorized: false,
        agent: false,
        timeout: 1_000,
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('probe timed out after 1 s')));
    req.on('error', reject);
    req.end();
  });
}
