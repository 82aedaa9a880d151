import type { AdmissionPayload } from '../admission-payloads.ts';
import { post, type Target } from './https-client.ts';

/**
 * Before timing anything: every payload must be admitted by the server, or the bench would be timing error answers
 * (a denial is cheaper than a decision). A payload that stops being allowed is a bench failure, not a result.
 */
export async function expectAllowed(
  target: Target,
  payloads: AdmissionPayload[],
  paths: string[],
  server = 'crdgate',
): Promise<void> {
  for (const payload of payloads) {
    for (const path of paths) {
      const answer = await post(target, path, payload.body);
      const review =
        answer.status === 200
          ? (JSON.parse(answer.body.toString('utf8')) as { response?: { allowed?: boolean } })
          : undefined;
      if (review?.response?.allowed !== true) {
        throw new Error(
          `${server} did not allow the ${payload.name} payload on ${path}: HTTP ${answer.status} ${answer.body.toString('utf8').slice(0, 500)}`,
        );
      }
    }
  }
}
