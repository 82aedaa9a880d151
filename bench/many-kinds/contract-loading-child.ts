import { pathToFileURL } from 'node:url';
import { importContractModules, registryOfExports } from '../../src/commands/contracts.ts';
import { readCrdFile } from '../../src/contract/from-crd.ts';

// One process per measurement (contract-loading.ts starts it with the servers' NODE_OPTIONS and environment, in the
// folder they start in), so that each part is timed as cold as a server meets it:
//   read FILE...     readCrdFile of each CRD file, and nothing else: the least any guard of these CRDs costs
//   load MODULE...   what `crdgate serve --contract MODULE...` does before it listens (loadRegistry's two steps,
//                    timed apart): import each module (a scaffolded guard reads its CRD as it loads), then make,
//                    check and compile the contracts
// Prints one line of JSON: milliseconds of wall time per part.

export interface ContractLoadingFigures {
  /** read: all the files. */
  readMs?: number;
  /** load: importing the modules, their top-level code (reading the CRDs) included. */
  importMs?: number;
  /** load: calling each module's export (fromCrd, defineContract), checking each contract, compiling the registry. */
  registryMs?: number;
}

async function main(mode: string | undefined, paths: string[]): Promise<ContractLoadingFigures> {
  if (mode === 'read') {
    const started = performance.now();
    for (const file of paths) readCrdFile(file);
    return { readMs: performance.now() - started };
  }
  if (mode === 'load') {
    const started = performance.now();
    const exports = await importContractModules(paths, process.cwd());
    const imported = performance.now();
    registryOfExports(exports);
    return { importMs: imported - started, registryMs: performance.now() - imported };
  }
  throw new Error(`usage: contract-loading-child read FILE... | load MODULE..., got ${mode}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const [mode, ...paths] = process.argv.slice(2);
  process.stdout.write(`${JSON.stringify(await main(mode, paths))}\n`);
}
