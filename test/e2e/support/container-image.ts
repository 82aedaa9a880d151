import { execFile } from 'node:child_process';
import { chmod, chown, cp, lstat, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, matchesGlob, posix, relative } from 'node:path';
import { promisify } from 'node:util';
import { findGo } from '../../../src/control-plane/go-toolchain.ts';
import { scratchEnv } from './npm.ts';

const execFileAsync = promisify(execFile);

/** What a container runtime takes from an image to start a container: the runtime stage's settings. */
export interface ImageConfig {
  entrypoint: string[];
  cmd: string[];
  /** ENV of the runtime stage, in order (the base image's own ENV, such as PATH, is the caller's to add). */
  env: Record<string, string>;
  workingDir: string;
  user: { uid: number; gid: number };
  /** The Node version of the `node:VERSION-...` base image. */
  nodeVersion: string;
}

/** A built image: its configuration and a folder holding what its WORKDIR holds. */
export interface BuiltImage {
  config: ImageConfig;
  /** The WORKDIR's contents, owned by root and not writable by anyone else, as the image's layers leave them. */
  workDir: string;
  /** The folder of all its stages, which remove() removes. */
  root: string;
  remove: () => Promise<void>;
}

interface Instruction {
  keyword: string;
  rest: string;
}

interface Stage {
  name?: string;
  base: string;
  instructions: Instruction[];
}

/**
 * Builds an image from a Dockerfile without a container runtime, for tests that start its containers as a kubelet
 * would: each stage's WORKDIR is a folder, COPY copies into it (from the build context, or from another stage's
 * WORKDIR with --from), leaving out what the context's .dockerignore excludes; RUN runs its shell command there on
 * this machine's Node (the image's Node version, which the caller checks) with npm preferring its cache, or in a
 * `golang:VERSION` stage on this machine's Go, which must be that minor release. Only the instructions crdgate's
 * Dockerfiles use are understood; any other stops the build, so that an image this cannot reproduce is never tested
 * as if it could.
 */
export async function buildImage(dockerfilePath: string, context: string, nodeBinDir: string): Promise<BuiltImage> {
  const stages = parseDockerfile(await readFile(dockerfilePath, 'utf8'));
  const ignored = await dockerIgnore(context);
  const scratch = await mkdtemp(join(tmpdir(), 'crdgate-image-'));
  await chmod(scratch, 0o755);
  const built = new Map<string, string>();
  let config: ImageConfig | undefined;
  for (const [index, stage] of stages.entries()) {
    const root = join(scratch, `stage-${index}`);
    await mkdir(root, { mode: 0o755 });
    config = await buildStage(stage, root, { context, ignored, nodeBinDir, built });
    if (stage.name) built.set(stage.name, root);
    built.set(String(index), root);
  }
  const workDir = join(scratch, `stage-${stages.length - 1}`);
  await denyWrites(workDir);
  return { config: config!, workDir, root: scratch, remove: () => rm(scratch, { recursive: true, force: true }) };
}

export function parseDockerfile(text: string): Stage[] {
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  for (const line of logical) {
    const [, keyword, rest] = /^(\S+)\s*(.*)$/.exec(line)!;
    const upper = keyword!.toUpperCase();
    const substituted = rest!.replace(
      /\$\{(\w+)\}|\$(\w+)/g,
      (whole, braced: string | undefined, bare: string | undefined) => args.get((braced ?? bare)!) ?? whole,
    );
    if (upper === 'ARG' && stages.length === 0) {
      const [name, value = ''] = substituted.split('=', 2);
      args.set(name!, value);
    } else if (upper === 'FROM') {
      const [base, as, name] = substituted.split(/\s+/);
      stages.push({ base: base!, ...(as?.toUpperCase() === 'AS' ? { name } : {}), instructions: [] });
    } else {
      if (stages.length === 0) throw new Error(`Dockerfile: ${keyword} before the first FROM`);
      stages.at(-1)!.instructions.push({ keyword: upper, rest: substituted });
    }
  }
  if (stages.length === 0) throw new Error('Dockerfile: no FROM');
  return stages;
}

interface BuildContext {
  context: string;
  /** Whether .dockerignore leaves a path of the context (relative to it) out of the build. */
  ignored: (path: string) => boolean;
  nodeBinDir: string;
  built: Map<string, string>;
}

async function buildStage(stage: Stage, root: string, build: BuildContext): Promise<ImageConfig> {
  const nodeVersion = /^node:(\d+\.\d+\.\d+)(-|$)/.exec(stage.base)?.[1];
  const goVersion = /^golang:(\d+\.\d+\.\d+)(-|$)/.exec(stage.base)?.[1];
  if (!nodeVersion && !goVersion)
    throw new Error(`Dockerfile: FROM ${stage.base} is neither a node:VERSION nor a golang:VERSION image`);
  const binDir = goVersion ? await goBinDir(goVersion) : build.nodeBinDir;
  const config: ImageConfig = {
    entrypoint: [],
    cmd: [],
    env: {},
    workingDir: '/',
    user: { uid: 0, gid: 0 },
    nodeVersion: nodeVersion ?? '',
  };
  for (const { keyword, rest } of stage.instructions) {
    switch (keyword) {
      case 'ARG':
      case 'EXPOSE':
        break;
      case 'WORKDIR':
        if (config.workingDir !== '/') throw new Error(`Dockerfile: a second WORKDIR (${rest}) is not supported`);
        config.workingDir = rest;
        break;
      case 'ENV':
        Object.assign(config.env, parseEnv(rest));
        break;
      case 'USER': {
        const [uid, gid = uid] = rest.split(':');
        if (!/^\d+$/.test(uid!) || !/^\d+$/.test(gid!)) throw new Error(`Dockerfile: USER ${rest} must be numeric`);
        config.user = { uid: Number(uid), gid: Number(gid) };
        break;
      }
      case 'ENTRYPOINT':
        config.entrypoint = parseExecForm(keyword, rest);
        config.cmd = [];
        break;
      case 'CMD':
        config.cmd = parseExecForm(keyword, rest);
        break;
      case 'COPY':
        await copy(rest, root, config.workingDir, build);
        break;
      case 'RUN':
        await run(rest, root, config.env, binDir);
        break;
      default:
        throw new Error(`Dockerfile: ${keyword} is not understood by this test's image builder`);
    }
  }
  return config;
}

