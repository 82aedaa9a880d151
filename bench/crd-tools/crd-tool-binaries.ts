import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goSourceHash, runCommand } from '../../src/control-plane/build-binaries.ts';
import { crdgateCacheDir, ensureBuilt } from '../../src/control-plane/cached-build.ts';
import { findGo, goVersion } from '../../src/control-plane/go-toolchain.ts';
import { isExecutable } from '../../src/control-plane/kube-assets.ts';

// The other CRD revision checkers the comparison runs, as binaries cached outside the repository under
// ~/.cache/crdgate/crd-tools/, named by what they were built from (as the control plane's binaries are).
//
// crdify and crd-schema-checker are pinned to a release commit. They are built from the Go module proxy when it serves
// them (`go install MODULE@VERSION`); where it does not, from a clone of the tool's repository named by an
// environment variable (the pinned commit is read out of it with `git archive`, so the clone's checkout does not
// matter). Neither: the tool is reported unavailable, with why. OLM v0's preflight is not a program of its own: its
// functions are unexported, so bench/crd-tools/olm-preflight does what they do (see its main.go).

export type CrdToolName = 'crdify' | 'crd-schema-checker' | 'olm-preflight';
export type CrdToolBinary = PinnedToolBinary<CrdToolName>;

/** A Go tool pinned to a release commit: the revision checkers here, kubectl-validate for the check bench. */
export interface PinnedTool<Tool extends string = CrdToolName> {
  tool: Tool;
  module: string;
  version: string;
  commit: string;
  /** The main package, relative to the module. */
  mainPackage: string;
  /** The environment variable naming a clone (or a bare mirror) of its repository. */
  gitEnv: string;
  /** It vendors its dependencies: build with -mod=vendor, nothing downloaded. */
  vendored: boolean;
}

export const PINNED_TOOLS: readonly PinnedTool[] = [
  {
    tool: 'crdify',
    module: 'sigs.k8s.io/crdify',
    version: 'v0.5.0',
    commit: '69e65223aee06a450f77870eb7cdc8cf8ebfe611',
    mainPackage: '.',
    gitEnv: 'CRDGATE_CRDIFY_GIT',
    vendored: false,
  },
  {
    tool: 'crd-schema-checker',
    module: 'github.com/openshift/crd-schema-checker',
    // No release tags: the commit that moved it to Kubernetes 1.36.
    version: 'v0.0.0-20260520082819-a406d1014444',
    commit: 'a406d10144440895bdc7b73cf1d01582354a69a1',
    mainPackage: './cmd/crd-schema-checker',
    gitEnv: 'CRDGATE_CRD_SCHEMA_CHECKER_GIT',
    vendored: true,
  },
];

export const OLM_PREFLIGHT_MODULE_DIR = fileURLToPath(new URL('./olm-preflight/', import.meta.url));

function toolsDir(env: NodeJS.ProcessEnv): string {
  return join(crdgateCacheDir(env), 'crd-tools');
}

export async function resolveCrdTools(
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<CrdToolBinary[]> {
  const go = await findGo(env);
  if (!go)
    return [...PINNED_TOOLS.map((pin) => pin.tool), 'olm-preflight' as const].map((tool) => ({
      tool,
      unavailable: 'Go is not installed (no `go` on PATH)',
    }));
  const dir = toolsDir(env);
  await mkdir(dir, { recursive: true });
  const resolved: CrdToolBinary[] = [];
  for (const pin of PINNED_TOOLS) resolved.push(await resolvePinnedTool(pin, go, dir, log, env));
  resolved.push(await resolveOlmPreflight(go, dir, log, env));
  return resolved;
}

export type PinnedToolBinary<Tool extends string> =
  { tool: Tool; path: string; builtFrom: string } | { tool: Tool; unavailable: string };

/** The tool built into dir (once: the binary is named by its commit), from the Go module proxy or a clone. */
export async function resolvePinnedTool<Tool extends string>(
  pin: PinnedTool<Tool>,
  go: string,
  dir: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<PinnedToolBinary<Tool>> {
  const path = join(dir, `${pin.tool}-${pin.commit.slice(0, 12)}`);
  const builtFrom = `${pin.module} ${pin.version} (${pin.commit.slice(0, 12)})`;
  if (await isExecutable(path)) return { tool: pin.tool, path, builtFrom };
  const goEnv = { ...env, GOWORK: 'off', CGO_ENABLED: '0' };
  const work = await mkdtemp(join(tmpdir(), `crdgate-${pin.tool}-`));
  try {
    log(`building ${pin.tool} from the Go module proxy (${pin.module}@${pin.version})`);
    let proxyRefusal: string | undefined;
    try {
      const mainPath = pin.mainPackage === '.' ? pin.module : `${pin.module}/${pin.mainPackage.replace(/^\.\//, '')}`;
      await runCommand(go, ['install', '-trimpath', `${mainPath}@${pin.version}`], {
        cwd: work,
        env: { ...goEnv, GOBIN: work },
      });
      await rename(
        join(work, pin.mainPackage === '.' ? pin.module.split('/').at(-1)! : pin.mainPackage.split('/').at(-1)!),
        path,
      );
      return { tool: pin.tool, path, builtFrom };
    } catch (error) {
      proxyRefusal = lastLine((error as Error).message);
    }
    const gitDir = env[pin.gitEnv];
    if (!gitDir)
      return {
        tool: pin.tool,
        unavailable: `the Go module proxy does not serve ${pin.module} (${proxyRefusal}); set ${pin.gitEnv} to a clone of its repository to build it from commit ${pin.commit.slice(0, 12)}`,
      };
    log(
      `the Go module proxy does not serve ${pin.module}; building ${pin.tool} from ${pin.gitEnv} at ${pin.commit.slice(0, 12)}`,
    );
    const source = join(work, 'source');
    await mkdir(source);
    await runCommand('sh', ['-c', 'git -C "$1" archive "$2" | tar -x -C "$3"', 'sh', gitDir, pin.commit, source], {
      cwd: work,
      env,
    });
    const temporary = join(dir, `.${pin.tool}.building-${process.pid}`);
    await runCommand(
      'nice',
      [go, 'build', '-trimpath', ...(pin.vendored ? ['-mod=vendor'] : []), '-o', temporary, pin.mainPackage],
      { cwd: source, env: goEnv },
    );
    await rename(temporary, path);
    return { tool: pin.tool, path, builtFrom };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function resolveOlmPreflight(
  go: string,
  dir: string,
  log: (line: string) => void,
  env: NodeJS.ProcessEnv,
): Promise<CrdToolBinary> {
  const builtFrom =
    "OLM v0.46.0's validateV1CRDCompatibility and SafeStorageVersionUpgrade, redone with k8s.io/apiextensions-apiserver (bench/crd-tools/olm-preflight)";
  const built = await ensureBuilt(
    {
      name: 'olm-preflight',
      moduleDir: OLM_PREFLIGHT_MODULE_DIR,
      goPackage: '.',
      tags: [],
      ldflags: [],
      versionArgs: [],
      prove: async () => 'built (olm-preflight answers only to a pair of CRDs)',
    },
    { dir, fileName: `olm-preflight-${await goSourceHash(OLM_PREFLIGHT_MODULE_DIR, await goVersion(go, env))}` },
    { build: true, log, env, buildStep: 'npm run bench -- --crd-tools builds it' },
  );
  return 'path' in built ? { tool: 'olm-preflight', path: built.path, builtFrom } : { tool: 'olm-preflight', ...built };
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.trim() ?? text;
}
