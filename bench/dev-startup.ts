import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startControlPlane } from '../src/control-plane/control-plane.ts';
import { resolveKubeAssets } from '../src/control-plane/kube-assets.ts';
import { percentile } from './support/percentile.ts';
import { textTable } from './report/text-table.ts';
import { withTimeout } from './support/with-timeout.ts';

// `crdgate dev` from the command to "ready" (control plane up, contracts served, CRDs established, the API server
// calling crdgate), against its floor in the same run: the same control plane started alone, as envtest starts it.

export interface DevStartupResult {
  runs: number;
  /** startControlPlane alone: etcd and kube-apiserver until the default namespace is served. */
  controlPlaneMs: number[];
  /** `crdgate dev` spawned until it prints its ready line. */
  devMs: number[];
  controlPlaneMedianMs: number;
  devMedianMs: number;
  /** devMedianMs / controlPlaneMedianMs: what crdgate adds on top of the control plane it needs anyway. */
  ratio: number;
}

const cliPath = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const readyTimeoutMs = 120_000;

export async function runDevStartupBenchmark(
  runs: number,
  progress: (line: string) => void,
): Promise<DevStartupResult> {
  const assets = await resolveKubeAssets({ build: true, log: progress });
  if ('unavailable' in assets) throw new Error(`no control plane binaries: ${assets.unavailable}`);
  const controlPlaneMs: number[] = [];
  const devMs: number[] = [];
  // Alternated, so that a slow stretch of the machine slows both kinds of run.
  for (let run = 1; run <= runs; run++) {
    progress(`round ${run}/${runs}: the control plane alone`);
    const started = performance.now();
    const controlPlane = await startControlPlane({ assetsDir: assets.dir });
    controlPlaneMs.push(performance.now() - started);
    await controlPlane.stop();
    progress(`round ${run}/${runs}: crdgate dev`);
    devMs.push(await devToReady(assets.dir));
  }
  const median = (values: number[]): number =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  const controlPlaneMedianMs = median(controlPlaneMs);
  const devMedianMs = median(devMs);
  return { runs, controlPlaneMs, devMs, controlPlaneMedianMs, devMedianMs, ratio: devMedianMs / controlPlaneMedianMs };
}

async function devToReady(assetsDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [cliPath, 'dev'], {
    env: { ...process.env, KUBEBUILDER_ASSETS: assetsDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const ready = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.includes('crdgate dev: ready in')) resolve(performance.now() - started);
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.once('exit', (code) => reject(new Error(`crdgate dev exited (${code}) before it was ready:\n${output}`)));
  });
  try {
    return await withTimeout(ready, readyTimeoutMs, 'crdgate dev to be ready');
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

export function renderDevStartupReport(result: DevStartupResult): string {
  const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  return [
    `crdgate dev, start to ready with cached binaries (median of ${result.runs} runs, alternated)`,
    textTable(
      ['', 'median', 'runs'],
      [
        [
          'control plane alone (etcd + kube-apiserver)',
          seconds(result.controlPlaneMedianMs),
          result.controlPlaneMs.map(seconds).join(', '),
        ],
        [
          'crdgate dev (the same, plus contracts in front)',
          seconds(result.devMedianMs),
          result.devMs.map(seconds).join(', '),
        ],
      ],
    ),
    `crdgate dev / control plane alone: ${result.ratio.toFixed(2)}x`,
    '',
  ].join('\n');
}
