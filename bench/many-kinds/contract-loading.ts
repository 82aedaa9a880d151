import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ContractLoadingFigures } from './contract-loading-child.ts';

// Where a gate's start-up goes once its contracts are modules made from operators' CRDs: each part timed in a
// process of its own (contract-loading-child.ts), with the servers' NODE_OPTIONS and environment, in the folder
// they start in. Reading the CRDs alone is the floor: no guard of them can load in less, whatever it checks.

const run = promisify(execFile);
const childTimeoutMs = 120_000;

export interface ContractLoadingPlan {
  /** bench/ as the servers' crdgate is: compiled (contract-loading-child.js) or from source (.ts). */
  benchDir: string;
  extension: 'js' | 'ts';
  cwd: string;
  env: Record<string, string>;
  nodeOptions: string;
  modules: readonly string[];
  crdFiles: readonly string[];
  rounds: number;
}

export interface ContractLoading {
  /** readCrdFile of the CRDs alone. */
  readMs: number;
  /** Importing the modules, which read their CRDs as they load. */
  importMs: number;
  /** Making, checking and compiling the contracts (the modules' exports called, registryOfExports). */
  registryMs: number;
}

/** Each part the least of the rounds, as the servers' figures are: interference only ever slows a run. */
export async function measureContractLoading(plan: ContractLoadingPlan): Promise<ContractLoading> {
  const child = join(plan.benchDir, 'many-kinds', `contract-loading-child.${plan.extension}`);
  const once = async (mode: 'read' | 'load', paths: readonly string[]): Promise<ContractLoadingFigures> => {
    const { stdout } = await run(process.execPath, [child, mode, ...paths], {
      cwd: plan.cwd,
      env: { ...plan.env, NODE_OPTIONS: plan.nodeOptions },
      timeout: childTimeoutMs,
      maxBuffer: 1 << 20,
    });
    return JSON.parse(stdout) as ContractLoadingFigures;
  };
  let best: ContractLoading = { readMs: Infinity, importMs: Infinity, registryMs: Infinity };
  for (let round = 0; round < plan.rounds; round++) {
    const read = await once(
      'read',
      plan.crdFiles.map((file) => join(plan.cwd, file)),
    );
    const load = await once('load', plan.modules);
    best = {
      readMs: Math.min(best.readMs, read.readMs!),
      importMs: Math.min(best.importMs, load.importMs!),
      registryMs: Math.min(best.registryMs, load.registryMs!),
    };
  }
  return best;
}
