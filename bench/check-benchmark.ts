import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { stringify } from 'yaml';
import type { EngineKind } from '../src/api-server-engine/engine.ts';
import { buildCompiledCopy } from './compiled-build.ts';
import { httpRouteObjects, httpRouteSource } from './httproute-objects.ts';
import { resolveKubectlValidate } from './kubectl-validate-binary.ts';
import { readPeakRss } from './support/read-peak-rss.ts';
import { busyCores, readMachineCpu } from './support/machine-cpu.ts';
import { textTable } from './report/text-table.ts';
import { compareWithCelGo, type CelComparison, type CelComparisonPass } from './cel-timer/cel-comparison.ts';
import { ruledObject } from './ruled-objects.ts';

export interface CheckBenchPlan {
  /** GeoDatabases in the tree (other kinds come on top, one per file). */
  objects: number;
  rounds: number;
  fromSource: boolean;
  /** How many of the Ruled objects (the first ones) the engine and cel-go are timed on, in process. */
  celObjects: number;
  /** HTTPRoutes (Gateway API's kind of about 180 CEL rules) checked by crdgate and by kubectl-validate. */
  httpRoutes: number;
  /** Fresh processes per engine in which the engine's start (its first answer) is timed. */
  engineStarts: number;
}

export type CheckPassName =
  | 'yaml parse'
  | 'check'
  | 'check (wasm)'
  | 'check --old'
  | 'yaml parse (Shape)'
  | 'check --crd (Shape)'
  | 'yaml parse (Ruled)'
  | 'check --crd (Ruled)'
  | 'check --crd --old (Ruled)'
  | 'yaml parse (HTTPRoute)'
  | 'kubectl-validate (HTTPRoute)'
  | 'check --crd (HTTPRoute)'
  | 'check --crd (HTTPRoute, wasm)';

export interface CheckPass {
  name: CheckPassName;
  /** Wall time of the whole process. */
  seconds: number;
  /**
   * The process's CPU time (user + system), the native engine's process included: what it costs when it does not
   * share the machine. NaN off Linux.
   */
  cpuSeconds: number;
  /**
   * Peak resident set of the process and of the native engine's process below it (each one's own peak, added up:
   * an upper bound of the two at once), and the engine process's part. NaN where it could not be read.
   */
  peakRssBytes: number;
  enginePeakRssBytes: number;
  /** Cores the whole machine kept busy meanwhile: well above 1 means other work competed, and the wall time suffers. */
  machineBusyCores: number;
}

export interface CheckBenchResult {
  objects: number;
  files: number;
  passes: CheckPass[];
  /** Decided objects per second of wall time, best round. */
  checkObjectsPerSecond: number;
  checkOldObjectsPerSecond: number;
  /** check's time over the time to only read and parse the same tree as YAML. */
  checkRatio: number;
  checkOldRatio: number;
  /** Shapes decided with `--crd` (controller-gen's CRD, no contract): per second of wall time, best round. */
  crdObjectsPerSecond: number;
  /** check --crd's time over the time to only parse the Shape tree. */
  crdRatio: number;
  /** Wall time per object, whole command: GeoDatabases through a contract, Shapes through their CRD alone. */
  msPerGeoDatabase: number;
  msPerShape: number;
  /** Ruleds (controller-gen's kind of 38 CEL rules) decided with `--crd`, as CREATEs and as UPDATEs against --old. */
  ruledObjectsPerSecond: number;
  ruledRatio: number;
  ruledOldRatio: number;
  msPerRuled: number;
  msPerRuledUpdate: number;
  /** The engine's time per rule evaluation against cel-go's, on the first celObjects Ruleds; absent without Go. */
  cel?: CelComparison;
  /** The engines the bench ran: the native one only where it is built. The unmarked passes run the first. */
  engines: EngineKind[];
  /** HTTPRoutes checked, from how many of the project's examples (those every checker allows), of which release. */
  httpRoutes: { objects: number; examples: number; examplesLeftOut: number; release: string };
  /** Why kubectl-validate was not measured, where it was not. */
  kubectlValidateUnavailable?: string;
  /** Time to the engine's first answer in fresh processes, per engine. */
  engineStarts: EngineStart[];
}

export interface EngineStart {
  engine: EngineKind;
  /** From crdgate's first call into the engine to its answer (a constant CEL expression), each fresh process. */
  firstAnswerMs: number[];
  /** The peak resident set of each such process, the engine's process included. */
  peakRssBytes: number[];
}

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
/** controller-gen's CRD of the Shape fixture kind: int-or-string, quantities, a pod template, list maps, defaults. */
const shapesCrd = join(
  repoRoot,
  'test',
  'fixtures',
  'controller-gen',
  'crds',
  'shapes.fixtures.crdgate.example.com_shapes.yaml',
);
/** controller-gen's CRD of the Ruled fixture kind: 38 x-kubernetes-validations rules, transition rules among them. */
const ruledsCrd = join(
  repoRoot,
  'test',
  'fixtures',
  'controller-gen',
  'crds',
  'shapes.fixtures.crdgate.example.com_ruleds.yaml',
);
const objectsPerFile = 20;
const filesPerFolder = 25;

