import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { findFreePort } from '../control-plane/free-port.ts';
import { httpsGet } from '../control-plane/https-get.ts';
import { startManagedProcess, waitUntilReady, type ManagedProcess } from '../control-plane/managed-process.ts';
import type { Manifest } from '../render/manifest.ts';
import type { FrontManifests } from './put-in-front.ts';

// `crdgate dev` runs every generation of the user's contracts in fresh processes: a module imported once stays
// cached in a Node process with everything it imports, so only a new process sees an edit to any file of a contract.

/** crdgate's own command, as src/bin.ts or dist/bin.js beside this module's tree. */
const crdgateBin = fileURLToPath(new URL(`../bin${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

export interface GenerationOptions {
  /** The `--contract` arguments, as the user gave them (resolved from cwd by the child). */
  contracts: readonly string[];
  cwd: string;
  /** A folder with ca.crt, tls.crt and tls.key for 127.0.0.1; every generation serves the same CA. */
  certDir: string;
  caCertFile: string;
  /** Where the generations' logs go (one file each). */
  logDir: string;
  /** `--name` for the rendered webhook configurations. */
  name: string;
  /** `crdgate manifests` flags for the webhooks' settings (--failure-policy and the like), as the user gave them. */
  webhookFlags?: readonly string[];
  /**
   * The control plane's admin kubeconfig ($KUBECONFIG of the child), for the reads of /scale reviews and for
   * following an owner's CRD. The child reads it as it starts, so it must exist by then: see `serveAfter`.
   */
  kubeconfigPath: string;
}

/** One `crdgate serve` child with the contracts as they were when it started, and what puts it in front. */
export interface ServeGeneration {
  number: number;
  url: string;
  /** When its process was started (ms since the epoch): one that dies soon after is started again less eagerly. */
  startedAt: number;
  process: ManagedProcess;
  front: FrontManifests;
  stop(): Promise<void>;
}

const readyTimeoutMs = 30_000;
const stopGraceMs = 5_000;

/**
 * Starts the next generation: renders the contracts' CRDs and webhook configurations by URL (`crdgate manifests`, a
 * process of its own) while it serves them on a free port, and resolves once both are done and /readyz answers.
 * The server starts once `serveAfter` resolves (the control plane up, its kubeconfig written); the rendering does not
 * wait. Throws with crdgate's own message when the contracts do not load, so the caller can keep the last good one
 * serving, and with serveAfter's error when that fails.
 */
export async function startServeGeneration(
  options: GenerationOptions,
  number: number,
  serveAfter: Promise<unknown> = Promise.resolve(),
): Promise<ServeGeneration> {
  const port = await findFreePort();
  const url = `https://127.0.0.1:${port}`;
  const contractArgs = options.contracts.flatMap((contract) => ['--contract', contract]);
  const ca = await readFile(options.caCertFile, 'utf8');
  const rendering = runCrdgate(
    [
      'manifests',
      ...contractArgs,
      '--url',
      url,
      '--ca-bundle',
      options.caCertFile,
      '--name',
      options.name,
      '--owner-crds',
      ...(options.webhookFlags ?? []),
    ],
    options.cwd,
  );
  try {
    await serveAfter;
  } catch (error) {
    await rendering.catch(() => undefined);
    throw error;
  }
  const startedAt = Date.now();
  const child = startManagedProcess({
    name: `crdgate serve (generation ${number})`,
    command: process.execPath,
    args: [
      crdgateBin,
      'serve',
      ...contractArgs,
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--cert-dir',
      options.certDir,
      '--drain-delay',
      '0',
    ],
    cwd: options.cwd,
    logFile: join(options.logDir, `crdgate-${number}.log`),
    env: { KUBECONFIG: options.kubeconfigPath },
  });
  const stop = (): Promise<void> => child.stop(stopGraceMs);
  const ready = waitUntilReady(
    child,
    'GET /readyz',
    readyTimeoutMs,
    async () => (await httpsGet(`${url}/readyz`, { ca })).status === 200,
  );
  // Both settle before either is reported: when the contracts do not load, both fail, and the renderer's one line
  // is the one to show (the server's failure comes with its whole log).
  const [rendered, served] = await Promise.allSettled([rendering, ready]);
  if (rendered.status === 'rejected' || served.status === 'rejected') {
    await stop();
    throw rendered.status === 'rejected' ? rendered.reason : (served as PromiseRejectedResult).reason;
  }
  const front = frontManifests(rendered.value);
  return { number, url, startedAt, process: child, front, stop };
}

function frontManifests(yaml: string): FrontManifests {
  const manifests = parseAllDocuments(yaml)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
  return {
    crds: manifests.filter((m) => m.kind === 'CustomResourceDefinition'),
    webhookConfigurations: manifests.filter(
      (m) => m.kind === 'ValidatingWebhookConfiguration' || m.kind === 'MutatingWebhookConfiguration',
    ),
  };
}

function runCrdgate(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [crdgateBin, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      // The user ran `crdgate dev`: the child command's name in front of its one line would only confuse.
      if (error) reject(new Error(stderr.trim().replace(/^crdgate \S+: /gm, '') || error.message));
      else resolve(stdout);
    });
  });
}
