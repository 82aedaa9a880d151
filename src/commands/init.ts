import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { type CrdOwner } from '../contract/contract-definition.ts';
import { ContractDefinitionError } from '../contract/define-contract.ts';
import {
  CrdUnservableError,
  EngineUnavailableError,
  forgetCompiledCrd,
  judge,
  loadCrd,
  type EngineCrd,
} from '../api-server-engine/engine.ts';
import type { ExampleJudge } from '../scaffold/crd-example.ts';
import { readCrdSource, type ExampleReport } from '../scaffold/crd-scaffold.ts';
import type { CrdScaffold } from '../scaffold/from-crd-sources.ts';
import { readObjectFile } from './object-file.ts';
import { NpmError, runNpm } from '../scaffold/npm.ts';
import type { PinnedVersions } from '../scaffold/project-files.ts';
import { scaffoldNameProblems, scaffoldNames } from '../scaffold/scaffold-names.ts';
import { scaffoldProject, scaffoldProjectFromCrd, type ScaffoldFile } from '../scaffold/scaffold-project.ts';
import { scaffoldShape } from '../scaffold/scaffold-shape.ts';
import { runningCrdgateRoot, vendorCrdgate } from '../scaffold/vendor-crdgate.ts';
import { requiredString, stringOption, UsageError, type Command, type CommandIo } from './command.ts';
import { CommandError } from '../errors.ts';
import { formatFieldError, type FieldError } from '../contract/values/field-error.ts';

