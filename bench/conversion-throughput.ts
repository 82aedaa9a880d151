import type { ConversionPayload } from './conversion-payloads.ts';
import { post, type Target } from './support/https-client.ts';
import { percentile } from './support/percentile.ts';

export interface ConversionOptions {
  target: Target;
  payload: ConversionPayload;
  warmupReviews: number;
  maxReviews: number;
  maxMs: number;
}

export type ConversionResult =
  | {
      ok: true;
      reviews: number;
      medianMs: number;
      maxMs: number;
      objectsPerSecond: number;
      requestBytes: number;
      responseBytes: number;
    }
  | { ok: false; reason: string };

interface ConversionAnswer {
  response?: { convertedObjects?: unknown[]; result?: { status?: string; message?: string } };
}

/** One review at a time, as the API server sends them: time per review is what its webhook timeout is compared with. */
export async function measureConversion(options: ConversionOptions): Promise<ConversionResult> {
  const timesMs: number[] = [];
  let responseBytes = 0;
  const deadline = performance.now() + options.maxMs;
  for (let review = 0; review < options.warmupReviews + options.maxReviews && performance.now() < deadline; review++) {
    const sentAt = performance.now();
    const answer = await post(options.target, '/convert', options.payload.body);
    const tookMs = performance.now() - sentAt;
    const problem = answerProblem(answer.status, answer.body, options.payload.objects);
    if (problem) return { ok: false, reason: problem };
    responseBytes = answer.body.length;
    if (review >= options.warmupReviews) timesMs.push(tookMs);
  }
  if (timesMs.length === 0)
    return { ok: false, reason: `no review finished within ${options.maxMs} ms after the warm-up` };
  const sorted = [...timesMs].sort((a, b) => a - b);
  const medianMs = percentile(sorted, 50);
  return {
    ok: true,
    reviews: sorted.length,
    medianMs,
    maxMs: sorted.at(-1)!,
    objectsPerSecond: options.payload.objects / (medianMs / 1000),
    requestBytes: options.payload.body.length,
    responseBytes,
  };
}

function answerProblem(status: number, body: Buffer, expectedObjects: number): string | undefined {
  if (status !== 200) return `HTTP ${status}: ${body.toString('utf8').slice(0, 300)}`;
  const review = JSON.parse(body.toString('utf8')) as ConversionAnswer;
  const result = review.response?.result;
  if (result?.status !== 'Success') return `result ${result?.status ?? 'missing'}: ${result?.message ?? ''}`;
  const converted = review.response?.convertedObjects?.length ?? 0;
  if (converted !== expectedObjects) return `${converted} objects came back, ${expectedObjects} were sent`;
  return undefined;
}
