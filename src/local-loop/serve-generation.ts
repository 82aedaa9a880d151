import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { findFreePort } from '../control-plane/free-port.ts';
import { startManagedProcess, type ManagedProcess } from '../control-plane/managed-process.ts';
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
}

/** One `crdgate serve` child with the contracts as they were when it started, and what puts it in front. */
export interface ServeGeneration {
  number: number;
  url: string;
  process: ManagedProcess;
  front: FrontManifests;
  stop(): Promise<void>;
}

const readyTimeoutMs = 30_000;
const stopGraceMs = 5_000;

/**
 * Starts the next generation: renders the contracts' CRDs and webhook configurations by URL (`crdgate manifests`, a
 * process of its own), then serves them on a free port and resolves once /readyz answers. Throws with crdgate's own
 * message when the contracts do not load, so the caller can keep the last good generation serving.
 */
export async function startServeGeneration(options: GenerationOptions, number: number): Promise<ServeGeneration> {
  const port = await findFreePort();
  const url = `https://127.0.0.1:${port}`;
  const contractArgs = options.contracts.flatMap((contract) => ['--contract', contract]);
  // Rendering and serving are two processes of their own: started together, each waits only for itself.
  const rendering = runCrdgate(['manifests', ...contractArgs, '--url', url, '--ca-bundle', options.caCertFile, '--name', options.name], options.cwd);
  const child = startManagedProcess({
    name: `crdgate serve (generation ${number})`,
    command: process.execPath,
    args: [crdgateBin, 'serve', ...contractArgs, '--port', String(port), '--host', '127.0.0.1', '--cert-dir', options.certDir, '--drain-delay', '0'],
    cwd: options.cwd,
    logFile: join(options.logDir, `crdgate-${number}.log`),
  });
  const stop = (): Promise<void> => child.stop(stopGraceMs);
  let front: FrontManifests;
  try {
    const [yaml] = await Promise.all([rendering, waitForReady(child, url, options.caCertFile)]);
    front = frontManifests(yaml);
  } catch (error) {
    await stop();
    throw error;
  }
  return { number, url, process: child, front, stop };
}

function frontManifests(yaml: string): FrontManifests {
  const manifests = parseAllDocuments(yaml)
    .map((document) => document.toJS() as Manifest | null)
    .filter((manifest): manifest is Manifest => manifest !== null);
  return {
    crds: manifests.filter((m) => m.kind === 'CustomResourceDefinition'),
    webhookConfigurations: manifests.filter((m) => m.kind === 'ValidatingWebhookConfiguration' || m.kind === 'MutatingWebhookConfiguration'),
  };
}

async function waitForReady(child: ManagedProcess, url: string, caCertFile: string): Promise<void> {
  const ca = await readFile(caCertFile, 'utf8');
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exit) throw new Error(lastLines(await child.logTail()));
    const ready = await new Promise<boolean>((resolve) => {
      const req = request(`${url}/readyz`, { ca, agent: false, timeout: 1_000 }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
      req.end();
    });
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`crdgate serve did not become ready within ${readyTimeoutMs / 1000} s:\n${lastLines(await child.logTail())}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** crdgate's one-line errors, without the log lines of a server that did start. */
function lastLines(text: string): string {
  return text.trim().split('\n').slice(-5).join('\n');
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
