/**
 * How `crdgate migrate` stops on SIGTERM within a known time. Kubernetes kills a pod `terminationGracePeriodSeconds`
 * after SIGTERM; a run that is still waiting then (a backoff of up to 30 s, a write of up to its 30 s timeout) dies
 * with 137 and prints nothing. So every wait and every request of the run takes the stop signal (the helpers of
 * src/abort/): waits end at once, a request in flight gets a short grace to finish (a finished write is progress),
 * and the summary follows.
 */

/** At most this long from SIGTERM to exit; the rendered Job's terminationGracePeriodSeconds is set above it. */
export const MIGRATE_STOP_BOUND_SECONDS = 10;

/** A request in flight when SIGTERM comes may finish within this; then it is abandoned (a rewrite is idempotent). */
export const IN_FLIGHT_GRACE_MS = 5_000;