/**
 * `crdgate check` on a generated GitOps tree (multi-document files in nested folders, GeoDatabases in all three
 * versions with a ConfigMap in every file), alone and against a previous revision where a third of the databases
 * had less storage. The whole command is timed, start-up and contract compilation included, as CI runs it. The
 * baseline, in the same run: a process that only reads and parses the same files as YAML. Then the same number of
 * real-shaped custom resources of a kind no contract declares (controller-gen's Shape), decided with `--crd` by
 * kube-apiserver's pipeline alone, against parsing that tree; and as many of controller-gen's Ruled, a kind of 38 CEL
 * rules, alone and against a previous revision (transition rules). Last, the rules' own cost: the engine's time per
 * rule evaluation against cel-go's, natively, on the same Ruleds (cel-timer/cel-comparison.ts).
 */
export async function runCheckBenchmark(
  plan: CheckBenchPlan,
  progress: (line: string) => void,
): Promise<CheckBenchResult> {
  const work = await mkdtemp(join(tmpdir(), 'crdgate-bench-check-'));
  const build = plan.fromSource ? undefined : await buildCompiledCopy();
  try {
    progress(`writing a tree of ${plan.objects} GeoDatabases, and its previous revision`);
    const files = await writeTrees(work, plan.objects);
    progress(`writing a tree of ${plan.objects} Shapes`);
    await writeShapeTree(join(work, 'shapes'), plan.objects);
    await copyFile(shapesCrd, join(work, 'shapes-crd.yaml'));
    progress(`writing a tree of ${plan.objects} Ruleds, and its previous revision`);
    await writeRuledTrees(join(work, 'ruleds'), plan.objects);
    await copyFile(ruledsCrd, join(work, 'ruleds-crd.yaml'));
    const cli = build ? build.cliPath : join(repoRoot, 'src', 'cli.ts');
    const benchDir = build ? build.benchDir : join(repoRoot, 'bench');
    const script = (name: string) => join(benchDir, build ? name.replace(/\.ts$/, '.js') : name);
    // Every crdgate pass names its engine: the native one where it is built (the default then), else WebAssembly.
    const engineDir = join(build ? build.srcDir : join(repoRoot, 'src'), 'api-server-engine');
    const engines: EngineKind[] = existsSync(join(engineDir, 'engine-native')) ? ['native', 'wasm'] : ['wasm'];
    if (engines.length === 1)
      progress(
        `WARNING: no native engine in ${engineDir} (npm run build:engine builds it where Go is): WebAssembly only`,
      );
    const [engine] = engines as [EngineKind, ...EngineKind[]];
    const timer: PassTimer = { work, peakRssModule: pathToFileURL(script('support/report-peak-rss.ts')).href };
    const crdgate = (args: string[], objects: number, kind: EngineKind = engine) =>
      timed(timer, [cli, ...args], objects, { CRDGATE_ENGINE: kind });
    const parse = (dir: string, objects: number) =>
      timed(timer, ['--input-type=module', '-e', parseOnlyScript, dir], objects, {});

    progress(
      `writing ${plan.httpRoutes} HTTPRoutes from Gateway API's examples that crdgate and kubectl-validate allow`,
    );
    const kubectlValidate = await resolveKubectlValidate(progress);
    if ('unavailable' in kubectlValidate)
      progress(`WARNING: kubectl-validate is not measured in this run: ${kubectlValidate.unavailable}`);
    const routes = await writeHttpRouteTree(
      join(work, 'httproutes'),
      plan.httpRoutes,
      (dir, crdDir) => allowedByCrdgate(cli, dir, join(crdDir, 'httproute.yaml')),
      'path' in kubectlValidate
        ? (dir, crdDir) => allowedByKubectlValidate(kubectlValidate.path, dir, crdDir)
        : undefined,
    );
    progress(
      `${routes.examples} of the ${routes.examples + routes.examplesLeftOut} example routes are allowed by every checker; ${plan.httpRoutes} routes made from them`,
    );

    const passes: CheckPass[] = [];
    for (let round = 1; round <= plan.rounds; round += 1) {
      progress(`round ${round} of ${plan.rounds}`);
      passes.push({ name: 'yaml parse', ...(await parse(join(work, 'new'), plan.objects)) });
      passes.push({
        name: 'check',
        ...(await crdgate(['check', '-f', join(work, 'new'), '-o', 'json'], plan.objects)),
      });
      if (engines.includes('wasm') && engine !== 'wasm')
        passes.push({
          name: 'check (wasm)',
          ...(await crdgate(['check', '-f', join(work, 'new'), '-o', 'json'], plan.objects, 'wasm')),
        });
      passes.push({
        name: 'check --old',
        ...(await crdgate(['check', '-f', join(work, 'new'), '--old', join(work, 'old'), '-o', 'json'], plan.objects)),
      });
      passes.push({ name: 'yaml parse (Shape)', ...(await parse(join(work, 'shapes'), plan.objects)) });
      passes.push({
        name: 'check --crd (Shape)',
        ...(await crdgate(
          ['check', '-f', join(work, 'shapes'), '--crd', join(work, 'shapes-crd.yaml'), '-o', 'json'],
          plan.objects,
        )),
      });
      const ruleds = join(work, 'ruleds');
      passes.push({ name: 'yaml parse (Ruled)', ...(await parse(join(ruleds, 'new'), plan.objects)) });
      passes.push({
        name: 'check --crd (Ruled)',
        ...(await crdgate(
          ['check', '-f', join(ruleds, 'new'), '--crd', join(work, 'ruleds-crd.yaml'), '-o', 'json'],
          plan.objects,
        )),
      });
      passes.push({
        name: 'check --crd --old (Ruled)',
        ...(await crdgate(
          [
            'check',
            '-f',
            join(ruleds, 'new'),
            '--old',
            join(ruleds, 'old'),
            '--crd',
            join(work, 'ruleds-crd.yaml'),
            '-o',
            'json',
          ],
          plan.objects,
        )),
      });
      const routeArgs = ['check', '-f', routes.dir, '--crd', join(routes.crdDir, 'httproute.yaml'), '-o', 'json'];
      passes.push({ name: 'yaml parse (HTTPRoute)', ...(await parse(routes.dir, plan.httpRoutes)) });
      if ('path' in kubectlValidate)
        passes.push({
          name: 'kubectl-validate (HTTPRoute)',
          ...(await timedKubectlValidate(timer, kubectlValidate.path, routes.dir, routes.crdDir, plan.httpRoutes)),
        });
      passes.push({ name: 'check --crd (HTTPRoute)', ...(await crdgate(routeArgs, plan.httpRoutes)) });
      if (engines.includes('wasm') && engine !== 'wasm')
        passes.push({
          name: 'check --crd (HTTPRoute, wasm)',
          ...(await crdgate(routeArgs, plan.httpRoutes, 'wasm')),
        });
    }
    progress(`the engine's start: ${plan.engineStarts} fresh processes per engine`);
    const engineStarts = await timeEngineStarts(timer, script('engine-start.ts'), engines, plan.engineStarts);
    // After the CLI passes, so that the two timers do not compete with them. A comparison that fails is reported,
    // and the CLI passes' figures are kept.
    const celObjects = Math.min(plan.celObjects, plan.objects);
    const cel = await compareWithCelGo(
      {
        crdPath: ruledsCrd,
        objects: Array.from({ length: celObjects }, (_, n) => ruledObject(n, 'new')),
        olds: Array.from({ length: celObjects }, (_, n) => ruledObject(n, 'old')),
        // Five in every mode: a round is seconds, and on a shared machine some rounds are slowed down.
        rounds: 5,
        ...(build ? { engineTimerScript: join(build.benchDir, 'cel-timer', 'engine-timer.js') } : {}),
        engines,
      },
      progress,
    ).catch((error: unknown) => {
      progress(`WARNING: no engine-against-cel-go figures in this run: ${(error as Error).message}`);
      return undefined;
    });
    const best = (name: CheckPassName) =>
      Math.min(...passes.filter((pass) => pass.name === name).map((pass) => pass.seconds));
    return {
      objects: plan.objects,
      files,
      passes,
      checkObjectsPerSecond: plan.objects / best('check'),
      checkOldObjectsPerSecond: plan.objects / best('check --old'),
      checkRatio: best('check') / best('yaml parse'),
      checkOldRatio: best('check --old') / best('yaml parse'),
      crdObjectsPerSecond: plan.objects / best('check --crd (Shape)'),
      crdRatio: best('check --crd (Shape)') / best('yaml parse (Shape)'),
      msPerGeoDatabase: (best('check') * 1000) / plan.objects,
      msPerShape: (best('check --crd (Shape)') * 1000) / plan.objects,
      ruledObjectsPerSecond: plan.objects / best('check --crd (Ruled)'),
      ruledRatio: best('check --crd (Ruled)') / best('yaml parse (Ruled)'),
      ruledOldRatio: best('check --crd --old (Ruled)') / best('yaml parse (Ruled)'),
      msPerRuled: (best('check --crd (Ruled)') * 1000) / plan.objects,
      msPerRuledUpdate: (best('check --crd --old (Ruled)') * 1000) / plan.objects,
      ...(cel ? { cel } : {}),
      engines,
      httpRoutes: {
        objects: plan.httpRoutes,
        examples: routes.examples,
        examplesLeftOut: routes.examplesLeftOut,
        release: routes.release,
      },
      ...('unavailable' in kubectlValidate ? { kubectlValidateUnavailable: kubectlValidate.unavailable } : {}),
      engineStarts,
    };
  } finally {
    await build?.remove();
    await rm(work, { recursive: true, force: true });
  }
}

