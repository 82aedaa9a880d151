export class WebhookUrlError extends Error {
  override name = 'WebhookUrlError';
}

/**
 * Checks a `--url` and returns it as `https://HOST[:PORT]`, to which the webhook paths are appended. The API
 * server only calls webhooks over HTTPS and refuses URLs with user info, a query or a fragment; a path is refused
 * here because crdgate's routes are fixed (/validate, /mutate, /convert).
 */
export function parseWebhookBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebhookUrlError(`"${text}" is not a URL (expected https://HOST:PORT)`);
  }
  if (url.protocol !== 'https:')
    throw new WebhookUrlError(`"${text}" must use https (the API server calls webhooks over TLS only)`);
  if (url.username !== '' || url.password !== '')
    throw new WebhookUrlError(`"${text}" must not carry a user name or password`);
  if (url.search !== '' || url.hash !== '' || text.includes('?') || text.includes('#')) {
    throw new WebhookUrlError(`"${text}" must not have a query or fragment`);
  }
  if (url.pathname !== '/') {
    throw new WebhookUrlError(`"${text}" must not have a path: crdgate appends /validate, /mutate and /convert itself`);
  }
  return `https://${url.host}`;
}
