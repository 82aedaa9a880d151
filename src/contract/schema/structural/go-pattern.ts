import { fieldInvalid, type FieldError } from '../../values/field-error.ts';
import { describeInFull } from './describe-in-full.ts';
import { goRegexpError } from './go-regexp.ts';
import type { Schema } from './schema-reading.ts';

// The API server compiles every pattern of a value validation with Go's regexp and refuses the CRD where it does not
// compile (apiextensions-apiserver: pkg/apiserver/schema/validation.go, validateValueValidation), in these words.
export function checkPattern(schema: Schema, path: string, problems: FieldError[]): void {
  if (typeof schema.pattern !== 'string' || schema.pattern === '') return;
  const error = goRegexpError(schema.pattern);
  if (error === undefined) return;
  problems.push(
    fieldInvalid(
      `${path}.pattern`,
      describeInFull(schema.pattern),
      `must be a valid regular expression, but isn't: ${error}`,
    ),
  );
}