export function renderCheckReport(result: CheckBenchResult): string {
  const has = (name: CheckPassName) => result.passes.some((pass) => pass.name === name);
  const bestPass = (name: CheckPassName) =>
    result.passes.filter((pass) => pass.name === name).sort((a, b) => a.seconds - b.seconds)[0]!;
  const mib = (bytes: number) => (Number.isFinite(bytes) ? (bytes / 2 ** 20).toFixed(1) : '-');
  const row = (name: CheckPassName, objects: number, ratio: string) => {
    const pass = bestPass(name);
    return [
      name,
      pass.seconds.toFixed(2),
      Math.round(objects / pass.seconds).toLocaleString('en-US'),
      ((pass.seconds * 1000) / objects).toFixed(2),
      ratio,
      pass.cpuSeconds.toFixed(2),
      mib(pass.peakRssBytes),
      mib(pass.enginePeakRssBytes),
      pass.machineBusyCores.toFixed(1),
    ];
  };
  const vs = (name: CheckPassName, parse: CheckPassName) =>
    `${(bestPass(name).seconds / bestPass(parse).seconds).toFixed(2)}x`;
  const routes = result.httpRoutes.objects;
  const [engine] = result.engines;
  return [
    `crdgate check: ${result.objects.toLocaleString('en-US')} GeoDatabases in ${result.files} files, then as many Shapes and Ruleds with --crd, then ${routes.toLocaleString('en-US')} HTTPRoutes (${result.httpRoutes.release}) with --crd and with kubectl-validate (whole command, start-up included; best round). crdgate's engine: ${engine ?? '-'} unless the pass says (wasm). Peak RSS: the process's and its engine process's own peaks, added up`,
    '',
    textTable(
      [
        'pass',
        'seconds',
        'objects/s',
        'ms/object',
        'vs parse',
        'CPU s',
        'peak RSS MiB',
        'of it engine',
        'machine busy cores',
      ],
      [
        row('yaml parse', result.objects, '1.00x'),
        row('check', result.objects, `${result.checkRatio.toFixed(2)}x`),
        ...(has('check (wasm)') ? [row('check (wasm)', result.objects, vs('check (wasm)', 'yaml parse'))] : []),
        row('check --old', result.objects, `${result.checkOldRatio.toFixed(2)}x`),
        row('yaml parse (Shape)', result.objects, '1.00x'),
        row('check --crd (Shape)', result.objects, `${result.crdRatio.toFixed(2)}x`),
        row('yaml parse (Ruled)', result.objects, '1.00x'),
        row('check --crd (Ruled)', result.objects, `${result.ruledRatio.toFixed(2)}x`),
        row('check --crd --old (Ruled)', result.objects, `${result.ruledOldRatio.toFixed(2)}x`),
        row('yaml parse (HTTPRoute)', routes, '1.00x'),
        ...(has('kubectl-validate (HTTPRoute)')
          ? [row('kubectl-validate (HTTPRoute)', routes, vs('kubectl-validate (HTTPRoute)', 'yaml parse (HTTPRoute)'))]
          : []),
        row('check --crd (HTTPRoute)', routes, vs('check --crd (HTTPRoute)', 'yaml parse (HTTPRoute)')),
        ...(has('check --crd (HTTPRoute, wasm)')
          ? [
              row(
                'check --crd (HTTPRoute, wasm)',
                routes,
                vs('check --crd (HTTPRoute, wasm)', 'yaml parse (HTTPRoute)'),
              ),
            ]
          : []),
      ],
    ),
    `HTTPRoutes made from ${result.httpRoutes.examples} of Gateway API's example routes (${result.httpRoutes.examplesLeftOut} left out: refused by crdgate or kubectl-validate)`,
    ...(result.kubectlValidateUnavailable
      ? [`kubectl-validate not measured: ${result.kubectlValidateUnavailable}`]
      : []),
    '',
    renderEngineRatios(result),
    '',
    ...(result.cel
      ? [renderCelComparison(result.cel), '']
      : ['(no engine-against-cel-go figures in this run: see the warning above)', '']),
  ].join('\n');
}

