/**
 * A signal for requests that outlives a stop request by a grace: a write in flight when the stop comes may finish
 * (a finished write is progress), but not for long. Aborted `graceMs` after `stop`; `dispose` lets it go, so that
 * a run that ends before the grace is over leaves no timer behind.
 */
export function abandonAfterStop(stop: AbortSignal, graceMs: number): { signal: AbortSignal; dispose(): void } {
  const abandon = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onStop = () => (timer = setTimeout(() => abandon.abort(), graceMs));
  if (stop.aborted) onStop();
  else stop.addEventListener('abort', onStop, { once: true });
  return {
    signal: abandon.signal,
    dispose() {
      stop.removeEventListener('abort', onStop);
      clearTimeout(timer);
    },
  };
}
