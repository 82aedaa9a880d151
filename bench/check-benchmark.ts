import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { readFileSync } from 'node:fs';
import { buildCompiledCopy } from './compiled-build.ts';
import { busyCores, readMachineCpu } from './support/machine-cpu.ts';
import { textTable } from './report/text-table.ts';
import { compareWithCelGo, type CelComparison } from './cel-timer/cel-comparison.ts';
import { ruledObject } from './ruled-objects.ts';

export interface CheckBenchPlan {
  /** GeoDatabases in the tree (other kinds come on top, one per file). */
  objects: number;
  rounds: number;
  fromSource: boolean;
  /** How many of the Ruled objects (the first ones) the engine and cel-go are timed on, in process. */
  celObjects: number;
}

export type CheckPassName =
  | 'yaml parse'
  | 'check'
  | 'check --old'
  | 'yaml parse (Shape)'
  | 'check --crd (Shape)'
  | 'yaml parse (Ruled)'
  | 'check --crd (Ruled)'
  | 'check --crd --old (Ruled)';

export interface CheckPass {
  name: CheckPassName;
  /** Wall time of the whole process. */
  seconds: number;
  /** The process's CPU time (user + system): what it costs when it does not share the machine. NaN off Linux. */
  cpuSeconds: number;
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
    const passes: CheckPass[] = [];
    for (let round = 1; round <= plan.rounds; round += 1) {
      progress(`round ${round} of ${plan.rounds}`);
      passes.push({
        name: 'yaml parse',
        ...(await timed(['--input-type=module', '-e', parseOnlyScript, join(work, 'new')], plan.objects)),
      });
      passes.push({
        name: 'check',
        ...(await timed([cli, 'check', '-f', join(work, 'new'), '-o', 'json'], plan.objects)),
      });
      passes.push({
        name: 'check --old',
        ...(await timed(
          [cli, 'check', '-f', join(work, 'new'), '--old', join(work, 'old'), '-o', 'json'],
          plan.objects,
        )),
      });
      passes.push({
        name: 'yaml parse (Shape)',
        ...(await timed(['--input-type=module', '-e', parseOnlyScript, join(work, 'shapes')], plan.objects)),
      });
      passes.push({
        name: 'check --crd (Shape)',
        ...(await timed(
          [cli, 'check', '-f', join(work, 'shapes'), '--crd', join(work, 'shapes-crd.yaml'), '-o', 'json'],
          plan.objects,
        )),
      });
      const ruleds = join(work, 'ruleds');
      passes.push({
        name: 'yaml parse (Ruled)',
        ...(await timed(['--input-type=module', '-e', parseOnlyScript, join(ruleds, 'new')], plan.objects)),
      });
      passes.push({
        name: 'check --crd (Ruled)',
        ...(await timed(
          [cli, 'check', '-f', join(ruleds, 'new'), '--crd', join(work, 'ruleds-crd.yaml'), '-o', 'json'],
          plan.objects,
        )),
      });
      passes.push({
        name: 'check --crd --old (Ruled)',
        ...(await timed(
          [
            cli,
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
    }
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
    };
  } finally {
    await build?.remove();
    await rm(work, { recursive: true, force: true });
  }
}

export function renderCheckReport(result: CheckBenchResult): string {
  const bestPass = (name: CheckPassName) =>
    result.passes.filter((pass) => pass.name === name).sort((a, b) => a.seconds - b.seconds)[0]!;
  const row = (name: CheckPassName, ratio: string) => {
    const pass = bestPass(name);
    const msPerObject = ((pass.seconds * 1000) / result.objects).toFixed(2);
    return [
      name,
      pass.seconds.toFixed(2),
      Math.round(result.objects / pass.seconds).toLocaleString('en-US'),
      msPerObject,
      ratio,
      pass.cpuSeconds.toFixed(2),
      pass.machineBusyCores.toFixed(1),
    ];
  };
  return [
    `crdgate check: ${result.objects.toLocaleString('en-US')} GeoDatabases in ${result.files} files, then as many Shapes and Ruleds with --crd (whole command, start-up included; best round)`,
    '',
    textTable(
      ['pass', 'seconds', 'objects/s', 'ms/object', 'vs parse', 'CPU s', 'machine busy cores'],
      [
        row('yaml parse', '1.00x'),
        row('check', `${result.checkRatio.toFixed(2)}x`),
        row('check --old', `${result.checkOldRatio.toFixed(2)}x`),
        row('yaml parse (Shape)', '1.00x'),
        row('check --crd (Shape)', `${result.crdRatio.toFixed(2)}x`),
        row('yaml parse (Ruled)', '1.00x'),
        row('check --crd (Ruled)', `${result.ruledRatio.toFixed(2)}x`),
        row('check --crd --old (Ruled)', `${result.ruledOldRatio.toFixed(2)}x`),
      ],
    ),
    '',
    ...(result.cel
      ? [renderCelComparison(result.cel), '']
      : ['(no engine-against-cel-go figures in this run: see the warning above)', '']),
  ].join('\n');
}

/** The rules' cost per evaluation: the engine (with rules minus without) against cel-go natively; CPU time, best round. */
function renderCelComparison(cel: CelComparison): string {
  const us = (ns: number) => (ns / 1000).toFixed(2);
  const row = (name: string, pass: CelComparison['create']) => [
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
    `CEL rules (${cel.rules} in the Ruled CRD): crdgate's engine against cel-go (kube-apiserver's validator natively: apiextensions-apiserver ${cel.modules['k8s.io/apiextensions-apiserver']}, cel-go ${cel.modules['github.com/google/cel-go']}, ${cel.goVersion}, GOMAXPROCS=1); CPU time, best round`,
    '',
    textTable(
      [
        'pass',
        'objects',
        'rule evaluations',
        'cel-go µs/eval',
        'engine µs/eval',
        'engine/cel-go',
        'by wall time',
        'engine judge ms/object (rules / none)',
      ],
      [row('create', cel.create), row('update (--old)', cel.update)],
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

/** Runs one pass and checks it decided (or parsed) every object: a pass that did less would look faster. */
function timed(args: string[], objects: number): Promise<Omit<CheckPass, 'name'>> {
  const started = process.hrtime.bigint();
  const machineBefore = readMachineCpu();
  const cpuBefore = childrenCpuSeconds();
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: repoRoot, maxBuffer: 512 * 1024 * 1024 }, (error, stdout, stderr) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // Every object of the generated trees is allowed: a denial (exit 1) means the generator broke, and a denied
      // object may cost less than an allowed one.
      // The exit status or signal and the summary too: a pass that ends silently (exit 1 for a denial writes its report
      // to stdout; a process the kernel kills writes nothing) must still say which it was.
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
      resolve({
        seconds,
        cpuSeconds: childrenCpuSeconds() - cpuBefore,
        machineBusyCores: busyCores(machineBefore, readMachineCpu()),
      });
    });
  });
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