/** The issue's targets for the native engine, each a ratio against a baseline of the same run. */
function renderEngineRatios(result: CheckBenchResult): string {
  const best = (name: CheckPassName) =>
    result.passes.filter((pass) => pass.name === name).sort((a, b) => a.seconds - b.seconds)[0];
  const peak = (name: CheckPassName) =>
    Math.max(...result.passes.filter((pass) => pass.name === name).map((pass) => pass.peakRssBytes));
  const rows: string[][] = [];
  const verdict = (met: boolean) => (met ? 'met' : 'NOT MET');
  const native = best('check');
  const wasm = best('check (wasm)');
  if (native && wasm) {
    const speedup = wasm.seconds / native.seconds;
    // The verdict is on wall time (objects per second); the CPU times' ratio beside it moves less with other work.
    rows.push([
      `GeoDatabases/s, check (${result.engines[0]}) over check (wasm) (by CPU time)`,
      `${speedup.toFixed(2)}x (${(wasm.cpuSeconds / native.cpuSeconds).toFixed(2)}x)`,
      '>= 3x',
      verdict(speedup >= 3),
    ]);
    rows.push(['peak RSS, check over check (wasm)', `${(peak('check') / peak('check (wasm)')).toFixed(2)}x`, '-', '']);
  }
  const routes = best('check --crd (HTTPRoute)');
  const kubectlValidate = best('kubectl-validate (HTTPRoute)');
  if (routes && kubectlValidate) {
    const time = routes.seconds / kubectlValidate.seconds;
    const rss = peak('check --crd (HTTPRoute)') / peak('kubectl-validate (HTTPRoute)');
    rows.push([
      'HTTPRoutes, check --crd time over kubectl-validate (CPU time)',
      `${time.toFixed(2)}x (${(routes.cpuSeconds / kubectlValidate.cpuSeconds).toFixed(2)}x)`,
      '<= 1x',
      verdict(time <= 1),
    ]);
    rows.push([
      'HTTPRoutes, check --crd peak RSS over kubectl-validate',
      `${rss.toFixed(2)}x`,
      '<= 1.5x',
      verdict(rss <= 1.5),
    ]);
    const routesWasm = best('check --crd (HTTPRoute, wasm)');
    if (routesWasm)
      rows.push([
        'HTTPRoutes, check --crd (wasm) time, peak RSS over kubectl-validate',
        `${(routesWasm.seconds / kubectlValidate.seconds).toFixed(2)}x, ${(peak('check --crd (HTTPRoute, wasm)') / peak('kubectl-validate (HTTPRoute)')).toFixed(2)}x`,
        '-',
        '',
      ]);
  }
  for (const pass of result.cel?.engines ?? [])
    rows.push([
      `CEL per rule evaluation, the ${pass.engine} engine over cel-go (create, update; CPU)`,
      `${pass.create.ratio.toFixed(2)}x, ${pass.update.ratio.toFixed(2)}x`,
      pass.engine === 'native' ? '<= 1.5x' : '-',
      pass.engine === 'native' ? verdict(Math.max(pass.create.ratio, pass.update.ratio) <= 1.5) : '',
    ]);
  const starts = result.engineStarts.map((start) => ({ ...start, median: median(start.firstAnswerMs) }));
  for (const start of starts)
    rows.push([
      `engine start (${start.engine}): first answer, median of ${start.firstAnswerMs.length} (min-max ms; peak RSS MiB)`,
      `${start.median.toFixed(0)} ms (${Math.min(...start.firstAnswerMs).toFixed(0)}-${Math.max(...start.firstAnswerMs).toFixed(0)}; ${(Math.max(...start.peakRssBytes) / 2 ** 20).toFixed(1)})`,
      start.engine === 'native' ? '<= 100 ms' : '-',
      start.engine === 'native' ? verdict(start.median <= 100) : '',
    ]);
  const nativeStart = starts.find((start) => start.engine === 'native');
  const wasmStart = starts.find((start) => start.engine === 'wasm');
  if (nativeStart && wasmStart)
    rows.push(['engine start, native over wasm', `${(nativeStart.median / wasmStart.median).toFixed(2)}x`, '-', '']);
  return [
    'The native engine against its baselines, in this run',
    '',
    textTable(['measure', 'measured', 'target', ''], rows),
  ].join('\n');
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The rules' cost per evaluation: each engine (with rules minus without) against cel-go natively; CPU time, best round. */
function renderCelComparison(cel: CelComparison): string {
  const us = (ns: number) => (ns / 1000).toFixed(2);
  const row = (name: string, pass: CelComparisonPass) => [
    name,
    pass.objects.toLocaleString('en-US'),
    pass.evaluations.toLocaleString('en-US'),
    us(pass.celGoCpuNs / pass.evaluations),
    us(pass.engineRulesCpuNs / pass.evaluations),
    `${pass.ratio.toFixed(2)}x`,
    `${pass.wallRatio.toFixed(2)}x`,
    `${(pass.engineWithRulesCpuNs / pass.objects / 1e6).toFixed(3)} / ${(pass.engineWithoutRulesCpuNs / pass.objects / 1e6).toFixed(3)}`,
  ];
  return [
    `CEL rules (${cel.rules} in the Ruled CRD): crdgate's engine against cel-go (kube-apiserver's validator natively: apiextensions-apiserver ${cel.modules['k8s.io/apiextensions-apiserver']}, cel-go ${cel.modules['github.com/google/cel-go']}, ${cel.goVersion}, GOMAXPROCS=1); CPU time (the native engine's process included), best round`,
    '',
    textTable(
      [
        'engine, pass',
        'objects',
        'rule evaluations',
        'cel-go µs/eval',
        'engine µs/eval',
        'engine/cel-go',
        'by wall time',
        'engine judge ms/object (rules / none)',
      ],
      cel.engines.flatMap((pass) => [
        row(`${pass.engine}, create`, pass.create),
        row(`${pass.engine}, update (--old)`, pass.update),
      ]),
    ),
  ].join('\n');
}

/** What any tool reading the tree pays: every file read and parsed as YAML, nothing decided. */
export const parseOnlyScript = `
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
let documents = 0;
const walk = async (dir) => {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path);
    else documents += parseAllDocuments(await readFile(path, 'utf8')).map((d) => d.toJS()).length;
  }
};
await walk(process.argv[1]);
process.stdout.write(JSON.stringify({ summary: { documents } }));
`;

/** Where a pass's process writes its peak resident set as it exits (report-peak-rss.ts, loaded with --import). */
interface PassTimer {
  work: string;
  peakRssModule: string;
}

/**
 * Runs one pass (a Node process) and checks it decided (or parsed) every object: a pass that did less would look
 * faster. env is added to the bench's (CRDGATE_ENGINE for crdgate's passes).
 */
function timed(
  timer: PassTimer,
  args: string[],
  objects: number,
  env: NodeJS.ProcessEnv,
): Promise<Omit<CheckPass, 'name'>> {
  const peakFile = join(timer.work, 'peak-rss');
  const started = process.hrtime.bigint();
  const machineBefore = readMachineCpu();
  const cpuBefore = childrenCpuSeconds();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', timer.peakRssModule, ...args],
      {
        cwd: repoRoot,
        maxBuffer: 512 * 1024 * 1024,
        env: { ...process.env, ...env, CRDGATE_BENCH_PEAK_RSS_FILE: peakFile },
      },
      (error, stdout, stderr) => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const cpuSeconds = childrenCpuSeconds() - cpuBefore;
        const machineBusyCores = busyCores(machineBefore, readMachineCpu());
        // Every object of the generated trees is allowed: a denial (exit 1) means the generator broke, and a denied
        // object may cost less than an allowed one.
        // The exit status or signal and the summary too: a pass that ends silently (exit 1 for a denial writes its
        // report to stdout; a process the kernel kills writes nothing) must still say which it was.
        if (error) {
          const ended = error.signal ? `killed by ${error.signal}` : `exit ${String(error.code)}`;
          const summary = /"summary":\s*(\{[^}]*\})/.exec(stdout)?.[1] ?? '';
          return reject(
            new Error(
              `${args.slice(0, 3).join(' ')} failed (${ended}): ${stderr || error.message}${summary ? ` summary ${summary}` : ''}`,
            ),
          );
        }
        const { summary } = JSON.parse(stdout) as { summary: { checked?: number; documents?: number } };
        const done = summary.checked ?? summary.documents ?? 0;
        if (done < objects)
          return reject(new Error(`${args.slice(0, 3).join(' ')} handled ${done} of ${objects} objects`));
        readPeakRss(peakFile).then(
          (peak) =>
            resolve({
              seconds,
              cpuSeconds: cpuSeconds + peak.childrenCpuSeconds,
              machineBusyCores,
              peakRssBytes: peak.totalBytes,
              enginePeakRssBytes: peak.childrenBytes,
            }),
          reject,
        );
      },
    );
  });
}

