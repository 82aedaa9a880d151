import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { PinnedVersions } from '../scaffold/project-files.ts';
import { scaffoldNameProblems, scaffoldNames } from '../scaffold/scaffold-names.ts';
import { scaffoldProject } from '../scaffold/scaffold-project.ts';
import { requiredString, stringOption, UsageError, type Command, type CommandIo } from './command.ts';

export const initCommand: Command = {
  name: 'init',
  summary: 'scaffold a project of your own: a contract for your kind, its tests, a Dockerfile',
  usage: `crdgate init DIR --group GROUP --kind KIND [--plural PLURAL] [--crdgate SPEC] [--skip-install]

  Writes a new project to DIR (which must not exist, or be empty): a contract for KIND.GROUP with one version,
  a schema, an invariant, defaults and a small transition machine (src/contract.ts), its tests with
  crdgate/testing, an example object, a Dockerfile for an image that serves the contract, and a README.
  Then makes package-lock.json (npm install --package-lock-only), so that \`npm ci && npm test\` work at once.
  --plural PLURAL   the resource name (default: the kind in lowercase, plus "s")
  --crdgate SPEC    the project's dependency on crdgate: a version range, a git URL or a tarball
                    (default: ^VERSION of this crdgate)
  --skip-install    write the files only; no package-lock.json`,
  positionals: ['DIR'],
  options: {
    group: { type: 'string' },
    kind: { type: 'string' },
    plural: { type: 'string' },
    crdgate: { type: 'string' },
    'skip-install': { type: 'boolean' },
  },
  async run(values, io) {
    const dir = resolve(io.cwd, String(values.DIR));
    const group = requiredString(values, 'group');
    const kind = requiredString(values, 'kind');
    const names = scaffoldNames(group, kind, stringOption(values, 'plural'));
    const problems = scaffoldNameProblems(names.group, names.kind, names.plural);
    if (problems.length > 0) throw new UsageError(problems.join('; '));
    await ensureEmptyFolder(dir, String(values.DIR));

    const versions = await pinnedVersions(stringOption(values, 'crdgate'));
    for (const file of scaffoldProject(names, versions)) {
      await mkdir(dirname(join(dir, file.path)), { recursive: true });
      await writeFile(join(dir, file.path), file.content);
    }
    io.stdout(`wrote a ${names.kind}.${names.group} project to ${dir}\n`);
    if (values['skip-install'] === true) return 0;
    if (!(await makeLockfile(dir, io))) return 1;
    io.stdout(`next: cd ${dir} && npm ci && npm test\n`);
    return 0;
  },
};

async function ensureEmptyFolder(dir: string, given: string): Promise<void> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new UsageError(`${given}: cannot read the folder: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (entries.length > 0) throw new UsageError(`${given} is not empty: init writes a new project into an empty or new folder`);
}

/** The versions crdgate itself is built and tested with, from its own package.json. */
async function pinnedVersions(crdgateSpec: string | undefined): Promise<PinnedVersions> {
  // ../../package.json from src/commands/ and from dist/commands/ alike.
  const own = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
    devDependencies: Record<string, string>;
  };
  const dev = (name: string): string => {
    const version = own.devDependencies[name];
    if (version === undefined) throw new Error(`crdgate's package.json has no devDependency ${name}`);
    return version;
  };
  return { crdgate: crdgateSpec ?? `^${own.version}`, node: dev('node'), typescript: dev('typescript'), typesNode: dev('@types/node') };
}

/** package-lock.json, so that `npm ci` works at once. The project is written whatever happens here. */
async function makeLockfile(dir: string, io: CommandIo): Promise<boolean> {
  try {
    await promisify(execFile)('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
    io.stdout('wrote package-lock.json\n');
    return true;
  } catch (error) {
    const detail = String((error as { stderr?: string }).stderr ?? (error as Error).message)
      .split('\n')
      .find((line) => /\bERR!/.test(line) && !/A complete log/.test(line)) ?? (error as Error).message.split('\n')[0];
    io.stderr(`crdgate init: the project is written, but npm could not make package-lock.json (${(detail ?? '').trim()}); run npm install in ${dir}\n`);
    return false;
  }
}