export const initCommand: Command = {
  name: 'init',
  summary: 'scaffold a project of your own: a contract for your kind, its tests, a Dockerfile',
  usage: `crdgate init DIR --group GROUP --kind KIND [--plural PLURAL] [--scope Namespaced|Cluster]
             [--versions v1beta1,v1] [--hub VERSION] [--storage VERSION] [--crdgate SPEC] [--skip-install]
       crdgate init DIR --from-crd FILE [--crd-name NAME] [--crd-owner crdgate|external] [--example FILE]
                        [--crdgate SPEC] [--skip-install]

  Writes a new project to DIR (which must not exist, or be empty): a contract for KIND.GROUP (src/contract.ts)
  with placeholder spec fields marked TODO, a schema per version, a default, an invariant, a small transition
  machine and, with several versions, a conversion per version (src/versions/); its tests with crdgate/testing
  (an end-to-end one through a real kube-apiserver among them), an example object, a Dockerfile for an image that
  serves the contract, and a README. Then makes package-lock.json (npm install --package-lock-only), so that
  \`npm ci && npm test\` work at once.

  With --from-crd, the kind is the one a CRD you have describes (controller-gen's output, a Helm chart's crds/):
  FILE is copied into DIR/crds/, and the contract reads it when it is made (fromCrd), so its names, versions and
  schemas stay the CRD's; src/contract.ts holds only what crdgate adds (invariants, defaults, transitions, with
  several versions a conversion per version), with tests, an example object and the rest as above.
  With --crd-owner external, the CRD is an operator's (its chart or OLM installs it, with its conversions): the
  contract guards the kind without taking the CRD over (fromCrd(crd, { crdOwner: 'external' })), so crdgate
  renders no CRD, conversion or migration for it, and the copy in DIR/crds/ is what crdgate dev and the
  end-to-end test apply in the operator's place; the README says how to install beside the operator.
  The example object (examples/SINGULAR.yaml, and the tests' copy) is made from the schema (required fields, enums,
  patterns, formats, bounds, defaults) and judged by kube-apiserver's own pipeline, the API server engine, and by
  crdgate; where no object init tries is taken (a CEL rule asks what it cannot guess), init says so, writes the
  closest one with what was refused, and the example tests fail saying what to do. --example FILE gives your own.
  --from-crd FILE   a YAML or JSON file with the CustomResourceDefinition (apiextensions.k8s.io/v1)
  --example FILE    an object of the kind in the hub version (YAML or JSON), for the example and its tests in place
                    of one made from the schema; one the API server or crdgate refuses is an error
  --crd-name NAME   the CRD to take (plural.group) when FILE holds several
  --crd-owner OWNER crdgate (default: crdgate renders the CRD) or external (an operator's CRD)
  --plural PLURAL   the resource name (default: the kind in lowercase, plus "s")
  --scope SCOPE     Namespaced (default) or Cluster
  --versions LIST   the versions, comma-separated, like v1beta1,v1 (default v1)
  --hub VERSION     the version the rules are written against (default: the last one)
  --storage VERSION the version objects are stored in (default: the hub). For a kind already in production in an
                    older version: keep it the storage version, so that the first install only adds versions, and
                    move it later with the storage-version runbook (docs/migration.md)
  --crdgate SPEC    the project's dependency on crdgate: a version range, a git URL or a tarball. By default,
                    this crdgate is packed into DIR/vendor/ and named by a relative path, so that the project
                    installs without a registry that has crdgate (a git checkout is built first)
  --skip-install    no package-lock.json: run npm install in DIR before the README's npm ci`,
  positionals: ['DIR'],
  options: {
    group: { type: 'string' },
    kind: { type: 'string' },
    plural: { type: 'string' },
    scope: { type: 'string' },
    versions: { type: 'string' },
    hub: { type: 'string' },
    storage: { type: 'string' },
    crdgate: { type: 'string' },
    'skip-install': { type: 'boolean' },
    'from-crd': { type: 'string' },
    'crd-name': { type: 'string' },
    'crd-owner': { type: 'string' },
    example: { type: 'string' },
  },
  async run(values, io) {
    const dir = resolve(io.cwd, String(values.DIR));
    // What init says once the project is written: how the example was made, or that it could not be.
    const pendingNotes: string[] = [];
    const crdFile = stringOption(values, 'from-crd');
    let project: { kind: string; group: string; files: (versions: PinnedVersions) => ScaffoldFile[] };
    if (crdFile !== undefined) {
      const fromFlags = ['group', 'kind', 'plural', 'scope', 'versions', 'hub', 'storage'].filter(
        (flag) => values[flag] !== undefined,
      );
      if (fromFlags.length > 0)
        throw new UsageError(`${fromFlags.map((flag) => `--${flag}`).join(', ')}: with --from-crd, the CRD says that`);
      const crdOwner = stringOption(values, 'crd-owner') ?? 'crdgate';
      if (!(crdOwners as readonly string[]).includes(crdOwner))
        throw new UsageError(`--crd-owner must be ${crdOwners.join(' or ')}, got "${crdOwner}"`);
      const exampleFile = stringOption(values, 'example');
      const given =
        exampleFile === undefined
          ? undefined
          : { file: exampleFile, object: (await readObjectFile(exampleFile, io.cwd)).object };
      let source;
      try {
        source = await readCrdSource(crdFile, io.cwd, stringOption(values, 'crd-name'), crdOwner as CrdOwner, {
          apiServer: apiServerJudge,
          ...(given === undefined ? {} : { given }),
        });
      } catch (error) {
        if (error instanceof ContractDefinitionError) throw new UsageError(error.message);
        throw error;
      }
      const { scaffold, crdText, exampleReport } = source;
      const unchecked = apiServerRefusalOf(source.crd, crdFile);
      if (unchecked !== undefined) io.stderr(unchecked);
      pendingNotes.push(...exampleNotes(scaffold, exampleReport, given !== undefined));
      project = {
        kind: scaffold.names.kind,
        group: scaffold.names.group,
        files: (versions) => scaffoldProjectFromCrd(scaffold, crdText, versions),
      };
    } else {
      const crdFlags = ['crd-name', 'crd-owner', 'example'].filter((flag) => values[flag] !== undefined);
      if (crdFlags.length > 0)
        throw new UsageError(`${crdFlags.map((flag) => `--${flag}`).join(', ')}: only with --from-crd`);
      const group = requiredString(values, 'group');
      const kind = requiredString(values, 'kind');
      const names = scaffoldNames(group, kind, stringOption(values, 'plural'));
      const shape = scaffoldShape({
        scope: stringOption(values, 'scope'),
        versions: stringOption(values, 'versions'),
        hub: stringOption(values, 'hub'),
        storage: stringOption(values, 'storage'),
      });
      const problems = [
        ...scaffoldNameProblems(names.group, names.kind, names.plural),
        ...('problems' in shape ? shape.problems : []),
      ];
      if (problems.length > 0 || 'problems' in shape) throw new UsageError(problems.join('; '));
      project = { kind: names.kind, group: names.group, files: (versions) => scaffoldProject(names, shape, versions) };
    }
    await ensureEmptyFolder(dir, String(values.DIR));

    const versions = await pinnedVersions(dir, stringOption(values, 'crdgate'), io);
    for (const file of project.files(versions)) {
      await mkdir(dirname(join(dir, file.path)), { recursive: true });
      await writeFile(join(dir, file.path), file.content);
    }
    io.stdout(`wrote a ${project.kind}.${project.group} project to ${dir}\n`);
    for (const note of pendingNotes) {
      if (note.startsWith('warning:')) io.stderr(`${note}\n`);
      else io.stdout(`${note}\n`);
    }
    if (values['skip-install'] === true) {
      // The README's `npm ci` and the Dockerfile's need the lockfile this run did not make.
      io.stdout(
        `next: cd ${dir} && npm install && npm test (npm install makes package-lock.json, which npm ci needs)\n`,
      );
      return 0;
    }
    await makeLockfile(dir, io);
    io.stdout(`next: cd ${dir} && npm ci && npm test\n`);
    return 0;
  },
};

