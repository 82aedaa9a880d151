// The engine's side of the CEL comparison (cel-comparison.ts), run in a process of its own as the cel-timer is:
// crdgate's API server engine (kube-apiserver's pipeline, natively in a child process or in WebAssembly, as
// CRDGATE_ENGINE chooses, through src/api-server-engine/engine.ts) judging the same objects, timed in process after
// start-up. CPU time is this process's and, for the native engine, its process's too (read from /proc).
//
// judge() cannot run the rules alone: each call is the whole pipeline (the request to JSON, decoding, pruning,
// defaulting, ObjectMeta and OpenAPI validation, the CEL rules, the answer back). So the same objects are judged
// against the CRD as written and against the same CRD with every x-kubernetes-validations removed; the rules' time
// is the difference. Nothing else differs between the two: without rules the engine builds no CEL validator and
// skips that step (rules.go), and everything else sees the same schema and objects.
//
// Usage: node engine-timer.ts --crd CRD.yaml --objects NEW.jsonl [--old OLD.jsonl] [--rounds N]
// With --old it times updates, else creates: one pass a process, so that each starts from a fresh engine (the
// engine's WebAssembly memory only grows, and tens of thousands of judges in one process once took it past the
// 2 GiB the host can address). Prints { engine, withRules, withoutRules }: the engine that ran, and the rounds' wall and
// CPU nanoseconds. Every
// object is judged once untimed against both CRDs first (the warm-up, and the proof that every one is allowed);
// then the rounds alternate between the two CRDs, so that a slow stretch of the machine falls on both.
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse } from 'yaml';
import {
  judge,
  loadCrd,
  runningEngine,
  type EngineCrd,
  type EngineKind,
  type JudgeInput,
} from '../../src/api-server-engine/engine.ts';

const { values } = parseArgs({
  options: {
    crd: { type: 'string' },
    objects: { type: 'string' },
    old: { type: 'string' },
    rounds: { type: 'string' },
  },
});
if (!values.crd || !values.objects)
  throw new Error('usage: engine-timer.ts --crd CRD.yaml --objects NEW.jsonl [--old OLD.jsonl] [--rounds N]');
const rounds = Number(values.rounds ?? 5);

const crd = parse(readFileSync(values.crd, 'utf8')) as unknown;
const withRules = loadCrd(crd);
const withoutRules = loadCrd(withoutValidations(crd));
const objects = readLines(values.objects);
const olds = values.old ? readLines(values.old) : undefined;
if (olds && olds.length !== objects.length) throw new Error(`${olds.length} old objects for ${objects.length} objects`);

/** Each round's wall time and the process's CPU time (user + system), in nanoseconds. */
export interface EngineRounds {
  roundsNs: number[];
  roundsCpuNs: number[];
}

const times = olds
  ? timePass((i) => ({ operation: 'UPDATE', object: objects[i], oldObject: olds[i] }))
  : timePass((i) => ({ operation: 'CREATE', object: objects[i] }));
const engine: EngineKind | undefined = runningEngine()?.kind;
process.stdout.write(`${JSON.stringify({ engine, ...times })}\n`);

function timePass(input: (i: number) => JudgeInput): { withRules: EngineRounds; withoutRules: EngineRounds } {
  for (const engineCrd of [withRules, withoutRules]) {
    for (let i = 0; i < objects.length; i += 1) {
      const judgement = judge(engineCrd, input(i));
      if (!judgement.allowed) throw new Error(`object ${i} (line ${i + 1}) is refused: ${judgement.message}`);
    }
  }
  const times = { withRules: { roundsNs: [], roundsCpuNs: [] }, withoutRules: { roundsNs: [], roundsCpuNs: [] } };
  for (let round = 0; round < rounds; round += 1) {
    timeRound(withRules, input, times.withRules);
    timeRound(withoutRules, input, times.withoutRules);
  }
  return times;
}

function timeRound(engineCrd: EngineCrd, input: (i: number) => JudgeInput, into: EngineRounds): void {
  // Each round starts from a collected JavaScript heap (node --expose-gc), as the cel-timer's do from a collected Go
  // heap. The engine's own Go heap, inside the WebAssembly memory, collects itself as it would anywhere.
  (globalThis as { gc?: () => void }).gc?.();
  const started = process.hrtime.bigint();
  const cpuStarted = process.cpuUsage();
  const childrenStarted = childrenCpuNs();
  for (let i = 0; i < objects.length; i += 1) judge(engineCrd, input(i));
  const cpu = process.cpuUsage(cpuStarted);
  into.roundsNs.push(Number(process.hrtime.bigint() - started));
  into.roundsCpuNs.push((cpu.user + cpu.system) * 1000 + childrenCpuNs() - childrenStarted);
}

/**
 * CPU time so far of this process's children (the native engine's process; none for WebAssembly), in nanoseconds:
 * the first field of /proc/PID/task/TID/schedstat, summed over its threads (Go's threads live as long as it does).
 */
function childrenCpuNs(): number {
  let ns = 0;
  for (const task of readdirSync('/proc/self/task')) {
    const children = readFileSync(`/proc/self/task/${task}/children`, 'utf8').split(' ').filter(Boolean);
    for (const child of children)
      for (const thread of readdirSync(`/proc/${child}/task`))
        ns += Number(readFileSync(`/proc/${child}/task/${thread}/schedstat`, 'utf8').split(' ')[0]);
  }
  return ns;
}

function readLines(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}

/** A copy of the CRD with every x-kubernetes-validations removed, wherever in its schemas it is. */
function withoutValidations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutValidations);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'x-kubernetes-validations')
      .map(([key, child]) => [key, withoutValidations(child)]),
  );
}
