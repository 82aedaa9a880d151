import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { startControlPlane, type ControlPlane } from '../../src/control-plane/control-plane.ts';
import { resolveKubeAssets } from '../../src/control-plane/kube-assets.ts';
import { labelWriteLabel } from '../../src/crd-revision/objects/predict-stored-object.ts';
import { inParallel } from '../../test/e2e/support/crd-revisions/in-parallel.ts';
import { observeReleasePair } from '../../test/e2e/support/crd-revisions/observe-release-pair.ts';
import { predictAndCompare } from '../../test/e2e/support/crd-revisions/predict-and-compare.ts';
import { releasePairs } from '../../test/e2e/support/crd-revisions/release-pairs.ts';
import { crdgateAnswer, scorePair, type PairScore } from '../../test/e2e/support/crd-revisions/score-release-pair.ts';
import { restClient } from '../../test/e2e/support/raw-api.ts';
import { resolveCrdTools } from './crd-tool-binaries.ts';
import {
  checkerVerdict,
  runChecker,
  withoutBaseline,
  type Checker,
  type CheckerName,
  type CheckerVerdict,
  type RevisionFiles,
} from './crd-tool-runs.ts';

// `npm run bench -- --crd-tools --release-series`: every consecutive pair of releases of the corpus' release series
// (test/fixtures/crd-corpus), each observed on a real kube-apiserver with all the first release's examples stored
// (test/e2e/support/crd-revisions: the revision applied, and the old release over itself as the baseline), and
// judged by crdify, crd-schema-checker, OLM v0's preflight and `crdgate check`, with and without the stored objects.

/** The checkers, in the report's order. */
export const RELEASE_CHECKERS: readonly CheckerName[] = [
  'crdify',
  'crd-schema-checker',
  'olm-preflight',
  'crdgate',
  'crdgate-stored',
];

export interface PairResult {
  id: string;
  objects: number;
  notStored: number;
  /** The API server refused the CRD update, or broke something of some object (a breaking effect). */
  effect: boolean;
  crdRefused: boolean;
  /** Objects with a breaking effect, and with a default added on read alone. */
  breakingObjects: number;
  defaultedObjects: number;
  /** Observations where crdgate's prediction and the API server differ (none expected). */
  predictionDifferences: number;
  /** crdgate's own answer, object by object (the functions `check --stored` runs). */
  crdgate: Omit<PairScore, 'effects' | 'id'>;
  /** Per checker: whether it raised an error, its first errors, or why it could not run. */
  answers: CheckerVerdict[];
}

export interface ReleaseSeriesResult {
  startedAt: string;
  kubeApiserverVersion: string;
  tools: Array<{ checker: CheckerName; builtFrom?: string; unavailable?: string }>;
  pairs: PairResult[];
  /** Pairs the API server could not be observed on (an error on the way). */
  unobserved: string[];
  notes: string[];
  seconds: number;
}

const NAMESPACE = 'crd-releases';

