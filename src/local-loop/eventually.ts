/**
 * Polls until check returns a value (anything but undefined), for what the API server does asynchronously:
 * establishing a CRD, picking up a webhook configuration. Fails with what was last seen, so a timeout says why.
 */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs = 30_000, intervalMs = 250 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = 'no answer yet';
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
      last = 'not yet';
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : String(last);
      throw new Error(`${what}: not within ${timeoutMs} ms (last: ${detail})`, { cause: last });
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
