import type { Judgement } from '../../api-server-engine/engine.ts';
import type { Refusal } from './outcome.ts';

/** The engine's refusal as the outcome records it: the status code and each cause's field and type. */
export function refusalOf(judgement: Judgement): Refusal {
  return { code: judgement.code ?? 500, causes: judgement.causes.map(({ field, type }) => ({ field, type })) };
}