export async function runReleaseSeriesComparison(
  plan: { maxObjects?: number; only?: string },
  progress: (line: string) => void,
): Promise<ReleaseSeriesResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const binaries = await resolveCrdTools(progress);
  for (const binary of binaries)
    if ('unavailable' in binary) progress(`WARNING: ${binary.tool} is not measured: ${binary.unavailable}`);
  const checkers: Checker[] = [...binaries, 'crdgate', 'crdgate-stored'];
  const assets = await resolveKubeAssets({ build: true, log: progress });
  if ('unavailable' in assets) throw new Error(`no control plane to observe the revisions on: ${assets.unavailable}`);
  const { pairs: all, notes } = releasePairs({
    namespace: NAMESPACE,
    ...(plan.maxObjects === undefined ? {} : { maxObjects: plan.maxObjects }),
  });
  const pairs = plan.only ? all.filter((pair) => new RegExp(plan.only!).test(pair.id)) : all;
  const work = await mkdtemp(join(tmpdir(), 'crdgate-release-series-'));
  let plane: ControlPlane | undefined;
  const results: PairResult[] = [];
  const unobserved: string[] = [];
  try {
    plane = await startControlPlane({ assetsDir: assets.dir, log: progress });
    const rest = restClient(plane.kubeconfigPath, { maxSockets: 32 });
    try {
      await rest.send('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: NAMESPACE },
      });
      // Pairs a few at a time on the API server; the checkers, separate processes, run for each pair as it ends.
      await inParallel(pairs, 3, async (pair, index) => {
        progress(`${pair.id}: ${pair.objects.length} examples`);
        let observed;
        try {
          observed = await observeReleasePair(rest, pair, NAMESPACE, {
            groupPrefix: `p${index}`,
            label: labelWriteLabel,
          });
        } catch (error) {
          progress(`WARNING: ${pair.id} not observed: ${(error as Error).message.slice(0, 300)}`);
          unobserved.push(pair.id);
          return;
        }
        const { baseline, revised } = observed;
        const tally = predictAndCompare([revised]);
        const score = scorePair(pair.id, baseline, revised, crdgateAnswer(pair.old, pair.new, revised.stored));
        const files = await writePairFiles(join(work, `${index}`), pair.old, pair.new, revised.stored);
        const same = await writePairFiles(join(work, `${index}-baseline`), pair.old, pair.old, revised.stored);
        const answers: PairResult['answers'] = [];
        for (const checker of checkers) {
          const [answer, baselineAnswer] = await Promise.all([runChecker(checker, files), runChecker(checker, same)]);
          answers.push(checkerVerdict(withoutBaseline(answer, baselineAnswer)));
        }
        const { effects, id: _id, ...crdgate } = score;
        const defaulted = [...effects.values()].filter(
          (found) => found.length > 0 && found.every((effect) => effect.kind === 'defaulted'),
        ).length;
        results[index] = {
          id: pair.id,
          objects: score.objects,
          notStored: revised.notStored.length,
          effect: score.crdRefused || score.breakingObjects > 0,
          crdRefused: score.crdRefused,
          breakingObjects: score.breakingObjects,
          defaultedObjects: defaulted,
          predictionDifferences: tally.differences.length + tally.predictionFailures.length,
          crdgate,
          answers,
        };
      });
    } finally {
      rest.close();
    }
  } finally {
    await plane?.stop();
    await rm(work, { recursive: true, force: true });
  }
  return {
    startedAt,
    kubeApiserverVersion: assets.kubeApiserverVersion,
    tools: [
      ...binaries.map((binary) =>
        'unavailable' in binary
          ? { checker: binary.tool, unavailable: binary.unavailable }
          : { checker: binary.tool, builtFrom: binary.builtFrom },
      ),
      { checker: 'crdgate', builtFrom: 'this checkout: crdgate check -f NEW --old OLD (the rules alone)' },
      {
        checker: 'crdgate-stored',
        builtFrom:
          'this checkout: crdgate check -f NEW --old OLD --stored OBJECTS (the rules weighed against the objects)',
      },
    ],
    pairs: results.filter((result): result is PairResult => result !== undefined),
    unobserved,
    notes,
    seconds: (performance.now() - started) / 1000,
  };
}