/**
 * kubectl-validate on the routes, timed as a crdgate pass is; its peak resident set from GNU time's maximum resident
 * set (wait4's: exact for a single process that a small one forked) where /usr/bin/time exists, else NaN. It must
 * report every object, each a success. KUBECONFIG names no file: it would otherwise ask a cluster for schemas.
 */
function timedKubectlValidate(
  timer: PassTimer,
  binary: string,
  dir: string,
  crdDir: string,
  objects: number,
): Promise<Omit<CheckPass, 'name'>> {
  const rssFile = join(timer.work, 'kubectl-validate-rss');
  const gnuTime = existsSync('/usr/bin/time');
  const args = [dir, '--local-crds', crdDir, '-o', 'json'];
  const [command, commandArgs] = gnuTime
    ? ['/usr/bin/time', ['-f', '%M', '-o', rssFile, binary, ...args]]
    : [binary, args];
  const started = process.hrtime.bigint();
  const machineBefore = readMachineCpu();
  const cpuBefore = childrenCpuSeconds();
  return new Promise((resolve, reject) => {
    execFile(
      command,
      commandArgs,
      { maxBuffer: 512 * 1024 * 1024, env: { ...process.env, KUBECONFIG: join(timer.work, 'no-kubeconfig') } },
      (error, stdout, stderr) => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const cpuSeconds = childrenCpuSeconds() - cpuBefore;
        const machineBusyCores = busyCores(machineBefore, readMachineCpu());
        let statuses: Array<{ status?: string; message?: string }>;
        try {
          statuses = Object.values(JSON.parse(stdout) as Record<string, typeof statuses>).flat();
        } catch {
          return reject(
            new Error(`kubectl-validate wrote no report (${error?.message ?? 'exit 0'}): ${stderr.trim()}`),
          );
        }
        const failed = statuses.filter((status) => status.status !== 'Success');
        if (error || failed.length > 0 || statuses.length < objects)
          return reject(
            new Error(
              `kubectl-validate allowed ${statuses.length - failed.length} of ${objects} routes: ${failed[0]?.message ?? stderr.trim()}`,
            ),
          );
        const peak = gnuTime
          ? readFile(rssFile, 'utf8').then((kib) => Number(kib.trim()) * 1024)
          : Promise.resolve(NaN);
        peak.then(
          (peakRssBytes) =>
            resolve({ seconds, cpuSeconds, machineBusyCores, peakRssBytes, enginePeakRssBytes: Number.NaN }),
          reject,
        );
      },
    );
  });
}

