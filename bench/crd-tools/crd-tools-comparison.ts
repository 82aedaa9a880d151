import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.ts';
import { resolveKubeAssets } from '../../src/control-plane/kube-assets.ts';
import { createApiServerClient, type ApiServerClient } from '../support/api-server-client.ts';
import { hasEffect, observeRevision, OBSERVATION_NAMESPACE, type ObservedEffects } from './api-server-observation.ts';
import { resolveCrdTools, type CrdToolBinary } from './crd-tool-binaries.ts';
import {
  checkerVerdict,
  runChecker,
  withoutBaseline,
  type Checker,
  type CheckerAnswer,
  type CheckerName,
  type CheckerVerdict,
  type PredictedEffects,
  type RevisionFiles,
} from './crd-tool-runs.ts';
import { generateRevision, REVISION_KINDS, type RevisionKind } from './revision-kinds.ts';
import { applicableCrd, corpusSources, fixtureSources, type RevisionSource } from './revision-sources.ts';

// `npm run bench -- --crd-tools`: the same CRD revisions judged by crdify, crd-schema-checker, OLM v0's preflight and
// `crdgate check`, each scored against what a real kube-apiserver then did to the stored objects.

export interface CrdToolsPlan {
  /** A folder of real CRDs (one folder each: crd.yaml, samples/); the fixture kinds alone without it. */
  corpusDir?: string;
}

export interface CaseResult {
  source: string;
  kind: RevisionKind;
  target: string;
  effects: ObservedEffects;
  answers: CheckerVerdict[];
}

export interface CrdToolsResult {
  startedAt: string;
  kubeApiserverVersion: string;
  tools: Array<{ checker: CheckerName; builtFrom?: string; unavailable?: string }>;
  sources: Array<{ name: string; objects: number }>;
  cases: CaseResult[];
  /** Kinds a source had no field for (source: kinds). */
  notGenerated: Record<string, RevisionKind[]>;
  /** Revisions left out because kube-apiserver refuses the revised CRD even as a first create (source: kinds). */
  invalid: Record<string, RevisionKind[]>;
  /** Cases the API server could not be observed in (an error on the way: source: kinds). */
  unobserved: Record<string, RevisionKind[]>;
  seconds: number;
}

/** Objects stored per source (the first, in file order): every case costs a few requests and a check per object. */
const MAX_OBJECTS_PER_SOURCE = 10;

export const CHECKERS: readonly CheckerName[] = [
  'crdify',
  'crd-schema-checker',
  'olm-preflight',
  'crdgate',
  'crdgate-prediction',
];

