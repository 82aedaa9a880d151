import { fieldInvalid, type FieldError } from '../../values/field-error.ts';
import { describeInFull } from './describe-in-full.ts';
import type { Schema } from './schema-reading.ts';

// The API server checks patterns as RE2; crdgate's validators evaluate them as ECMAScript, so a pattern must compile
// as both (the API server's own check is left to it: RE2 and ECMAScript agree on what real CRDs use).
export function checkPattern(schema: Schema, path: string, problems: FieldError[]): void {
  if (typeof schema.pattern !== 'string' || schema.pattern === '') return;
  try {
    new RegExp(schema.pattern, 'u');
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const why = `crdgate evaluates patterns as ECMAScript regular expressions, and this is not one: ${reason}`;
    problems.push(fieldInvalid(`${path}.pattern`, describeInFull(schema.pattern), why));
  }
}