/** Each engine started in `starts` fresh processes, alternating, so that a slow stretch of the machine falls on both. */
async function timeEngineStarts(
  timer: PassTimer,
  script: string,
  engines: readonly EngineKind[],
  starts: number,
): Promise<EngineStart[]> {
  const results = engines.map((engine): EngineStart => ({ engine, firstAnswerMs: [], peakRssBytes: [] }));
  const peakFile = join(timer.work, 'peak-rss-start');
  for (let start = 0; start < starts; start += 1) {
    for (const result of results) {
      const stdout = await new Promise<string>((resolve, reject) =>
        execFile(
          process.execPath,
          ['--import', timer.peakRssModule, script],
          {
            cwd: repoRoot,
            env: { ...process.env, CRDGATE_ENGINE: result.engine, CRDGATE_BENCH_PEAK_RSS_FILE: peakFile },
          },
          (error, out, stderr) =>
            error
              ? reject(new Error(`engine-start (${result.engine}) failed: ${stderr || error.message}`))
              : resolve(out),
        ),
      );
      const { engine, firstAnswerMs } = JSON.parse(stdout) as { engine?: EngineKind; firstAnswerMs: number };
      if (engine !== result.engine)
        throw new Error(`asked for the ${result.engine} engine, engine-start ran ${engine}`);
      result.firstAnswerMs.push(firstAnswerMs);
      result.peakRssBytes.push((await readPeakRss(peakFile)).totalBytes);
    }
  }
  return results;
}