export async function runCrdToolsComparison(
  plan: CrdToolsPlan,
  progress: (line: string) => void,
): Promise<CrdToolsResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const binaries = await resolveCrdTools(progress);
  const checkers: Checker[] = [...binaries, 'crdgate', 'crdgate-prediction'];
  for (const binary of binaries)
    if ('unavailable' in binary) progress(`WARNING: ${binary.tool} is not measured: ${binary.unavailable}`);
  const assets = await resolveKubeAssets({ build: true, log: progress });
  if ('unavailable' in assets) throw new Error(`no control plane to observe the revisions on: ${assets.unavailable}`);
  const sources = [...(await fixtureSources()), ...(plan.corpusDir ? await corpusSources(plan.corpusDir) : [])].map(
    (source) => ({ ...source, objects: source.objects.slice(0, MAX_OBJECTS_PER_SOURCE) }),
  );
  const work = await mkdtemp(join(tmpdir(), 'crdgate-crd-tools-'));
  let plane: ControlPlane | undefined;
  let api: ApiServerClient | undefined;
  const cases: CaseResult[] = [];
  const notGenerated: Record<string, RevisionKind[]> = {};
  const invalid: Record<string, RevisionKind[]> = {};
  const unobserved: Record<string, RevisionKind[]> = {};
  try {
    plane = await startControlPlane({ assetsDir: assets.dir, log: progress });
    api = createApiServerClient(plane.kubeconfigPath, 4);
    await api.json('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: OBSERVATION_NAMESPACE },
    });
    for (const source of sources) {
      const baselines = new Map<CheckerName, CheckerAnswer>();
      for (const kind of REVISION_KINDS) {
        const revision = generateRevision(source.crd, source.objects, kind);
        if (!revision) {
          (notGenerated[source.name] ??= []).push(kind);
          continue;
        }
        progress(`${source.name}: ${kind} (${revision.target})`);
        const oldCrd = applicableCrd(source.crd);
        const newCrd = applicableCrd(revision.crd);
        let observed: Awaited<ReturnType<typeof observeRevision>>;
        try {
          observed = await observeRevision(api, oldCrd, newCrd, source.objects);
        } catch (error) {
          // One case the API server could not be observed in is reported, and the others still run.
          progress(`WARNING: ${source.name} ${kind} not observed: ${(error as Error).message}`);
          (unobserved[source.name] ??= []).push(kind);
          continue;
        }
        const { served, effects } = observed;
        if (effects.invalidRevision) {
          progress(
            `  left out: kube-apiserver refuses the revised CRD even as a first create (${effects.invalidRevision.slice(0, 200)})`,
          );
          (invalid[source.name] ??= []).push(kind);
          continue;
        }
        const files = await writeRevisionFiles(join(work, `${cases.length}`), oldCrd, newCrd, served);
        if (baselines.size === 0) {
          const unchanged = await writeRevisionFiles(join(work, `${cases.length}-baseline`), oldCrd, oldCrd, served);
          for (const answer of await Promise.all(checkers.map((binary) => runChecker(binary, unchanged))))
            baselines.set(answer.checker, answer);
        }
        const answers: CaseResult['answers'] = [];
        // The checkers are separate processes that read the same files: run at once, they take the time of the slowest.
        for (const raw of await Promise.all(checkers.map((binary) => runChecker(binary, files)))) {
          const answer = withoutBaseline(raw, baselines.get(raw.checker)!);
          answers.push(checkerVerdict(answer));
        }
        cases.push({ source: source.name, kind, target: revision.target, effects, answers });
      }
    }
  } finally {
    api?.close();
    await plane?.stop();
    await rm(work, { recursive: true, force: true });
  }
  return {
    startedAt,
    kubeApiserverVersion: assets.kubeApiserverVersion,
    tools: [
      ...binaries.map((binary: CrdToolBinary) =>
        'unavailable' in binary
          ? { checker: binary.tool, unavailable: binary.unavailable }
          : { checker: binary.tool, builtFrom: binary.builtFrom },
      ),
      {
        checker: 'crdgate' as const,
        builtFrom:
          'this checkout: crdgate check -f NEW --old OLD (the revision rules, and the objects judged in the new tree)',
      },
      {
        checker: 'crdgate-prediction' as const,
        builtFrom:
          'this checkout: what each stored object undergoes, predicted (src/crd-revision/objects, run by bench/crd-tools/predict-revision.ts)',
      },
    ],
    sources: sources.map((source: RevisionSource) => ({ name: source.name, objects: source.objects.length })),
    cases,
    notGenerated,
    invalid,
    unobserved,
    seconds: (performance.now() - started) / 1000,
  };
}

async function writeRevisionFiles(
  dir: string,
  oldCrd: Record<string, unknown>,
  newCrd: Record<string, unknown>,
  objects: readonly Record<string, unknown>[],
): Promise<RevisionFiles> {
  const oldDir = join(dir, 'old');
  const newDir = join(dir, 'new');
  await mkdir(oldDir, { recursive: true });
  await mkdir(newDir, { recursive: true });
  const objectsYaml = objects.map((object) => stringify(object)).join('---\n');
  const files: RevisionFiles = {
    oldDir,
    oldCrd: join(oldDir, 'crd.yaml'),
    newDir,
    newCrd: join(newDir, 'crd.yaml'),
    objects: join(newDir, 'objects.yaml'),
  };
  await writeFile(files.oldCrd, stringify(oldCrd));
  await writeFile(files.newCrd, stringify(newCrd));
  await writeFile(join(oldDir, 'objects.yaml'), objectsYaml);
  await writeFile(files.objects, objectsYaml);
  return files;
}