async function writePairFiles(
  dir: string,
  oldCrd: unknown,
  newCrd: unknown,
  objects: readonly unknown[],
): Promise<RevisionFiles> {
  const [oldDir, newDir] = [join(dir, 'old'), join(dir, 'new')];
  await mkdir(oldDir, { recursive: true });
  await mkdir(newDir, { recursive: true });
  const files: RevisionFiles = {
    oldDir,
    oldCrd: join(oldDir, 'crd.yaml'),
    newDir,
    newCrd: join(newDir, 'crd.yaml'),
    objects: join(dir, 'stored.yaml'),
  };
  await writeFile(files.oldCrd, stringify(oldCrd));
  await writeFile(files.newCrd, stringify(newCrd));
  await writeFile(files.objects, stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  return files;
}

/** Per checker: pairs flagged, those flagged where nothing was broken, and the pairs with an effect it missed. */
export function scoreChecker(
  pairs: readonly PairResult[],
  checker: CheckerName,
): { flagged: number; falseAlarms: number; missed: number; failed: number; precision: string; recall: string } {
  const answers = pairs.map((pair) => ({ pair, answer: pair.answers.find((answer) => answer.checker === checker)! }));
  const ran = answers.filter(({ answer }) => !answer.failed);
  const flagged = ran.filter(({ answer }) => answer.flagged);
  const falseAlarms = flagged.filter(({ pair }) => !pair.effect).length;
  const withEffect = ran.filter(({ pair }) => pair.effect);
  const missed = withEffect.filter(({ answer }) => !answer.flagged).length;
  const ratio = (part: number, whole: number) => (whole === 0 ? 'n/a' : `${Math.round((100 * part) / whole)}%`);
  return {
    flagged: flagged.length,
    falseAlarms,
    missed,
    failed: answers.length - ran.length,
    precision: ratio(flagged.length - falseAlarms, flagged.length),
    recall: ratio(withEffect.length - missed, withEffect.length),
  };
}

export function renderReleaseSeriesReport(result: ReleaseSeriesResult): string {
  const lines: string[] = [];
  const objects = result.pairs.reduce((sum, pair) => sum + pair.objects, 0);
  const effects = result.pairs.filter((pair) => pair.effect).length;
  lines.push(
    `CRD checkers on real release series against kube-apiserver ${result.kubeApiserverVersion} (${result.startedAt}, ${Math.round(result.seconds)} s)`,
  );
  for (const tool of result.tools)
    lines.push(`  ${tool.checker}: ${tool.unavailable ? `NOT MEASURED: ${tool.unavailable}` : tool.builtFrom}`);
  lines.push(
    `  ${result.pairs.length} pairs of consecutive releases, ${objects} objects stored (${result.pairs.reduce((sum, pair) => sum + pair.notStored, 0)} examples the old release refuses), ${effects} pairs where the API server broke something: ${result.pairs.reduce((sum, pair) => sum + pair.breakingObjects, 0)} objects, ${result.pairs.filter((pair) => pair.crdRefused).length} CRD updates refused; ${result.pairs.reduce((sum, pair) => sum + pair.defaultedObjects, 0)} objects only read with a new default`,
  );
  lines.push(
    `  prediction = API server: ${result.pairs.filter((pair) => pair.predictionDifferences === 0).length} of ${result.pairs.length} pairs`,
  );
  lines.push('');
  const header = [
    'checker',
    'flagged',
    'flagged, nothing broken',
    'broken, not flagged',
    'failed',
    'precision',
    'recall',
  ];
  const rows = RELEASE_CHECKERS.map((checker) => {
    const score = scoreChecker(result.pairs, checker);
    return [
      checker,
      String(score.flagged),
      String(score.falseAlarms),
      String(score.missed),
      String(score.failed),
      score.precision,
      score.recall,
    ];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const format = (row: string[]) => row.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ');
  lines.push(format(header), widths.map((width) => '-'.repeat(width)).join('-|-'), ...rows.map(format));
  const sum = (count: (pair: PairResult) => number) => result.pairs.reduce((total, pair) => total + count(pair), 0);
  lines.push('');
  lines.push(
    `crdgate-stored, object by object: ${sum((pair) => pair.crdgate.errorObjects)} objects with an error, ${sum((pair) => pair.crdgate.errorWithoutEffect.length)} of them with nothing broken; ${sum((pair) => pair.breakingObjects)} objects broken, ${sum((pair) => pair.crdgate.effectWithoutError.length)} of them without an error; ${sum((pair) => pair.crdgate.ruleErrors)} rule errors, ${sum((pair) => pair.crdgate.ruleErrorsWithoutEffect.length)} with no effect behind them`,
  );
  lines.push(`Not observed: ${result.unobserved.join('; ') || 'none'}`);
  lines.push(`Notes: ${result.notes.join('; ') || 'none'}`);
  lines.push('');
  lines.push('Pairs:');
  for (const pair of result.pairs) {
    const did = pair.crdRefused
      ? 'CRD update refused'
      : pair.breakingObjects > 0
        ? `${pair.breakingObjects} objects broken`
        : pair.defaultedObjects > 0
          ? `${pair.defaultedObjects} objects read with a new default`
          : 'nothing';
    lines.push(`  ${pair.id} (${pair.objects} objects): ${did}`);
    for (const text of [
      ...pair.crdgate.errorWithoutEffect,
      ...pair.crdgate.effectWithoutError,
      ...pair.crdgate.ruleErrorsWithoutEffect,
    ])
      lines.push(`    crdgate: ${text.slice(0, 300)}`);
    for (const answer of pair.answers)
      lines.push(
        `    ${answer.checker}: ${answer.failed ? `FAILED ${answer.failed.slice(0, 200)}` : answer.flagged ? `flags: ${answer.errors.join(' / ').slice(0, 300)}` : `nothing${answer.warnings ? ` (${answer.warnings} warnings)` : ''}`}`,
      );
  }
  return `${lines.join('\n')}\n`;
}
