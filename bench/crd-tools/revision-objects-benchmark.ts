import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse, stringify } from 'yaml';
import { parseOnlyScript, shapeObject } from '../check-benchmark.ts';
import { generateRevision } from './revision-kinds.ts';
import { readPeakRss } from '../support/read-peak-rss.ts';

// `npm run bench -- --revision-objects [--revision-objects-count N]`: `crdgate check --stored` on N stored objects
// (10,000 by default) against a CRD revision, the whole process timed from start to exit with its peak RSS, against
// a process that only parses the same files as YAML, in the same rounds. Then the same at a tenth of the objects:
// --stored reads one file at a time, so its peak RSS should not grow with their number.

export interface RevisionObjectsPlan {
  objects: number;
  rounds: number;
}

interface Pass {
  name: 'yaml parse' | 'check --stored' | 'check --stored (a tenth)';
  objects: number;
  seconds: number;
  /** crdgate's and its engine process's peaks together (bench/support/report-peak-rss.ts). */
  peakRssBytes: number;
  /** Of which the native engine's process (0 when the engine ran as WebAssembly, inside crdgate's). */
  enginePeakRssBytes: number;
}

export interface RevisionObjectsResult {
  objects: number;
  revision: string;
  passes: Pass[];
  /** The best check's seconds over the best parse's. */
  ratio: number;
  objectsPerSecond: number;
  peakRssMiB: number;
  /** Which engine ran: CRDGATE_ENGINE as the bench was given it, or the one built. */
  engine: string;
  /** Peak RSS at all the objects over that at a tenth of them. */
  peakRssGrowth: number;
}

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const shapesCrdPath = join(
  repoRoot,
  'test',
  'fixtures',
  'controller-gen',
  'crds',
  'shapes.fixtures.crdgate.example.com_shapes.yaml',
);
const cliPath = join(repoRoot, 'src', 'bin.ts');
const peakRssModule = pathToFileURL(join(repoRoot, 'bench', 'support', 'report-peak-rss.ts')).href;
const OBJECTS_PER_FILE = 20;

