import { buildAndPlaceEngine } from '../../src/api-server-engine/build-engine.ts';
import type { CachedBinary } from '../../src/control-plane/cached-build.ts';
import { resolveHelm } from '../../src/control-plane/helm-binary.ts';
import { resolveCelCostEstimator, resolveKubeAssets } from '../../src/control-plane/kube-assets.ts';
import { resolveOlmValidator } from '../../src/control-plane/olm-validator.ts';
import { resolvePeerBinary } from '../../bench/peer/peer-binary.ts';
import { findGo } from '../../src/control-plane/go-toolchain.ts';
import { buildControllerGen } from '../fixtures/controller-gen/generate.ts';

// Everything the test suite builds from Go modules, built before any test file runs, once (the build cache and its
// lock see to that across processes), so that no test spends its own timeout on a build: a test that finds its tool
// missing fails, naming TOOLS_BUILD_STEP.

/** The vitest projects of vitest.config.ts. */
export type SuiteProject = 'unit' | 'wasm' | 'integration' | 'e2e';

/** What a test says when its tool is not there. */
export const TOOLS_BUILD_STEP =
  "the test run's setup builds it before any test (test/tools/tools-setup.ts); alone: npm run test:tools";

export interface SuiteTool {
  name: string;
  /**
   * Tools of one chain are built one after another, in the order of SUITE_TOOLS; chains are built at the same time.
   * Go's build cache is shared across processes but not its work in flight: a tool built from the same packages as
   * another (celcost from kube-apiserver's) follows it and finds them compiled, while unrelated builds run side by
   * side and fill each other's single-threaded phases (module downloads, links).
   */
  chain: string;
  /** The projects whose tests use it: each project's setup builds its own tools. */
  projects: readonly SuiteProject[];
  /** Test files that run it, which `npm run test:fresh` runs after building it from empty caches. */
  provenBy: readonly string[];
  /** Found in crdgate's cache, or built into it (minutes when cold). */
  ensure(log: (line: string) => void, env: NodeJS.ProcessEnv): Promise<CachedBinary>;
}

export const SUITE_TOOLS: readonly SuiteTool[] = [
  {
    name: 'the API server engine',
    chain: 'engine',
    projects: ['unit', 'wasm', 'e2e'],
    provenBy: [
      'src/api-server-engine/engine.test.ts',
      'src/api-server-engine/engine-agreement.test.ts',
      'test/e2e/check-crd.e2e.test.ts',
    ],
    ensure: async (log, env) => {
      const built = await buildAndPlaceEngine({ log, env });
      return 'path' in built ? { path: built.path } : built;
    },
  },
  {
    name: 'the controller-runtime peer',
    chain: 'peer',
    projects: ['unit'],
    provenBy: ['bench/peer/peer-agreement.test.ts'],
    ensure: (log, env) => resolvePeerBinary({ build: true, log, env }),
  },
  {
    name: 'kube-apiserver, etcd and kubectl',
    chain: 'kubernetes',
    projects: ['e2e'],
    provenBy: ['test/e2e/control-plane.e2e.test.ts'],
    ensure: async (log, env) => {
      const assets = await resolveKubeAssets({ build: true, log, env });
      return 'dir' in assets ? { path: assets.dir } : assets;
    },
  },
  {
    name: 'helm',
    chain: 'helm',
    projects: ['e2e'],
    provenBy: ['test/e2e/helm-chart.e2e.test.ts'],
    ensure: (log, env) => resolveHelm({ build: true, log, env }),
  },
  {
    name: 'celcost',
    chain: 'kubernetes',
    projects: ['e2e'],
    provenBy: ['test/e2e/policy-budgets.e2e.test.ts'],
    ensure: (log, env) => resolveCelCostEstimator({ build: true, log, env }),
  },
  {
    name: 'olm-validate',
    chain: 'olm-validate',
    projects: ['e2e'],
    provenBy: ['test/e2e/olm-bundle-validator.e2e.test.ts'],
    ensure: (log, env) => resolveOlmValidator({ build: true, log, env }),
  },
  {
    name: 'controller-gen',
    chain: 'controller-gen',
    projects: ['e2e'],
    provenBy: ['test/e2e/controller-gen-fixtures.e2e.test.ts'],
    ensure: async (log, env) => {
      const go = await findGo(env);
      if (!go) return { unavailable: 'Go is not installed (no `go` on PATH), so controller-gen cannot be built' };
      const started = Date.now();
      try {
        // Go's own build cache keeps it (go tool), named by what it is built from.
        const path = await buildControllerGen(go, env);
        log(`built or found in Go's build cache in ${Math.round((Date.now() - started) / 1000)} s`);
        return { path };
      } catch (error) {
        return { unavailable: `building controller-gen with ${go} failed: ${(error as Error).message}` };
      }
    },
  },
];

export interface ToolOutcome {
  tool: SuiteTool;
  found: CachedBinary;
  seconds: number;
}

/**
 * Builds the tools of these projects, each chain at the same time as the others, printing each build's progress and
 * a line per tool with its time.
 */
export async function buildSuiteTools(
  projects: readonly SuiteProject[],
  log: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ToolOutcome[]> {
  const wanted = SUITE_TOOLS.filter((tool) => tool.projects.some((project) => projects.includes(project)));
  const chains = Map.groupBy(wanted, (tool) => tool.chain);
  const outcomes = await Promise.all(
    [...chains.values()].map(async (chain) => {
      const built: ToolOutcome[] = [];
      for (const tool of chain) built.push(await ensureTool(tool, log, env));
      return built;
    }),
  );
  return outcomes.flat();
}

async function ensureTool(tool: SuiteTool, log: (line: string) => void, env: NodeJS.ProcessEnv): Promise<ToolOutcome> {
  const started = Date.now();
  const found = await tool.ensure((line) => log(`${tool.name}: ${line}`), env);
  const seconds = Math.round((Date.now() - started) / 1000);
  log(
    'path' in found
      ? `${tool.name}: ready in ${seconds} s (${found.path})`
      : `${tool.name}: UNAVAILABLE after ${seconds} s: ${found.unavailable}`,
  );
  return { tool, found, seconds };
}

/** The path of a tool the setup built, for a test; throws naming the build step when it is not there. */
async function builtTool(name: string, find: () => Promise<CachedBinary>): Promise<string> {
  const found = await find();
  if ('unavailable' in found) throw new Error(`${name} is not available to this test: ${found.unavailable}`);
  return found.path;
}

export const builtHelm = (): Promise<string> =>
  builtTool('helm', () => resolveHelm({ build: false, buildStep: TOOLS_BUILD_STEP }));

export const builtCelCostEstimator = (): Promise<string> =>
  builtTool('celcost', () => resolveCelCostEstimator({ build: false, buildStep: TOOLS_BUILD_STEP }));

export const builtOlmValidator = (): Promise<string> =>
  builtTool('olm-validate', () => resolveOlmValidator({ build: false, buildStep: TOOLS_BUILD_STEP }));
