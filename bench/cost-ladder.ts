import { admissionPaths, type AdmissionPayload } from './admission-payloads.ts';
import type { BenchEnvironment } from './bench-environment.ts';
import { measureThroughput } from './closed-loop-throughput.ts';
import { variants } from './serve-crdgate-variant.ts';
import type { ServerProcess } from './server-process.ts';

export interface LadderPlan {
  warmupMs: number;
  measureMs: number;
  concurrency: number;
  sockets: number;
  rounds: number;
}

export interface LadderStep {
  payload: string;
  path: string;
  rung: string;
  /** Server CPU per request: the inverse of requests per server-CPU-second. */
  cpuMicrosPerRequest: number;
  /** What this rung adds over the one below it. */
  addedMicros: number;
}

const rungs = ['bare', ...variants, 'crdgate'] as const;
type Rung = (typeof rungs)[number];

export const rungMeaning: Record<Rung, string> = {
  bare: 'node:https + read body + JSON.parse + constant answer',
  decision: '+ crdgate decision (handleAdmissionReview) + JSON.stringify of its answer',
  'express-quiet':
    '+ express app (router, body reader, pre-serialized answer, request observer; pino silent, metrics no-op)',
  'express-metrics': '+ prom-client counters and histogram',
  crdgate: '+ pino at info (= the real server: no line for an allowed review, see docs/server.md, Logging policy)',
};

/**
 * Server CPU per request, rung by rung, from the bare server up to crdgate: each rung adds one layer, so the
 * differences say what each layer costs. CPU accounting (not a sampling profile) makes it immune to the
 * descheduling that a busy 2-core machine inflicts on wall-clock samples.
 */
export async function measureCostLadder(
  env: BenchEnvironment,
  payloads: AdmissionPayload[],
  plan: LadderPlan,
  progress: (line: string) => void,
): Promise<LadderStep[]> {
  const servers = new Map<Rung, ServerProcess>();
  servers.set('bare', await env.startBare());
  for (const variant of variants) servers.set(variant, await env.startCrdgateVariant(variant));
  servers.set('crdgate', await env.startCrdgate());

  const best = new Map<string, number>();
  for (let round = 1; round <= plan.rounds; round++) {
    for (const payload of payloads) {
      for (const path of admissionPaths) {
        for (const rung of rungs) {
          progress(`cost ladder round ${round}/${plan.rounds}: ${payload.name} ${path} ${rung}`);
          const server = servers.get(rung)!;
          const result = await env.withAgent(server, plan.sockets, (target) =>
            measureThroughput({ server, target, path, body: payload.body, ...plan, maxRequests: 5_000_000 }),
          );
          const key = `${payload.name} ${path} ${rung}`;
          const micros = 1e6 / result.requestsPerServerCpuSecond;
          // Interference only ever adds CPU: keep each rung's cheapest round.
          best.set(key, Math.min(best.get(key) ?? Number.POSITIVE_INFINITY, micros));
        }
      }
    }
  }
  await Promise.all([...servers.values()].map((server) => server.stop()));

  return payloads.flatMap((payload) =>
    admissionPaths.flatMap((path) =>
      rungs.map((rung, index) => {
        const micros = best.get(`${payload.name} ${path} ${rung}`)!;
        const below = index === 0 ? 0 : best.get(`${payload.name} ${path} ${rungs[index - 1]}`)!;
        return { payload: payload.name, path, rung, cpuMicrosPerRequest: micros, addedMicros: micros - below };
      }),
    ),
  );
}