export async function runRevisionObjectsBenchmark(
  plan: RevisionObjectsPlan,
  progress: (line: string) => void,
): Promise<RevisionObjectsResult> {
  const work = await mkdtemp(join(tmpdir(), 'crdgate-bench-revision-objects-'));
  try {
    const oldCrd = parse(await readFile(shapesCrdPath, 'utf8')) as Record<string, unknown>;
    const objects = Array.from({ length: plan.objects }, (_, n) => shapeObject(n) as Record<string, unknown>);
    // A field every Shape holds, removed: every object has a finding, so none takes a cheaper path.
    const revision = generateRevision(oldCrd, objects.slice(0, 20), 'fieldRemoved');
    if (!revision) throw new Error('the Shape CRD has no field to remove');
    // Each tree holds its revision of the CRD alone: the stored objects come in through --stored.
    await mkdir(join(work, 'old'));
    await mkdir(join(work, 'new'));
    await writeFile(join(work, 'old', 'crd.yaml'), stringify(oldCrd));
    await writeFile(join(work, 'new', 'crd.yaml'), stringify(revision.crd));
    const tenth = Math.max(1, Math.floor(plan.objects / 10));
    progress(`writing ${plan.objects} stored Shapes (and a tenth of them apart)`);
    await writeObjects(join(work, 'all'), objects);
    await writeObjects(join(work, 'tenth'), objects.slice(0, tenth));
    const check = (folder: string) => [
      cliPath,
      'check',
      '-f',
      join(work, 'new'),
      '--old',
      join(work, 'old'),
      '--stored',
      join(work, folder),
      '-o',
      'json',
    ];
    const passes: Pass[] = [];
    for (let round = 1; round <= plan.rounds; round += 1) {
      progress(`round ${round} of ${plan.rounds}`);
      passes.push({
        name: 'yaml parse',
        objects: plan.objects,
        ...(await timed(['--input-type=module', '-e', parseOnlyScript, join(work, 'all')], plan.objects, work)),
      });
      passes.push({
        name: 'check --stored',
        objects: plan.objects,
        ...(await timed(check('all'), plan.objects, work)),
      });
      passes.push({ name: 'check --stored (a tenth)', objects: tenth, ...(await timed(check('tenth'), tenth, work)) });
    }
    const best = (name: Pass['name']) =>
      passes.filter((pass) => pass.name === name).reduce((a, b) => (b.seconds < a.seconds ? b : a));
    const peak = (name: Pass['name']) =>
      Math.max(...passes.filter((pass) => pass.name === name).map((pass) => pass.peakRssBytes));
    return {
      objects: plan.objects,
      revision: `${revision.kind} ${revision.target} of controller-gen's Shape`,
      passes,
      ratio: best('check --stored').seconds / best('yaml parse').seconds,
      objectsPerSecond: plan.objects / best('check --stored').seconds,
      peakRssMiB: peak('check --stored') / 2 ** 20,
      engine: passes.some((pass) => pass.name !== 'yaml parse' && pass.enginePeakRssBytes > 0)
        ? 'the native engine (a process of its own, counted in the peaks)'
        : 'the WebAssembly engine (inside crdgate)',
      peakRssGrowth: peak('check --stored') / peak('check --stored (a tenth)'),
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function writeObjects(dir: string, objects: readonly Record<string, unknown>[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (let start = 0; start < objects.length; start += OBJECTS_PER_FILE) {
    const documents = objects.slice(start, start + OBJECTS_PER_FILE).map((object) => stringify(object));
    await writeFile(
      join(dir, `shapes-${String(start / OBJECTS_PER_FILE).padStart(4, '0')}.yaml`),
      documents.join('---\n'),
    );
  }
}

/**
 * The whole process, start-up included, and its peak RSS; it must say it handled every object (a pass that did less
 * would look faster). Exit 1 is check's answer to the error findings the revision is there to make.
 */
function timed(
  args: string[],
  objects: number,
  work: string,
): Promise<{ seconds: number; peakRssBytes: number; enginePeakRssBytes: number }> {
  const peakFile = join(work, 'peak-rss');
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', peakRssModule, ...args],
      { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, CRDGATE_BENCH_PEAK_RSS_FILE: peakFile } },
      (error, stdout, stderr) => {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        if (error && error.code !== 1)
          return reject(new Error(`${args.slice(0, 2).join(' ')} failed: ${stderr || error.message}`));
        let summary: { storedObjects?: number; documents?: number };
        try {
          ({ summary } = JSON.parse(stdout) as { summary: typeof summary });
        } catch {
          // Exit 1 with no report: it failed rather than found something (a 10,000-object run once ended so, stderr unread).
          return reject(
            new Error(
              `${args.slice(0, 2).join(' ')} wrote no report (exit ${String(error?.code ?? 0)}): ${stderr.trim().split('\n').slice(-5).join(' | ')}`,
            ),
          );
        }
        const done = summary.storedObjects ?? summary.documents ?? 0;
        if (done < objects)
          return reject(new Error(`${args.slice(0, 2).join(' ')} handled ${done} of ${objects} objects`));
        // The process and the native engine's process below it, where it runs one (the only process it starts).
        readPeakRss(peakFile).then(
          (peak) => resolve({ seconds, peakRssBytes: peak.totalBytes, enginePeakRssBytes: peak.childrenBytes }),
          reject,
        );
      },
    );
  });
}

export function renderRevisionObjectsReport(result: RevisionObjectsResult): string {
  const rows = result.passes.map(
    (pass) =>
      `  ${pass.name.padEnd(22)} ${String(pass.objects).padStart(6)} objects  ${pass.seconds.toFixed(2).padStart(7)} s  peak RSS ${(pass.peakRssBytes / 2 ** 20).toFixed(1)} MiB` +
      (pass.enginePeakRssBytes > 0
        ? ` (the engine's process ${(pass.enginePeakRssBytes / 2 ** 20).toFixed(1)} MiB)`
        : ''),
  );
  return [
    `Stored objects judged against a CRD revision (${result.revision}): crdgate check --stored, the whole process, on ${result.engine}`,
    ...rows,
    `best: ${(result.objects / result.objectsPerSecond).toFixed(2)} s for ${result.objects} objects (${Math.round(result.objectsPerSecond)} objects/s), ${result.ratio.toFixed(1)}x the time of only parsing their YAML; peak RSS ${result.peakRssMiB.toFixed(1)} MiB, ${result.peakRssGrowth.toFixed(2)}x that at a tenth of the objects`,
    '',
  ].join('\n');
}
