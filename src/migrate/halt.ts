import { KubeApiError } from '../kube/kube-api.ts';
import type { Failure, StopCause } from './retry-policy.ts';

/** The run stops before its end: a request it cannot do without failed (with the cause), or a stop signal came. */
export type Halt = { outcome: 'aborted'; cause: StopCause; problem: string } | { outcome: 'interrupted' };

/** Why the run stops, with the real cause: a failure that is neither an answer about one object nor retried. */
export function haltOn(failure: Failure, what: string, server: string): Halt {
  if (failure.class === 'interrupted') return { outcome: 'interrupted' };
  const cause = failure.class === 'stop' ? failure.cause : 'rejected';
  const error = 'error' in failure ? failure.error : undefined;
  return { outcome: 'aborted', cause, problem: describeStop(cause, what, error, server) };
}

/** The report's `problem`: the cause first, in words an operator can act on, then the API server's own. */
export function describeStop(cause: StopCause, what: string, error: unknown, server: string): string {
  const detail = describeError(error);
  switch (cause) {
    case 'unauthorized':
      return `unauthorized: the API server at ${server} does not accept the credentials (${what}): ${detail}`;
    case 'forbidden':
      return `forbidden: the credentials in use may not ${what} (the Job's ServiceAccount needs the roles in manifests/migration/): ${detail}`;
    case 'unavailable':
      return `the API server kept failing: ${what}: ${detail}`;
    case 'rejected':
      return `the API server refused to ${what}: ${detail}`;
  }
}

/** A failed request in one line: the API server's status and message, or the transport's. */
export function describeError(error: unknown): string {
  if (error instanceof KubeApiError)
    return `HTTP ${error.code}${error.reason ? ` ${error.reason}` : ''}: ${error.message}`;
  return (error as Error)?.message ?? String(error);
}