function parseEnv(rest: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const match of rest.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
    const raw = match[2]!;
    env[match[1]!] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  }
  if (Object.keys(env).length === 0) throw new Error(`Dockerfile: ENV ${rest} is not NAME=VALUE`);
  return env;
}

function parseExecForm(keyword: string, rest: string): string[] {
  const parsed: unknown = JSON.parse(rest);
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string'))
    throw new Error(`Dockerfile: ${keyword} must be in exec form`);
  return parsed;
}

async function copy(rest: string, root: string, workingDir: string, build: BuildContext): Promise<void> {
  const parts = rest.split(/\s+/);
  const from = parts[0]!.startsWith('--from=') ? parts.shift()!.slice('--from='.length) : undefined;
  if (parts.some((part) => part.startsWith('--')))
    throw new Error(`Dockerfile: COPY ${rest}: flags other than --from are not supported`);
  const destination = parts.pop()!;
  const target = join(root, inside(workingDir, destination));
  for (const source of parts) {
    let path: string;
    let filter: ((path: string) => boolean) | undefined;
    if (from === undefined) {
      path = join(build.context, source);
      filter = (copied) => !build.ignored(relative(build.context, copied));
    } else {
      const stageRoot = build.built.get(from);
      if (!stageRoot) throw new Error(`Dockerfile: COPY --from=${from}: no such stage`);
      // Stages are folders of their WORKDIR, which crdgate's Dockerfiles share: /app.
      path = join(stageRoot, inside(workingDir, source));
    }
    const into = destination.endsWith('/') ? join(target, posix.basename(source)) : target;
    await mkdir(dirname(into), { recursive: true });
    await cp(path, into, { recursive: true, ...(filter ? { filter } : {}) });
  }
}

/**
 * .dockerignore as Docker reads it: each line a pattern over paths of the context, which also excludes what lies
 * below a matched folder; a `!` line brings a path back; the last line that matches decides.
 */
async function dockerIgnore(context: string): Promise<(path: string) => boolean> {
  const text = await readFile(join(context, '.dockerignore'), 'utf8').catch(() => '');
  const rules = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => ({
      keep: line.startsWith('!'),
      pattern: posix.normalize(line.replace(/^!/, '')).replace(/^\/|\/$/g, ''),
    }));
  return (path) => {
    const matches = (pattern: string) => {
      const parts = path.split('/');
      return parts.some((_, end) => matchesGlob(parts.slice(0, end + 1).join('/'), pattern));
    };
    let ignored = false;
    for (const rule of rules) if (matches(rule.pattern)) ignored = !rule.keep;
    return ignored;
  };
}

/**
 * The folder of this machine's Go, which a `golang:VERSION` stage's RUN runs on. Nothing pins the machine's Go to a
 * patch release, as the `node` devDependency pins Node, so it must be the image's minor release (the language and
 * standard library the engine is built against), not its patch.
 */
async function goBinDir(version: string): Promise<string> {
  const minor = version.split('.').slice(0, 2).join('.');
  const go = await findGo(process.env);
  if (!go)
    throw new Error(`Dockerfile: a golang:${version} stage needs Go ${minor} on this machine, and there is none`);
  const { stdout } = await execFileAsync(go, ['env', 'GOVERSION', 'GOROOT']);
  const [found = '', goRoot = ''] = stdout.trim().split('\n');
  if (!found.startsWith(`go${minor}.`) && found !== `go${minor}`)
    throw new Error(`Dockerfile: a golang:${version} stage needs Go ${minor} on this machine, which has ${found}`);
  return join(goRoot, 'bin');
}

/** A path of the image as a path inside its WORKDIR folder. */
function inside(workingDir: string, path: string): string {
  const absolute = isAbsolute(path) ? path : posix.join(workingDir, path);
  const within = posix.relative(workingDir, absolute);
  if (within.startsWith('..')) throw new Error(`Dockerfile: ${path} is outside the WORKDIR ${workingDir}`);
  return within;
}

async function run(command: string, root: string, env: Record<string, string>, nodeBinDir: string): Promise<void> {
  const path = `${nodeBinDir}:${process.env['PATH'] ?? '/usr/bin:/bin'}`;
  try {
    await execFileAsync('sh', ['-c', command], {
      cwd: root,
      env: {
        ...scratchEnv(),
        ...env,
        PATH: path,
        npm_config_prefer_offline: 'true',
        npm_config_update_notifier: 'false',
      },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `Dockerfile: RUN ${command} failed: ${failed.message}\n${failed.stdout ?? ''}${failed.stderr ?? ''}`,
    );
  }
}

/** Root owns every file and only root may write, as in an image's layers when the container runs as another user. */
async function denyWrites(dir: string): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const visit = async (path: string): Promise<void> => {
    const info = await lstat(path);
    if (info.isSymbolicLink()) return;
    if (asRoot) await chown(path, 0, 0);
    const readable = info.isDirectory() || (info.mode & 0o111) !== 0 ? 0o555 : 0o444;
    await chmod(path, readable | (asRoot ? 0o200 : 0));
    if (info.isDirectory()) for (const entry of await readdir(path)) await visit(join(path, entry));
  };
  await visit(dir);
}