const crdOwners: readonly CrdOwner[] = ['crdgate', 'external'];

/**
 * A CRD kube-apiserver would refuse makes no project: the API server engine (its own CRD validation) says so in its
 * words, for what crdgate leaves to it (defaults that fail their schema, CEL rules that do not compile or cost too
 * much). Where the engine is not installed, a `warning:` line says the CRD was not checked, and init goes on; so does
 * one for a CRD that serves no version, which the API server takes.
 */
function apiServerRefusalOf(crd: unknown, file: string): string | undefined {
  let refusal: readonly FieldError[];
  try {
    refusal = loadCrd(crd).refusal;
  } catch (error) {
    if (error instanceof EngineUnavailableError)
      return `warning: --from-crd ${file}: not checked against kube-apiserver's CRD validation: ${error.message}\n`;
    if (error instanceof CrdUnservableError && error.refusal.length === 0 && !servesAVersion(crd))
      return `warning: --from-crd ${file}: the CRD serves no version: kube-apiserver takes it, but no object of the kind can be read or written, so nothing reaches the contract until a version is served\n`;
    if (error instanceof CrdUnservableError)
      throw new UsageError(`--from-crd ${file}: kube-apiserver cannot serve this CRD: ${error.message}`);
    throw error;
  } finally {
    forgetCompiledCrd(crd);
  }
  if (refusal.length > 0)
    throw new UsageError(
      `--from-crd ${file}: kube-apiserver would refuse this CRD: ${refusal.map(formatFieldError).join('; ')}`,
    );
  return undefined;
}

/** kube-apiserver's judgement of a create of the object, through the engine; none where the engine is not built. */
function apiServerJudge(crd: unknown): ExampleJudge | { unavailable: string } {
  let compiled: EngineCrd;
  try {
    compiled = loadCrd(crd);
  } catch (error) {
    if (error instanceof EngineUnavailableError || error instanceof CrdUnservableError)
      return { unavailable: error.message };
    throw error;
  }
  return (object) => {
    const judgement = judge(compiled, { operation: 'CREATE', object, fieldValidation: 'Strict' });
    if (judgement.allowed) return [];
    return judgement.causes.length > 0
      ? judgement.causes
      : [{ field: '', type: 'FieldValueInvalid', message: judgement.message ?? 'refused' }];
  };
}

