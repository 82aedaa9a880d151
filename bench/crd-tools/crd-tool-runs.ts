import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CrdToolBinary, CrdToolName } from './crd-tool-binaries.ts';
import type { ObjectEffects } from './object-effects.ts';

// Each checker run on one revision, its answer read into one shape: whether it flags the revision (what would stop a
// pipeline or an upgrade: an error, a non-zero exit, a blocked install plan) and what it names. Warnings are kept
// apart: none of these tools stops on one.

export type CheckerName = CrdToolName | 'crdgate' | 'crdgate-stored' | 'crdgate-prediction';

export interface RevisionFiles {
  /** A folder holding the old CRD and the stored objects as the API server served them under it. */
  oldDir: string;
  oldCrd: string;
  /** A folder holding the new CRD and the same objects. */
  newDir: string;
  newCrd: string;
  objects: string;
}

/** crdgate's prediction of what the API server does to the stored objects, counted as the observation counts them. */
export interface PredictedEffects extends ObjectEffects {
  crdRefused: boolean;
}

export type CheckerAnswer =
  | { checker: CheckerName; errors: string[]; warnings: string[]; predicted?: PredictedEffects }
  | { checker: CheckerName; failed: string };

const CRDGATE_BIN = fileURLToPath(new URL('../../src/bin.ts', import.meta.url));
export const PREDICT_REVISION = fileURLToPath(new URL('./predict-revision.ts', import.meta.url));

export type Checker = CrdToolBinary | 'crdgate' | 'crdgate-stored' | 'crdgate-prediction';

export async function runChecker(binary: Checker, files: RevisionFiles): Promise<CheckerAnswer> {
  if (binary === 'crdgate')
    return readCrdgate(
      await run(process.execPath, [CRDGATE_BIN, 'check', '-f', files.newDir, '--old', files.oldDir, '-o', 'json']),
    );
  // The objects as the cluster stores them, given as such: the rules are weighed against them.
  if (binary === 'crdgate-stored')
    return readCrdgate(
      await run(process.execPath, [
        CRDGATE_BIN,
        'check',
        '-f',
        files.newDir,
        '--old',
        files.oldDir,
        '--stored',
        files.objects,
        '-o',
        'json',
      ]),
      'crdgate-stored',
    );
  if (binary === 'crdgate-prediction')
    return readPrediction(
      await run(process.execPath, [PREDICT_REVISION, '--old', files.oldCrd, '--new', files.newCrd, files.objects]),
    );
  if ('unavailable' in binary) return { checker: binary.tool, failed: binary.unavailable };
  switch (binary.tool) {
    case 'crdify':
      return readCrdify(await run(binary.path, [`file://${files.oldCrd}`, `file://${files.newCrd}`, '-o', 'json']));
    case 'crd-schema-checker':
      return readCrdSchemaChecker(
        await run(binary.path, [
          'check-manifests',
          `--existing-crd-filename=${files.oldCrd}`,
          `--new-crd-filename=${files.newCrd}`,
        ]),
      );
    case 'olm-preflight':
      return readOlmPreflight(
        await run(binary.path, ['--old', files.oldCrd, '--new', files.newCrd, '--objects', files.objects]),
      );
  }
}

/** What a report keeps of a checker's answer: whether it raised an error, its first three, or why it could not run. */
export interface CheckerVerdict {
  checker: CheckerName;
  flagged: boolean;
  errors: string[];
  warnings: number;
  failed?: string;
  predicted?: PredictedEffects;
}

export function checkerVerdict(answer: CheckerAnswer): CheckerVerdict {
  if ('failed' in answer)
    return { checker: answer.checker, flagged: false, errors: [], warnings: 0, failed: answer.failed };
  return {
    checker: answer.checker,
    flagged: answer.errors.length > 0,
    errors: answer.errors.slice(0, 3),
    warnings: answer.warnings.length,
    ...(answer.predicted ? { predicted: answer.predicted } : {}),
  };
}

/** What a checker says of the revision and not of the old CRD alone: its answer for old against old taken away. */
export function withoutBaseline(answer: CheckerAnswer, baseline: CheckerAnswer): CheckerAnswer {
  if ('failed' in answer || 'failed' in baseline) return answer;
  return {
    ...answer,
    errors: answer.errors.filter((line) => !baseline.errors.includes(line)),
    warnings: answer.warnings.filter((line) => !baseline.warnings.includes(line)),
  };
}

interface ProcessAnswer {
  code: number | null;
  stdout: string;
  stderr: string;
  command: string;
}

function run(command: string, args: string[]): Promise<ProcessAnswer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, command: `${command} ${args.join(' ')}` }));
  });
}

function failure(checker: CheckerName, answer: ProcessAnswer): CheckerAnswer {
  return {
    checker,
    failed: `${answer.command} exited ${answer.code}: ${(answer.stderr || answer.stdout).trim().split('\n').slice(-3).join(' | ')}`,
  };
}

interface CrdifyComparison {
  name: string;
  errors?: string[];
  warnings?: string[];
}

