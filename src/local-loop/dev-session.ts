import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { writeCertDir } from '../certs/cert-dir.ts';
import { controlPlaneKubeconfigPath, startControlPlane, type ControlPlane } from '../control-plane/control-plane.ts';
import { describeExit } from '../control-plane/managed-process.ts';
import { watchFolders, type FolderWatcher } from './folder-watcher.ts';
import { RestartBackoff } from './restart-backoff.ts';
import { admissionCallsFromMetrics, putCrdgateInFront } from './put-in-front.ts';
import { startServeGeneration, type GenerationOptions, type ServeGeneration } from './serve-generation.ts';
import { storedVersionsHint } from './stored-versions-hint.ts';

export interface DevSessionOptions {
  /** The `--contract` arguments as given; none serves the built-in example. */
  contracts: readonly string[];
  /** Files to watch: each contract module's folder, recursively. */
  watchDirs: readonly string[];
  cwd: string;
  assetsDir: string;
  name: string;
  /** `crdgate manifests` flags for the webhooks' settings, handed on to every generation's rendering. */
  webhookFlags?: readonly string[];
  say: (line: string) => void;
}

export interface DevSession {
  controlPlane: ControlPlane;
  /** The generation serving now. */
  current(): ServeGeneration;
  stop(): Promise<void>;
}

// An editor writes a file in several steps (truncate, write, rename): one reload for the burst.
const reloadDebounceMs = 300;
// The API server may still hold a call to the previous generation when the new configuration is applied.
const previousGenerationGraceMs = 2_000;

/**
 * A control plane with the contracts in front of it, reloaded on every edit: a new generation is started and put
 * in front (CRDs and webhook configurations re-applied, so a schema edit reaches the API server too) before the
 * previous one stops. A generation that fails to load, render or apply is reported and the last good one serves on.
 * A serving process that dies is reported and started again (a new generation, put in front the same way).
 */
export async function startDevSession(options: DevSessionOptions): Promise<DevSession> {
  const { say } = options;
  // One folder for everything this session starts: the control plane's files, crdgate's certificates and logs.
  const dir = await mkdtemp(join(tmpdir(), 'crdgate-dev-'));
  let watcher: FolderWatcher | undefined;
  let controlPlane: ControlPlane | undefined;
  let current: ServeGeneration | undefined;
  // Every generation still running, the one retiring after a reload included: stop() ends them all.
  const live = new Set<ServeGeneration>();
  const retire = async (generation: ServeGeneration): Promise<void> => {
    live.delete(generation);
    await generation.stop();
  };
  const stopEverything = async (): Promise<void> => {
    watcher?.close();
    for (const generation of [...live]) await retire(generation);
    await controlPlane?.stop();
    await rm(dir, { recursive: true, force: true });
  };
  let stopped = false;
  try {
    const certDir = join(dir, 'crdgate-certs');
    const { files } = await writeCertDir(certDir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], days: 30 });
    const caPem = readFileSync(files.caCert, 'utf8');
    const generationOptions: GenerationOptions = {
      contracts: options.contracts,
      cwd: options.cwd,
      certDir,
      caCertFile: files.caCert,
      logDir: dir,
      name: options.name,
      ...(options.webhookFlags !== undefined ? { webhookFlags: options.webhookFlags } : {}),
      kubeconfigPath: controlPlaneKubeconfigPath(dir),
    };
    let number = 0;
    const startGeneration = async (serveAfter?: Promise<unknown>): Promise<ServeGeneration> => {
      const next = await startServeGeneration(generationOptions, ++number, serveAfter);
      live.add(next);
      return next;
    };

    // The first generation renders while the control plane starts, and serves once it is up: the server reads the
    // control plane's kubeconfig as it starts (for /scale reads and an owner's CRD), which exists only then.
    const controlPlaneStarting = startControlPlane({ assetsDir: options.assetsDir, dir });
    const [startedControlPlane, first] = await Promise.allSettled([
      controlPlaneStarting,
      startGeneration(controlPlaneStarting),
    ]);
    if (startedControlPlane.status === 'fulfilled') controlPlane = startedControlPlane.value;
    if (startedControlPlane.status === 'rejected') throw startedControlPlane.reason;
    if (first.status === 'rejected') throw first.reason;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(controlPlane!.kubeconfigPath);
    const putInFront = async (next: ServeGeneration): Promise<ServeGeneration> => {
      try {
        await putCrdgateInFront(kubeConfig, next.front, admissionCallsFromMetrics(next.url, caPem));
      } catch (error) {
        await retire(next);
        throw error;
      }
      return next;
    };
    let reloading: Promise<void> = Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const restarts = new RestartBackoff();
    const stopping = new AbortController();
    // The generation serving now, watched: a serving process that dies (a crash, the OOM killer, a stray kill)
    // would leave every write of the kinds refused by a webhook nobody answers, so it is started again.
    const serve = (generation: ServeGeneration): void => {
      current = generation;
      void generation.process.exited.then((exit) => {
        if (stopped || current !== generation) return; // retired on purpose, or already replaced
        const delayMs = restarts.delayAfterDeath(generation.startedAt);
        say(
          `generation ${generation.number}'s crdgate serve ${describeExit(exit)} (its log: ${generation.process.logFile}): ` +
            `starting it again${delayMs > 0 ? ` in ${(delayMs / 1000).toFixed(0)} s` : ''}`,
        );
        reloading = reloading.then(() => restart(generation, delayMs));
      });
    };
    const restart = async (dead: ServeGeneration, delayMs: number): Promise<void> => {
      // A stop during the wait ends it: stop() waits for this.
      if (delayMs > 0) await sleep(delayMs, undefined, { signal: stopping.signal }).catch(() => undefined);
      if (stopped || current !== dead) return; // stopped, or an edit has put another one in front meanwhile
      try {
        const next = await putInFront(await startGeneration());
        serve(next);
        say(`restarted: generation ${next.number} serves at ${next.url}; the API server's webhooks follow it`);
      } catch (error) {
        say(
          `crdgate serve could not be started again, so nothing answers the webhooks until the next edit of the contract:\n${indent((error as Error).message)}`,
        );
      }
      await retire(dead);
    };
    serve(await putInFront(first.value));

    const reload = async (): Promise<void> => {
      if (stopped) return;
      say('a contract file changed: reloading');
      try {
        const next = await putInFront(await startGeneration());
        const previous = current;
        serve(next);
        say(`reloaded: generation ${next.number} serves at ${next.url}; the API server's CRDs and webhooks follow it`);
        if (previous) setTimeout(() => void retire(previous), previousGenerationGraceMs).unref();
      } catch (error) {
        const hint = storedVersionsHint(error, controlPlane!.kubeconfigPath);
        say(
          `the edit did not load, so generation ${current?.number} keeps serving:\n${indent((error as Error).message)}` +
            (hint === undefined ? '' : `\n${indent(hint)}`),
        );
      }
    };
    watcher = watchFolders(options.watchDirs, () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        reloading = reloading.then(reload);
      }, reloadDebounceMs);
    });

    return {
      controlPlane: controlPlane!,
      current: () => current as ServeGeneration,
      stop: async () => {
        stopped = true;
        stopping.abort();
        clearTimeout(timer);
        await reloading;
        await stopEverything();
      },
    };
  } catch (error) {
    await stopEverything();
    throw error;
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
