import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { main } from '../../../../src/cli.ts';
import type { Contract } from '../../../../src/contract/contract-definition.ts';
import { fromCrd } from '../../../../src/contract/from-crd.ts';
import { contractAsScaffolded } from '../../../../src/scaffold/crd-scaffold.ts';
import type { CorpusCrd } from '../../../fixtures/crd-corpus/corpus.ts';

/** What crdgate made of one CRD: a contract, or its error. */
export type Load = { loaded: true; contract: Contract } | { loaded: false; error: string };

function load(make: () => Contract): Load {
  try {
    return { loaded: true, contract: make() };
  } catch (error) {
    return { loaded: false, error: (error as Error).message };
  }
}

/** `fromCrd(crd)` through defineContract, as a project that owns the CRD starts (a pass-through conversion per spoke). */
export function ownedLoad(crd: CorpusCrd): Load {
  return load(() => contractAsScaffolded(fromCrd(crd.crd), 'crdgate'));
}

/** `fromCrd(crd, { crdOwner: 'external' })` through defineContract. */
export function externalLoad(crd: CorpusCrd): Load {
  return load(() => contractAsScaffolded(fromCrd(crd.crd, { crdOwner: 'external' }), 'external'));
}

/**
 * A folder where projects made by `crdgate init` load: their `crdgate` is this checkout's source, through a small
 * package in the folder's node_modules (as test/e2e/lowercase-kind.e2e.test.ts does), so nothing is packed or
 * installed.
 */
export async function projectsFolder(dir: string): Promise<void> {
  const source = (file: string) => JSON.stringify(new URL(`../../../../src/${file}`, import.meta.url).pathname);
  const shim = join(dir, 'node_modules', 'crdgate');
  await mkdir(shim, { recursive: true });
  await writeFile(
    join(shim, 'package.json'),
    JSON.stringify({ name: 'crdgate', type: 'module', exports: { '.': './index.js', './testing': './testing.js' } }),
  );
  await writeFile(join(shim, 'index.js'), `export * from ${source('index.ts')};\n`);
  await writeFile(join(shim, 'testing.js'), `export * from ${source('testing.ts')};\n`);
}

/** What `crdgate init` answered, and the contract of the project it wrote, loaded. */
export interface InitRun {
  code: number;
  stderr: string;
  load: Load;
}

/**
 * `crdgate init PROJECT --from-crd FILE --crd-owner external --crdgate 0.1.0 --skip-install`, the command's own code
 * in this process (argv parsed by cli.ts's main, as the installed command does), from the CRD's text as written;
 * then the project's src/contract.ts is imported and its contract made, as `crdgate serve --contract` would. With
 * `--crdgate SPEC --skip-install` init neither packs crdgate nor runs npm: those steps are run for a few CRDs by
 * the real command in a process of its own.
 */
export async function initInProcess(crd: CorpusCrd, dir: string): Promise<InitRun> {
  const file = join(dir, 'crds', `${crd.id}.yaml`);
  await mkdir(join(dir, 'crds'), { recursive: true });
  await writeFile(file, crd.text);
  const project = join(dir, 'projects', crd.id);
  let stderr = '';
  const code = await main(
    ['init', project, '--from-crd', file, '--crd-owner', 'external', '--crdgate', '0.1.0', '--skip-install'],
    {
      cwd: dir,
      stdout: () => {},
      stderr: (text) => (stderr += text),
      waitForStop: () => new Promise<string>(() => {}),
    },
  );
  if (code !== 0) return { code, stderr, load: { loaded: false, error: stderr.trim() } };
  return { code, stderr, load: await loadProjectContract(project) };
}

/** The default export of the project's src/contract.ts, called: the contract the project serves. */
export async function loadProjectContract(project: string): Promise<Load> {
  try {
    const module = (await import(pathToFileURL(join(project, 'src', 'contract.ts')).href)) as {
      default: () => Contract;
    };
    return { loaded: true, contract: module.default() };
  } catch (error) {
    return { loaded: false, error: (error as Error).message };
  }
}