/**
 * CPU seconds of this process's children that have ended (Linux: cutime + cstime of /proc/self/stat, which the
 * kernel adds a child's times to once it is waited for); NaN elsewhere.
 */
function childrenCpuSeconds(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    // After "pid (comm) ", the fields count from 3 (state): cutime is field 16, cstime 17. Ticks are 1/100 s on Linux.
    return (Number(fields[16 - 3]) + Number(fields[17 - 3])) / 100;
  } catch {
    return Number.NaN;
  }
}

export async function writeTrees(root: string, objects: number): Promise<number> {
  const files = Math.ceil(objects / objectsPerFile);
  for (let file = 0; file < files; file += 1) {
    const folder = join(`team-${Math.floor(file / filesPerFolder)}`, `app-${file % 5}`);
    const names = Array.from(
      { length: Math.min(objectsPerFile, objects - file * objectsPerFile) },
      (_, i) => file * objectsPerFile + i,
    );
    for (const revision of ['new', 'old'] as const) {
      const documents = [...names.map((n) => geoDatabase(n, revision)), configMap(file)];
      await mkdir(join(root, revision, folder), { recursive: true });
      await writeFile(
        join(root, revision, folder, `databases-${file}.yaml`),
        documents.map((d) => stringify(d)).join('---\n'),
      );
    }
  }
  return files;
}

/** Valid in every version; in the old revision, every third database had 10Gi less storage (the change grows it). */
function geoDatabase(n: number, revision: 'new' | 'old'): object {
  const sizeGi = 20 + (n % 5) * 10 - (revision === 'old' && n % 3 === 0 ? 10 : 0);
  const metadata = {
    name: `db-${n}`,
    namespace: `team-${n % 40}`,
    labels: { app: `app-${n % 5}`, team: `team-${n % 40}` },
  };
  switch (n % 3) {
    case 0:
      return {
        apiVersion: 'geo.example.com/v1',
        kind: 'GeoDatabase',
        metadata,
        spec: {
          postgres: { version: '16.4', postgis: '3.4.2' },
          readReplicas: n % 4,
          storage: { size: `${sizeGi}Gi` },
          caches: [{ name: 'tiles', memory: '1Gi' }],
        },
      };
    case 1:
      return {
        apiVersion: 'geo.example.com/v1beta1',
        kind: 'GeoDatabase',
        metadata,
        spec: { postgres: { version: '15.6', postgis: '3.3.4' }, replicas: 1, storage: { size: `${sizeGi}Gi` } },
      };
    default:
      return {
        apiVersion: 'geo.example.com/v1alpha1',
        kind: 'GeoDatabase',
        metadata,
        spec: { postgresVersion: '14.11', postgisVersion: '3.3.4', storageGB: sizeGi },
      };
  }
}

/**
 * HTTPRoutes made from Gateway API's examples (httproute-objects.ts), 20 to a file in one folder, and its CRD alone in
 * a folder (kubectl-validate reads CRDs from a folder). Only the examples that every checker allows are used: each is
 * written to a file of its own first and checked by each (allows gives the files it allowed).
 */
async function writeHttpRouteTree(
  root: string,
  count: number,
  ...checkers: Array<((dir: string, crdDir: string) => Promise<Set<string>>) | undefined>
): Promise<{ dir: string; crdDir: string; examples: number; examplesLeftOut: number; release: string }> {
  const source = httpRouteSource();
  const crdDir = join(root, 'crd');
  const examplesDir = join(root, 'examples');
  const dir = join(root, 'routes');
  for (const folder of [crdDir, examplesDir, dir]) await mkdir(folder, { recursive: true });
  await writeFile(join(crdDir, 'httproute.yaml'), stringify(source.crd));
  const files = source.samples.map((_, n) => join(examplesDir, `example-${n}.yaml`));
  for (const [n, sample] of source.samples.entries()) await writeFile(files[n]!, stringify(sample.object));
  let allowed = files;
  for (const checker of checkers) {
    if (!checker) continue;
    const allows = await checker(examplesDir, crdDir);
    allowed = allowed.filter((file) => allows.has(file));
  }
  const examples = source.samples.filter((_, n) => allowed.includes(files[n]!)).map((sample) => sample.object);
  const objects = httpRouteObjects(examples, count);
  for (let start = 0; start < objects.length; start += objectsPerFile)
    await writeFile(
      join(dir, `routes-${start / objectsPerFile}.yaml`),
      objects
        .slice(start, start + objectsPerFile)
        .map((object) => stringify(object))
        .join('---\n'),
    );
  return {
    dir,
    crdDir,
    examples: examples.length,
    examplesLeftOut: files.length - examples.length,
    release: source.release,
  };
}

/** The files under dir whose every object `crdgate check --crd` allows (exit 1 is its answer to a denial). */
function allowedByCrdgate(cli: string, dir: string, crdPath: string): Promise<Set<string>> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [cli, 'check', '-f', dir, '--crd', crdPath, '-o', 'json'],
      { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && error.code !== 1) return reject(new Error(`crdgate check on the examples failed: ${stderr}`));
        const report = JSON.parse(stdout) as { objects: Array<{ location: { file: string }; allowed: boolean }> };
        const denied = new Set(report.objects.filter((o) => !o.allowed).map((o) => o.location.file));
        resolve(new Set(report.objects.map((o) => o.location.file).filter((file) => !denied.has(file))));
      },
    ),
  );
}