/** What init says of the example: where it is, who judged it, and, where none was taken, what to do. */
function exampleNotes(scaffold: CrdScaffold, report: ExampleReport, given: boolean): string[] {
  const file = `examples/${scaffold.names.singular}.yaml`;
  const judgedBy = report.judgedBy.apiServer
    ? 'the API server engine (kube-apiserver v1.36) and crdgate'
    : `crdgate's schema check alone (the API server engine is not here: ${report.judgedBy.unavailable})`;
  if (scaffold.exampleRefusal === undefined)
    return [
      given
        ? `${file}: your example, taken by ${judgedBy}`
        : `${file}: an example made from the schema, taken by ${judgedBy} (${report.tries} ${report.tries === 1 ? 'try' : 'tries'})`,
    ];
  return [
    `warning: could not make an example object the CRD's schema takes (${report.tries} tries, judged by ${judgedBy}); the closest one was refused:`,
    ...scaffold.exampleRefusal.map((line) => `warning:   ${line}`),
    `warning: ${file} holds it with a TODO, and the example tests fail until it is fixed there and in the tests' copy (or run init again with --example FILE)`,
  ];
}

function servesAVersion(crd: unknown): boolean {
  const versions = (crd as { spec?: { versions?: unknown } } | undefined)?.spec?.versions;
  return Array.isArray(versions) && versions.some((version) => (version as { served?: unknown })?.served === true);
}

async function ensureEmptyFolder(dir: string, given: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new UsageError(
      `${given}: cannot read the folder: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  if (entries.length > 0)
    throw new UsageError(`${given} is not empty: init writes a new project into an empty or new folder`);
}

/**
 * The versions crdgate itself is built and tested with, from its own package.json, and the project's crdgate:
 * the SPEC given, or this crdgate vendored into the project (NPM_FAILED when npm cannot pack it).
 */
async function pinnedVersions(dir: string, crdgateSpec: string | undefined, io: CommandIo): Promise<PinnedVersions> {
  const own = JSON.parse(await readFile(join(runningCrdgateRoot, 'package.json'), 'utf8')) as {
    version: string;
    devDependencies: Record<string, string>;
  };
  const devDependency = (name: string): string => {
    const version = own.devDependencies[name];
    if (version === undefined) throw new Error(`crdgate's package.json has no devDependency ${name}`);
    return version;
  };
  const others = {
    node: devDependency('node'),
    typescript: devDependency('typescript'),
    typesNode: devDependency('@types/node'),
    fastCheck: devDependency('fast-check'),
  };
  if (crdgateSpec !== undefined) return { crdgate: crdgateSpec, ...others };
  io.stdout(
    `packing crdgate ${own.version} from ${runningCrdgateRoot} into ${join(dir, 'vendor')} (it is not in a registry yet)\n`,
  );
  try {
    const tarball = await vendorCrdgate(runningCrdgateRoot, dir);
    return { crdgate: `file:${tarball}`, crdgateTarball: tarball, ...others };
  } catch (error) {
    if (!(error instanceof NpmError)) throw error;
    throw npmFailure('could not pack crdgate into the project (give --crdgate SPEC to depend on it otherwise)', error);
  }
}

/** package-lock.json, so that `npm ci` works at once. The project is written whatever happens here. */
async function makeLockfile(dir: string, io: CommandIo): Promise<void> {
  try {
    await runNpm(['install', '--package-lock-only', '--no-audit', '--no-fund'], dir);
    io.stdout('wrote package-lock.json\n');
  } catch (error) {
    if (!(error instanceof NpmError)) throw error;
    throw npmFailure(
      `the project is written, but npm could not make package-lock.json (once that is fixed, run npm install in ${dir})`,
      error,
    );
  }
}

/** What init was doing in the one line, npm's own complaint (its lines after the first) as the detail below it. */
function npmFailure(doing: string, error: NpmError): CommandError {
  const [first, ...rest] = error.message.split('\n');
  return new CommandError('NPM_FAILED', `${doing}: ${first}`, rest.length > 0 ? rest.join('\n') : undefined);
}