/** Per revision kind: what the API server did, then per checker how often it flagged and how often it missed an effect. */
export function renderCrdToolsReport(result: CrdToolsResult): string {
  const lines: string[] = [];
  lines.push(
    `CRD revision checkers against kube-apiserver ${result.kubeApiserverVersion} (${result.startedAt}, ${Math.round(result.seconds)} s)`,
  );
  for (const tool of result.tools)
    lines.push(`  ${tool.checker}: ${tool.unavailable ? `NOT MEASURED: ${tool.unavailable}` : tool.builtFrom}`);
  lines.push(`  sources: ${result.sources.map((source) => `${source.name} (${source.objects} objects)`).join(', ')}`);
  lines.push('');
  lines.push(
    'Per revision kind: cases; what the API server did (cases with the effect); then per checker flagged/missed, where',
  );
  lines.push(
    '"missed" counts cases where the API server did something to the stored objects or refused the CRD and the checker',
  );
  lines.push('flagged nothing, and "flagged" cases where it raised an error.');
  lines.push('');
  const header = [
    'revision kind',
    'cases',
    'API server did',
    ...CHECKERS.map((checker) => `${checker} flagged/missed`),
    'prediction = API server',
  ];
  const rows: string[][] = [];
  for (const kind of REVISION_KINDS) {
    const ofKind = result.cases.filter((entry) => entry.kind === kind);
    if (ofKind.length === 0) continue;
    rows.push([
      kind,
      String(ofKind.length),
      describeEffects(ofKind),
      ...CHECKERS.map((checker) => scoreChecker(ofKind, checker)),
      scorePrediction(ofKind),
    ]);
  }
  rows.push([
    'all',
    String(result.cases.length),
    `${result.cases.filter((entry) => hasEffect(entry.effects)).length} with an effect`,
    ...CHECKERS.map((checker) => scoreChecker(result.cases, checker)),
    scorePrediction(result.cases),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const format = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ');
  lines.push(format(header), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.map(format));
  const leftOut = (by: Record<string, RevisionKind[]>) =>
    Object.entries(by)
      .map(([source, kinds]) => `${source}: ${kinds.join(', ')}`)
      .join('; ') || 'none';
  lines.push('');
  lines.push(`No field to aim at: ${leftOut(result.notGenerated)}`);
  lines.push(`Left out, the revised CRD refused even as a first create: ${leftOut(result.invalid)}`);
  lines.push(`Not observed (an error on the way, in the progress lines): ${leftOut(result.unobserved)}`);
  lines.push('');
  lines.push('Cases:');
  for (const entry of result.cases) {
    lines.push(
      `  ${entry.source} ${entry.kind} ${entry.target}: ${describeEffects([entry])}; ${entry.effects.examples.slice(0, 2).join('; ')}`,
    );
    const prediction = entry.answers.find((answer) => answer.predicted)?.predicted;
    if (prediction && !predictionAgrees(entry.effects, prediction))
      lines.push(
        `    PREDICTION DIFFERS: predicted ${JSON.stringify(prediction)}, observed ${JSON.stringify(effectCounts(entry.effects))}`,
      );
    for (const answer of entry.answers)
      lines.push(
        `    ${answer.checker}: ${answer.failed ? `FAILED ${answer.failed}` : answer.flagged ? `flags: ${answer.errors.join(' / ').slice(0, 300)}` : `nothing${answer.warnings ? ` (${answer.warnings} warnings)` : ''}`}`,
      );
  }
  return `${lines.join('\n')}\n`;
}

function describeEffects(cases: readonly CaseResult[]): string {
  const count = (what: (effects: ObservedEffects) => boolean) => cases.filter((entry) => what(entry.effects)).length;
  const parts = [
    [count((effects) => effects.crdRefused !== undefined), 'CRD refused'],
    [count((effects) => effects.dropped > 0), 'data dropped'],
    [count((effects) => effects.defaulted > 0), 'defaults added'],
    [count((effects) => effects.readRefused > 0), 'reads refused'],
    [count((effects) => effects.unchangedWriteRefused > 0), 'no-op write refused'],
    [count((effects) => effects.labelWriteRefused > 0), 'label write refused'],
    [count((effects) => effects.recreateRefused > 0), 're-create refused'],
  ] as const;
  const seen = parts.filter(([n]) => n > 0).map(([n, what]) => `${what} ${n}`);
  return seen.length > 0 ? seen.join(', ') : 'nothing';
}

function scoreChecker(cases: readonly CaseResult[], checker: CheckerName): string {
  const answers = cases.map((entry) => ({
    effect: hasEffect(entry.effects),
    answer: entry.answers.find((answer) => answer.checker === checker)!,
  }));
  if (answers.every(({ answer }) => answer.failed)) return 'not run';
  const flagged = answers.filter(({ answer }) => answer.flagged).length;
  const missed = answers.filter(({ effect, answer }) => effect && !answer.flagged && !answer.failed).length;
  const failed = answers.filter(({ answer }) => answer.failed).length;
  return `${flagged}/${missed}${failed ? ` (${failed} failed)` : ''}`;
}

function effectCounts(effects: ObservedEffects): PredictedEffects {
  const { dropped, defaulted, readRefused, unchangedWriteRefused, labelWriteRefused, recreateRefused } = effects;
  return {
    crdRefused: effects.crdRefused !== undefined,
    dropped,
    defaulted,
    readRefused,
    unchangedWriteRefused,
    labelWriteRefused,
    recreateRefused,
  };
}

/** Object for object in number: each effect on as many objects as the API server's, and the CRD refused or not alike. */
export function predictionAgrees(effects: ObservedEffects, predicted: PredictedEffects): boolean {
  return JSON.stringify(effectCounts(effects)) === JSON.stringify(predicted);
}

function scorePrediction(cases: readonly CaseResult[]): string {
  const predicted = cases.flatMap((entry) => {
    const prediction = entry.answers.find((answer) => answer.predicted)?.predicted;
    return prediction ? [predictionAgrees(entry.effects, prediction)] : [];
  });
  return predicted.length === 0 ? 'not run' : `${predicted.filter(Boolean).length} of ${cases.length}`;
}