/** The files under dir whose every object kubectl-validate reports a success for (exit 1 when any failed). */
function allowedByKubectlValidate(binary: string, dir: string, crdDir: string): Promise<Set<string>> {
  return new Promise((resolve, reject) =>
    execFile(
      binary,
      [dir, '--local-crds', crdDir, '-o', 'json'],
      { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, KUBECONFIG: join(dir, 'no-kubeconfig') } },
      (error, stdout, stderr) => {
        if (error && error.code !== 1) return reject(new Error(`kubectl-validate on the examples failed: ${stderr}`));
        const report = JSON.parse(stdout) as Record<string, Array<{ status?: string }>>;
        resolve(
          new Set(
            Object.entries(report)
              .filter(([, statuses]) => statuses.every((status) => status.status === 'Success'))
              .map(([file]) => file),
          ),
        );
      },
    ),
  );
}

/** Ruleds in the same layout as the GeoDatabases, and their previous revision (ruled-objects.ts says what changed). */
export async function writeRuledTrees(root: string, objects: number): Promise<void> {
  const files = Math.ceil(objects / objectsPerFile);
  for (let file = 0; file < files; file += 1) {
    const folder = join(`team-${Math.floor(file / filesPerFolder)}`, `app-${file % 5}`);
    const names = Array.from(
      { length: Math.min(objectsPerFile, objects - file * objectsPerFile) },
      (_, i) => file * objectsPerFile + i,
    );
    for (const revision of ['new', 'old'] as const) {
      const documents = [...names.map((n) => ruledObject(n, revision)), configMap(file)];
      await mkdir(join(root, revision, folder), { recursive: true });
      await writeFile(
        join(root, revision, folder, `ruleds-${file}.yaml`),
        documents.map((d) => stringify(d)).join('---\n'),
      );
    }
  }
}

/** Shapes in the same layout as the GeoDatabases, every one allowed, their defaults left for the API server to set. */
export async function writeShapeTree(root: string, objects: number): Promise<void> {
  const files = Math.ceil(objects / objectsPerFile);
  for (let file = 0; file < files; file += 1) {
    const folder = join(`team-${Math.floor(file / filesPerFolder)}`, `app-${file % 5}`);
    const names = Array.from(
      { length: Math.min(objectsPerFile, objects - file * objectsPerFile) },
      (_, i) => file * objectsPerFile + i,
    );
    await mkdir(join(root, folder), { recursive: true });
    await writeFile(
      join(root, folder, `shapes-${file}.yaml`),
      [...names.map(shapeObject), configMap(file)].map((d) => stringify(d)).join('---\n'),
    );
  }
}

/**
 * One Shape as an operator's user writes one: int-or-string (a named or numbered port, a percentage), quantities
 * (storage, limits, a container's resources), a pod template with probes and env, list maps keyed by name and
 * protocol, a set, a map of objects with defaults; replicas, size, retention and each port's protocol defaulted.
 */
export function shapeObject(n: number): object {
  const app = `app-${n % 5}`;
  return {
    apiVersion: 'shapes.fixtures.crdgate.example.com/v1',
    kind: 'Shape',
    metadata: { name: `shape-${n}`, namespace: `team-${n % 40}`, labels: { app, team: `team-${n % 40}` } },
    spec: {
      port: n % 2 === 0 ? 8080 : 'http',
      maxUnavailable: `${(n % 4) * 10 + 10}%`,
      storage: `${(n % 8) + 1}Gi`,
      limits: { cpu: `${(n % 4) + 1}00m`, memory: `${(n % 3) + 1}Gi` },
      alias: `shape-${n % 100}`,
      ports: [
        { name: 'http', number: 8080, target: 'web' },
        { name: 'metrics', protocol: 'TCP', number: 9090, target: 9090 },
        { name: 'dns', protocol: 'UDP', number: 53 },
      ],
      tags: ['blue', `tier-${n % 3}`],
      labels: { owner: `team-${n % 40}` },
      routes: { main: { path: '/' }, admin: { path: '/admin', weight: 20 } },
      // No template.metadata: controller-gen leaves an embedded ObjectMeta without properties (unless
      // generateEmbeddedObjectMeta), so the API server would refuse its labels as unknown fields.
      template: {
        spec: {
          containers: [
            {
              name: 'main',
              image: `registry.invalid/${app}:1.${n % 10}`,
              args: ['--port=8080', '--verbose'],
              ports: [
                { name: 'web', containerPort: 8080 },
                { containerPort: 9090, protocol: 'TCP' },
              ],
              env: [
                { name: 'MODE', value: 'prod' },
                { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              ],
              resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: 1, memory: '512Mi' } },
              readinessProbe: { httpGet: { path: '/ready', port: 'web' }, periodSeconds: 5 },
              livenessProbe: { tcpSocket: { port: 8080 }, initialDelaySeconds: 10 },
            },
          ],
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'shapes', effect: 'NoSchedule' }],
        },
      },
    },
  };
}

function configMap(file: number): object {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `settings-${file}`, namespace: `team-${file % 40}` },
    data: { region: 'eu', file: String(file) },
  };
}
