import { createKeepAliveAgent, post } from '../support/https-client.ts';
import type { KindReview } from './kind-reviews.ts';

// The --many-kinds load: reviews of every kind in turn (one of the first kind, one of the second, ...), so that
// each kind's validators and rules are called throughout, over a few keep-alive connections as the API server
// keeps them.

export interface LoadPlan {
  /** Reviews timed (the CPU per review is over these). */
  reviews: number;
  /** Reviews in flight at once, each on its own connection. */
  concurrency: number;
}

export interface LoadResult {
  reviews: number;
  allowed: number;
  denied: number;
  /** Per CRD: its reviews sent, those denied, and the first denial's message. */
  byCrd: Map<string, { reviews: number; denied: number; firstDenial?: string }>;
}

interface AdmissionAnswer {
  response?: { allowed?: unknown; status?: { message?: unknown } };
}

/** Every review of every kind once, untimed: the first call of each path compiles it (V8 compiles lazily). */
export function warmUp(port: number, ca: Buffer, reviewsByKind: KindReview[][], concurrency: number) {
  const all = reviewsByKind.flat();
  return send(port, ca, (index) => all[index]!, all.length, concurrency);
}

/** `plan.reviews` reviews, the kinds in turn and each kind's reviews in turn. */
export function sendLoad(port: number, ca: Buffer, reviewsByKind: KindReview[][], plan: LoadPlan) {
  const kinds = reviewsByKind.length;
  const nth = (index: number): KindReview => {
    const reviews = reviewsByKind[index % kinds]!;
    return reviews[Math.floor(index / kinds) % reviews.length]!;
  };
  return send(port, ca, nth, plan.reviews, plan.concurrency);
}

async function send(
  port: number,
  ca: Buffer,
  nth: (index: number) => KindReview,
  count: number,
  concurrency: number,
): Promise<LoadResult> {
  const agent = createKeepAliveAgent(ca, concurrency);
  const result: LoadResult = { reviews: count, allowed: 0, denied: 0, byCrd: new Map() };
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const review = nth(next++);
      const answer = await post({ port, agent }, review.path, review.body);
      if (answer.status !== 200)
        throw new Error(`${review.operation} to ${review.path}: HTTP ${answer.status} ${answer.body.toString('utf8')}`);
      const { response } = JSON.parse(answer.body.toString('utf8')) as AdmissionAnswer;
      const tally = result.byCrd.get(review.crd) ?? { reviews: 0, denied: 0 };
      result.byCrd.set(review.crd, tally);
      tally.reviews++;
      if (response?.allowed === true) {
        result.allowed++;
        continue;
      }
      result.denied++;
      tally.denied++;
      tally.firstDenial ??= `${review.operation} to ${review.path}: ${String(response?.status?.message)}`;
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return result;
}
