import type { IncomingHttpHeaders } from 'node:http';

/**
 * The API server answered with an error status: its HTTP `code` and its metav1.Status (`{}` when it sent none).
 * crdgate's own client and crdgate/testing's object client (local-loop/object-client.ts) both throw it, so a
 * refusal reads the same wherever it is met.
 */
export class KubeApiError extends Error {
  override name = 'KubeApiError';
  readonly code: number;
  /** The Status the API server sent, as it sent it: what kubectl prints (`message`, `reason`, `details.causes`). */
  readonly status: KubeStatus;
  /** The answer's body as text: the Status as JSON, or whatever else the server sent. */
  readonly body: string;
  readonly reason: string;
  /** Seconds the server asked the client to wait (Retry-After, or the Status's details.retryAfterSeconds). */
  readonly retryAfterSeconds: number | undefined;
  /** On 410 Expired during a list: the token the server offers to carry on from, when it offers one. */
  readonly continueToken: string | undefined;
  /**
   * The object a 404 or 409 is about. A 404 without one means the endpoint itself is missing: after a restart
   * the API server answers so for custom resources until it has loaded their CRDs.
   */
  readonly objectName: string | undefined;

  constructor(code: number, status: KubeStatus | undefined, headers: IncomingHttpHeaders, what: string, body?: string) {
    super(status?.message ? status.message : `${what}: HTTP ${code}`);
    this.code = code;
    this.status = status ?? {};
    this.body = body ?? JSON.stringify(this.status);
    this.reason = status?.reason ?? '';
    this.retryAfterSeconds = retryAfter(headers, status);
    this.continueToken = status?.metadata?.continue || undefined;
    this.objectName = status?.details?.name || undefined;
  }
}

/** A metav1.Status, as far as crdgate reads it. */
export interface KubeStatus {
  kind?: string;
  code?: number;
  message?: string;
  reason?: string;
  details?: {
    retryAfterSeconds?: number;
    name?: string;
    kind?: string;
    causes?: Array<{ reason?: string; message?: string; field?: string }>;
  };
  metadata?: { continue?: string };
}

function retryAfter(headers: IncomingHttpHeaders, status: KubeStatus | undefined): number | undefined {
  const header = headers['retry-after'];
  const seconds = header !== undefined && /^\d+$/.test(header) ? Number(header) : status?.details?.retryAfterSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}