/** crdify -o json: comparison results for the whole CRD, per same version and per served version pair; exit 1 on an error. */
function readCrdify(answer: ProcessAnswer): CheckerAnswer {
  if (answer.code !== 0 && answer.code !== 1) return failure('crdify', answer);
  let results: {
    crdValidation?: CrdifyComparison[];
    sameVersionValidation?: Record<string, Record<string, CrdifyComparison[]>>;
    servedVersionValidation?: Record<string, Record<string, CrdifyComparison[]>>;
  };
  try {
    results = JSON.parse(answer.stdout) as typeof results;
  } catch {
    return failure('crdify', answer);
  }
  const errors: string[] = [];
  const warnings: string[] = [];
  const add = (where: string, comparisons: CrdifyComparison[]) => {
    for (const comparison of comparisons) {
      for (const error of comparison.errors ?? []) errors.push(`${where}${comparison.name}: ${error}`);
      for (const warning of comparison.warnings ?? []) warnings.push(`${where}${comparison.name}: ${warning}`);
    }
  };
  add('', results.crdValidation ?? []);
  for (const [group, byProperty] of Object.entries({
    ...results.sameVersionValidation,
    ...results.servedVersionValidation,
  })) {
    for (const [property, comparisons] of Object.entries(byProperty)) add(`${group} ${property} `, comparisons);
  }
  return { checker: 'crdify', errors, warnings };
}

/** crd-schema-checker check-manifests: `ERROR: "comparator": message` lines on stderr, warnings on stdout; exit 1 on an error. */
function readCrdSchemaChecker(answer: ProcessAnswer): CheckerAnswer {
  if (answer.code !== 0 && answer.code !== 1) return failure('crd-schema-checker', answer);
  const errors = answer.stderr
    .split('\n')
    .filter((line) => line.startsWith('ERROR: ') || line.startsWith('Error during evalutions: '));
  if (answer.code === 1 && errors.length === 0) return failure('crd-schema-checker', answer);
  return {
    checker: 'crd-schema-checker',
    errors,
    warnings: answer.stdout.split('\n').filter((line) => line.startsWith('Warning: ')),
  };
}

function readOlmPreflight(answer: ProcessAnswer): CheckerAnswer {
  if (answer.code !== 0) return failure('olm-preflight', answer);
  const report = JSON.parse(answer.stdout) as { blocked: boolean; message?: string; warning?: string };
  return {
    checker: 'olm-preflight',
    errors: report.blocked ? [report.message ?? 'blocked'] : [],
    warnings: report.warning ? [report.warning] : [],
  };
}

interface CrdgateReport {
  storedObjects?: {
    crds: Array<{
      findings: Array<{ rule: string; severity: string; count: number; examples: Array<{ message: string }> }>;
    }>;
  };
  objects: Array<{
    kind: string;
    namespace?: string;
    name: string;
    allowed: boolean;
    code: string;
    causes: Array<{ field: string; type: string }>;
  }>;
  crdRevisions: Array<{
    findings: Array<{ rule: string; version?: string; path?: string; severity: string; message: string }>;
  }>;
}

/**
 * crdgate check -o json: exit 0 all allowed, 1 a denial, a CRD revision error or a stored object's error, 2 and over
 * it could not check.
 */
function readCrdgate(answer: ProcessAnswer, checker: 'crdgate' | 'crdgate-stored' = 'crdgate'): CheckerAnswer {
  if (answer.code !== 0 && answer.code !== 1) return failure(checker, answer);
  const report = JSON.parse(answer.stdout) as CrdgateReport;
  const findings = report.crdRevisions.flatMap((revision) => revision.findings);
  const denied = report.objects
    .filter((object) => !object.allowed)
    .map(
      (object) =>
        `${object.namespace ?? ''}/${object.name}: ${object.code} ${object.causes.map((cause) => `${cause.field} ${cause.type}`).join(', ')}`,
    );
  const stored = (report.storedObjects?.crds ?? [])
    .flatMap((crd) => crd.findings)
    .filter((entry) => entry.severity === 'error')
    .map((entry) => `${entry.rule} (${entry.count}): ${entry.examples[0]?.message ?? ''}`);
  return {
    checker,
    errors: [
      ...findings
        .filter((finding) => finding.severity === 'error')
        .map((finding) => `${finding.rule}: ${finding.message}`),
      ...denied,
      ...stored,
    ],
    warnings: findings
      .filter((finding) => finding.severity === 'warning')
      .map((finding) => `${finding.rule}: ${finding.message}`),
  };
}

interface Prediction {
  summary: { checked: number };
  updateRefused: boolean;
  /** Objects per set of rules found in them, the rules joined by `+`. */
  ruleSets: Record<string, number>;
  entries: Array<{ rule: string; severity: string; count: number; examples: Array<{ message: string }> }>;
}

/** predict-revision.ts: per rule the objects it found; exit 2 when it could not predict. */
function readPrediction(answer: ProcessAnswer): CheckerAnswer {
  if (answer.code !== 0) return failure('crdgate-prediction', answer);
  const prediction = JSON.parse(answer.stdout) as Prediction;
  const objects = (...rules: string[]) =>
    Object.entries(prediction.ruleSets)
      .filter(([set]) => set.split('+').some((rule) => rules.includes(rule)))
      .reduce((sum, [, count]) => sum + count, 0);
  const line = (entry: Prediction['entries'][number]) =>
    `${entry.rule} (${entry.count}): ${entry.examples[0]?.message ?? ''}`;
  return {
    checker: 'crdgate-prediction',
    errors: prediction.entries.filter((entry) => entry.severity === 'error').map(line),
    warnings: prediction.entries.filter((entry) => entry.severity === 'warning').map(line),
    predicted: {
      crdRefused: prediction.updateRefused,
      dropped: objects('fieldDroppedOnRead'),
      defaulted: objects('defaultAddedOnRead', 'valueChangedOnRead'),
      readRefused: objects('readVersionUnserved'),
      unchangedWriteRefused: objects('unchangedWriteRefused'),
      labelWriteRefused: objects('labelWriteRefused'),
      recreateRefused: objects('recreateRefused'),
    },
  };
}
