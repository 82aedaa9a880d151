// Run in a fresh process by the check bench (check-benchmark.ts), once per start measured: the time from crdgate's
// first call into the API server engine to its answer, for a trivial request (a CEL expression of constants), with
// the engine that CRDGATE_ENGINE chooses. That call starts the engine: for the native one, its pipes and process, and
// the first answer over them; for the WebAssembly one, compiling and instantiating the module. Importing crdgate's modules comes before and is not counted. Prints { engine, firstAnswerMs }.
import { evaluateCel, runningEngine } from '../src/api-server-engine/engine.ts';

const started = process.hrtime.bigint();
const answer = evaluateCel({ expr: '1 + 1 == 2' });
const firstAnswerMs = Number(process.hrtime.bigint() - started) / 1e6;
if (JSON.stringify(answer.value) !== JSON.stringify({ boolValue: true }))
  throw new Error(`the engine answered 1 + 1 == 2 with ${JSON.stringify(answer)}`);
process.stdout.write(`${JSON.stringify({ engine: runningEngine()?.kind, firstAnswerMs })}\n`);
