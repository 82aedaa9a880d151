import { brandError, isBrandedError, type ConversionErrorCode } from '../errors.ts';

export type { ConversionErrorCode } from '../errors.ts';

/**
 * Why an object could not be converted. The code is stable (tests and callers branch on it; the catalog is in
 * errors.ts); the message names the object and the versions, because it travels to the API server and from there
 * to whoever ran kubectl.
 */
export class ConversionError extends Error {
  override name = 'ConversionError';
  readonly code: ConversionErrorCode;

  constructor(code: ConversionErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    brandError(this, 'ConversionError');
  }

  /** Holds for a ConversionError from another copy of crdgate too (a user's contract may import its own). */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isBrandedError(value, 'ConversionError');
  }
}
