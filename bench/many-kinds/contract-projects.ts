import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CrdOwner } from '../../src/contract/contract-definition.ts';
import { objectShapeProblem } from '../../src/protocol/object-shape-problem.ts';
import { readCrdSource } from '../../src/scaffold/crd-scaffold.ts';
import { contractSourceFromCrd } from '../../src/scaffold/from-crd-sources.ts';
import type { CorpusCrd } from '../../test/fixtures/crd-corpus/corpus.ts';

// The contracts of the --many-kinds mode, written as a user's projects hold them: for each CRD, its file as the
// project publishes it (crds/) and the src/contract.ts that `crdgate init --from-crd` scaffolds for it (the very
// source the scaffold writes, which reads the CRD when the contract is made), in one folder the server starts in.
// 'crdgate' resolves to the crdgate under test, as a project's node_modules/crdgate would.

/** Up to this many of a project's samples of a kind become its reviews' objects. */
const samplesPerKind = 4;

export interface GuardedKind {
  id: string;
  project: string;
  yamlBytes: number;
  group: string;
  kind: string;
  plural: string;
  /** The version the contract is written against, in which the API server sends the webhooks its objects. */
  hub: string;
  namespaced: boolean;
  /**
   * The objects its reviews carry: the project's samples in the hub version whose metadata the API server could
   * decode, else the scaffold's example.
   */
  objects: Record<string, unknown>[];
  objectsFrom: 'samples' | 'example';
  /** The --contract module of each owner the run asked for, relative to the folder. */
  modules: Partial<Record<CrdOwner, string>>;
  /** The guard's copy of the CRD's file, relative to the folder: what its module reads as it loads. */
  crdFile: string;
}

export interface ContractProjects {
  /** The folder the servers start in. */
  dir: string;
  kinds: GuardedKind[];
  /** The built-in example as a TypeScript --contract module: what loading any .ts contract costs, kinds aside. */
  exampleModule: string;
  remove(): Promise<void>;
}

/** Where the crdgate under test is: its src/ (compiled or not) and the extension its modules have there. */
export interface CrdgateUnderTest {
  srcDir: string;
  extension: 'js' | 'ts';
}

/**
 * Writes the projects of `crds` into a temporary folder: each with the guard of an operator's CRD
 * (`--crd-owner external`), and for the first `ownedCount` the contract that owns it too. Scaffolding checks that
 * each contract loads, as init does (without the API server engine: the example is held to crdgate's schema check).
 */
export async function writeContractProjects(
  crds: readonly CorpusCrd[],
  ownedCount: number,
  crdgate: CrdgateUnderTest,
): Promise<ContractProjects> {
  const dir = await mkdtemp(join(tmpdir(), 'crdgate-bench-many-kinds-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await linkCrdgate(dir, crdgate);
    const kinds: GuardedKind[] = [];
    for (const [index, crd] of crds.entries()) {
      const owners: CrdOwner[] = index < ownedCount ? ['external', 'crdgate'] : ['external'];
      kinds.push(await writeProjects(dir, crd, owners));
    }
    const exampleModule = join('example', 'src', 'contract.ts');
    await mkdir(join(dir, 'example', 'src'), { recursive: true });
    const example = pathToFileURL(join(crdgate.srcDir, 'contracts', 'geodatabase', `index.${crdgate.extension}`));
    await writeFile(
      join(dir, exampleModule),
      `import { geoDatabaseContract } from '${example.href}';\n\nexport default geoDatabaseContract;\n`,
    );
    return { dir, kinds, exampleModule, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** node_modules/crdgate: a package whose entry is the src/ under test, linked so that it is the server's own copy. */
async function linkCrdgate(dir: string, crdgate: CrdgateUnderTest): Promise<void> {
  const packageDir = join(dir, 'node_modules', 'crdgate');
  await mkdir(packageDir, { recursive: true });
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'many-kinds', private: true, type: 'module' }));
  await writeFile(
    join(packageDir, 'package.json'),
    JSON.stringify({ name: 'crdgate', type: 'module', exports: { '.': `./src/index.${crdgate.extension}` } }),
  );
  await symlink(crdgate.srcDir, join(packageDir, 'src'), 'dir');
}

async function writeProjects(dir: string, crd: CorpusCrd, owners: CrdOwner[]): Promise<GuardedKind> {
  const modules: Partial<Record<CrdOwner, string>> = {};
  let guarded: GuardedKind | undefined;
  for (const owner of owners) {
    const project = join(owner === 'external' ? 'external' : 'owned', crd.id);
    const crdFile = join(dir, project, 'crds', `${crd.id}.yaml`);
    await mkdir(join(dir, project, 'crds'), { recursive: true });
    await mkdir(join(dir, project, 'src'), { recursive: true });
    await writeFile(crdFile, crd.text);
    const { scaffold } = await readCrdSource(crdFile, join(dir, project), undefined, owner);
    modules[owner] = join(project, 'src', 'contract.ts');
    await writeFile(join(dir, modules[owner]), contractSourceFromCrd(scaffold));
    if (owner !== 'external') continue;
    const { names, shape } = scaffold;
    const samples = crd.samples
      .flatMap((sample) => sample.documents)
      .filter((document) => document['apiVersion'] === `${names.group}/${shape.hub}`)
      // What the API server could send: it decodes metadata into ObjectMeta first (a sample with a boolean annotation,
      // as one project's has, never reaches a webhook, and crdgate answers such a review 400).
      .filter((document) => objectShapeProblem(document, 'object') === undefined)
      .slice(0, samplesPerKind);
    guarded = {
      id: crd.id,
      project: crd.project,
      yamlBytes: Buffer.byteLength(crd.text),
      group: names.group,
      kind: names.kind,
      plural: names.plural,
      hub: shape.hub,
      namespaced: shape.scope === 'Namespaced',
      objects: samples.length > 0 ? samples : [scaffold.example],
      objectsFrom: samples.length > 0 ? 'samples' : 'example',
      modules,
      crdFile: join(project, 'crds', `${crd.id}.yaml`),
    };
  }
  if (!guarded) throw new Error(`${crd.id}: no guard of the operator's CRD was written`);
  return guarded;
}
