import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineKind } from '../../src/api-server-engine/engine.ts';
import type { EngineRounds } from './engine-timer.ts';
import { resolveCelTimer } from './cel-timer-binary.ts';

// crdgate's API server engine against cel-go itself on the same CRD rules and objects: the engine (kube-apiserver's
// pipeline, as a native process and as WebAssembly) judging them through crdgate's engine API (engine-timer.ts), and
// kube-apiserver's CEL validator natively (main.go, the cel-timer). All are Go from the same pinned modules; what
// differs is the engine's way in (JSON across the boundary, and for the native engine a pipe to another process,
// which the difference below takes out) and, for WebAssembly, V8 running the Go code.

export interface CelComparisonPlan {
  crdPath: string;
  /** The objects, and the stored object of each for the updates (line for line). */
  objects: readonly unknown[];
  olds: readonly unknown[];
  rounds: number;
  /** engine-timer compiled (the bench's compiled copy of bench/), or undefined to run it from source. */
  engineTimerScript?: string;
  /** The engines to time (CRDGATE_ENGINE), each against the same cel-go rounds. */
  engines: readonly EngineKind[];
}

export interface CelComparisonPass {
  objects: number;
  /** Rule evaluations in one round over all objects, as the cel-timer counts what the validator runs. */
  evaluations: number;
  /** Best round's CPU time of cel-go (the API server's validator, natively), in nanoseconds. */
  celGoCpuNs: number;
  celGoWallNs: number;
  /** Best rounds' CPU time of the engine's judge with the CRD's rules, and with every rule removed. */
  engineWithRulesCpuNs: number;
  engineWithoutRulesCpuNs: number;
  engineWithRulesWallNs: number;
  engineWithoutRulesWallNs: number;
  /** The rules' part of the engine's time: with rules minus without. */
  engineRulesCpuNs: number;
  engineRulesWallNs: number;
  /** engineRulesCpuNs / celGoCpuNs: how many times cel-go's time the engine takes per rule evaluation. */
  ratio: number;
  wallRatio: number;
}

export interface CelComparison {
  rules: number;
  modules: Record<string, string>;
  goVersion: string;
  engines: Array<{ engine: EngineKind; create: CelComparisonPass; update: CelComparisonPass }>;
}

interface CelTimerReport {
  modules: Record<string, string>;
  goVersion: string;
  rules: number;
  create: CelTimerPass;
  update?: CelTimerPass;
}

interface CelTimerPass {
  objects: number;
  evaluations: number;
  roundsNs: number[];
  roundsCpuNs: number[];
}

type EngineReport = { engine?: EngineKind; withRules: EngineRounds; withoutRules: EngineRounds };

const engineTimerSource = fileURLToPath(new URL('./engine-timer.ts', import.meta.url));

/** Undefined (with a warning through progress) where Go is missing: the cel-timer cannot be built. */
export async function compareWithCelGo(
  plan: CelComparisonPlan,
  progress: (line: string) => void,
): Promise<CelComparison | undefined> {
  const timer = await resolveCelTimer(progress);
  if ('unavailable' in timer) {
    progress(`WARNING: no engine-against-cel-go figures in this run: ${timer.unavailable}`);
    return undefined;
  }
  const work = await mkdtemp(join(tmpdir(), 'crdgate-bench-cel-'));
  try {
    const objectsPath = join(work, 'new.jsonl');
    const oldPath = join(work, 'old.jsonl');
    await writeFile(objectsPath, plan.objects.map((object) => `${JSON.stringify(object)}\n`).join(''));
    await writeFile(oldPath, plan.olds.map((object) => `${JSON.stringify(object)}\n`).join(''));
    const args = ['--crd', plan.crdPath, '--objects', objectsPath, '--old', oldPath, '--rounds', String(plan.rounds)];
    progress(`cel-go: kube-apiserver's CEL validator natively on ${plan.objects.length} objects`);
    // GOMAXPROCS=1: the engine's Go runs on one thread (WebAssembly), so the native side gets the same runtime.
    const celGo = JSON.parse(await run(timer.path, args, { ...process.env, GOMAXPROCS: '1' })) as CelTimerReport;
    const script = plan.engineTimerScript ?? engineTimerSource;
    const common = [
      '--expose-gc',
      script,
      '--crd',
      plan.crdPath,
      '--objects',
      objectsPath,
      '--rounds',
      String(plan.rounds),
    ];
    const celGoUpdate = celGo.update;
    if (!celGoUpdate) throw new Error('the cel-timer left out the updates');
    const engines: CelComparison['engines'] = [];
    for (const engine of plan.engines) {
      progress(`the engine (${engine}): judge on the same ${plan.objects.length} objects, with the rules and without`);
      const env = { ...process.env, CRDGATE_ENGINE: engine };
      const timedPass = async (args: string[]) => {
        const report = JSON.parse(await run(process.execPath, args, env)) as EngineReport;
        // A timer that ran another engine than asked would put its figures under the wrong name.
        if (report.engine !== engine) throw new Error(`asked for the ${engine} engine, the timer ran ${report.engine}`);
        return report;
      };
      const create = await timedPass(common);
      const update = await timedPass([...common, '--old', oldPath]);
      engines.push({ engine, create: comparePass(celGo.create, create), update: comparePass(celGoUpdate, update) });
    }
    return { rules: celGo.rules, modules: celGo.modules, goVersion: celGo.goVersion, engines };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function comparePass(
  celGo: CelTimerPass,
  engine: { withRules: EngineRounds; withoutRules: EngineRounds },
): CelComparisonPass {
  const celGoCpuNs = Math.min(...celGo.roundsCpuNs);
  const celGoWallNs = Math.min(...celGo.roundsNs);
  const engineWithRulesCpuNs = Math.min(...engine.withRules.roundsCpuNs);
  const engineWithoutRulesCpuNs = Math.min(...engine.withoutRules.roundsCpuNs);
  const engineWithRulesWallNs = Math.min(...engine.withRules.roundsNs);
  const engineWithoutRulesWallNs = Math.min(...engine.withoutRules.roundsNs);
  const engineRulesCpuNs = engineWithRulesCpuNs - engineWithoutRulesCpuNs;
  const engineRulesWallNs = engineWithRulesWallNs - engineWithoutRulesWallNs;
  return {
    objects: celGo.objects,
    evaluations: celGo.evaluations,
    celGoCpuNs,
    celGoWallNs,
    engineWithRulesCpuNs,
    engineWithoutRulesCpuNs,
    engineWithRulesWallNs,
    engineWithoutRulesWallNs,
    engineRulesCpuNs,
    engineRulesWallNs,
    ratio: engineRulesCpuNs / celGoCpuNs,
    wallRatio: engineRulesWallNs / celGoWallNs,
  };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.slice(0, 2).join(' ')} failed: ${stderr || error.message}`));
      else resolve(stdout);
    });
  });
}
