import { ApiException } from '@kubernetes/client-node';

export interface ApiErrorStatus {
  code: number;
  message: string;
}

/** The HTTP code and the Status message of a refused API call; anything else is rethrown. */
export async function refusal(call: Promise<unknown>): Promise<ApiErrorStatus> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body: unknown = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
    return { code: error.code, message: String((body as { message?: unknown } | undefined)?.message ?? '') };
  }
  throw new Error('the API server accepted the request');
}

export function isNotFound(error: unknown): boolean {
  return error instanceof ApiException && error.code === 404;
}
