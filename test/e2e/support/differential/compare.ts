import type { CheckResult } from '../../../../src/check/check-object.ts';
import { jsonEqual } from '../../../../src/contract/values/json-equal.ts';
import type { Judgement } from './api-server-judge.ts';
import type { DifferentialCase } from './schema-cases.ts';

/** Where crdgate and kube-apiserver answered one case differently. */
export interface Disagreement {
  case: string;
  apiServer: string;
  crdgate: string;
}

export interface Tally {
  cases: number;
  agreed: number;
  /** Cases both allowed, whose stored objects were compared. */
  storedCompared: number;
  /** Cases both refused. */
  refused: number;
  /** Per mutation: cases and disagreements, so a figure says what it covers. */
  byMutation: Map<string, { cases: number; disagreements: number }>;
  disagreements: Disagreement[];
}

/**
 * Both allowed, storing the same object; or both refused with the same causes: each field with the same message (for
 * a CEL rule, its `message` or `messageExpression`'s result, reason and fieldPath as kube-apiserver words them). One
 * named exception: an error about no field (anyOf's "must validate at least one schema", "some validation rules were
 * not checked") has the field `<nil>` on the API server's wire, Go's rendering of a nil path, where crdgate says ''
 * (src/api-server-engine/engine.ts).
 */
export function agrees(apiServer: Judgement, crdgate: CheckResult): boolean {
  if (apiServer.allowed !== crdgate.allowed) return false;
  if (apiServer.allowed) return storedDifferences(apiServer.stored, crdgate.object).length === 0;
  const fields = [...new Set(crdgate.causes.map((cause) => cause.field))].sort();
  const apiServerFields = [...new Set(apiServer.fields.map(withoutNil))].sort();
  if (JSON.stringify(fields) !== JSON.stringify(apiServerFields)) return false;
  // A 400 of strict decoding carries no causes, only its message: the fields above are all there is to compare.
  if (apiServer.causes === undefined) return true;
  const messages = crdgate.causes.map((cause) => `${cause.field}: ${cause.message}`).sort();
  return (
    JSON.stringify(messages) ===
    JSON.stringify(apiServer.causes.map((cause) => `${withoutNil(cause.field)}: ${cause.message}`).sort())
  );
}

function withoutNil(field: string): string {
  return field === '<nil>' ? '' : field;
}

/**
 * Where the object kube-apiserver stores (pruned, defaulted, as it answered a write or reads it back) and the one
 * crdgate says it would store differ, path by path, in all but metadata: the API server's own (uid,
 * resourceVersion, managedFields, times) is no part of what the schema decides. Empty when they are alike.
 */
export function storedDifferences(
  apiServer: unknown,
  crdgate: unknown,
): Array<{ path: string; apiServer: unknown; crdgate: unknown }> {
  const differences: Array<{ path: string; apiServer: unknown; crdgate: unknown }> = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (jsonEqual(a, b)) return;
    const bothRecords = isRecord(a) && isRecord(b);
    const bothLists = Array.isArray(a) && Array.isArray(b) && a.length === b.length;
    if (!bothRecords && !bothLists) {
      differences.push({ path: path || '(root)', apiServer: a, crdgate: b });
      return;
    }
    const keys = bothLists
      ? (a as unknown[]).map((_, index) => index)
      : [...new Set([...Object.keys(a as object), ...Object.keys(b as object)])];
    for (const key of keys)
      walk(
        (a as Record<string, unknown>)[key],
        (b as Record<string, unknown>)[key],
        typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key,
      );
  };
  walk(withoutMetadata(apiServer), withoutMetadata(crdgate), '');
  return differences;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function withoutMetadata(object: unknown): unknown {
  if (!isRecord(object)) return object;
  const { metadata: _metadata, ...rest } = object;
  return rest;
}

export function describeJudgement(judgement: Judgement): string {
  return judgement.allowed ? 'allowed' : `denied: ${judgement.messages.join('; ')}`;
}

export function describeCheck(result: CheckResult): string {
  return result.allowed
    ? 'allowed'
    : `denied: ${result.causes.map((cause) => `${cause.field}: ${cause.message}`).join('; ') || result.message}`;
}

/** How the two answers differ, each side in its own words; undefined when they agree. */
export function disagreementOf(name: string, apiServer: Judgement, crdgate: CheckResult): Disagreement | undefined {
  if (agrees(apiServer, crdgate)) return undefined;
  if (!apiServer.allowed || !crdgate.allowed)
    return { case: name, apiServer: describeJudgement(apiServer), crdgate: describeCheck(crdgate) };
  const differences = storedDifferences(apiServer.stored, crdgate.object);
  const side = (which: 'apiServer' | 'crdgate') =>
    `allowed, storing ${differences.map((difference) => `${difference.path} = ${JSON.stringify(difference[which])}`).join('; ')}`;
  return { case: name, apiServer: side('apiServer'), crdgate: side('crdgate') };
}

export function tally(
  results: ReadonlyArray<{ testCase: DifferentialCase; apiServer: Judgement; crdgate: CheckResult }>,
): Tally {
  const byMutation = new Map<string, { cases: number; disagreements: number }>();
  const disagreements: Disagreement[] = [];
  for (const { testCase, apiServer, crdgate } of results) {
    const entry = byMutation.get(testCase.mutation) ?? { cases: 0, disagreements: 0 };
    entry.cases++;
    const disagreement = disagreementOf(testCase.name, apiServer, crdgate);
    if (disagreement) {
      entry.disagreements++;
      disagreements.push(disagreement);
    }
    byMutation.set(testCase.mutation, entry);
  }
  const both = (allowed: boolean) =>
    results.filter((result) => result.apiServer.allowed === allowed && result.crdgate.allowed === allowed).length;
  return {
    cases: results.length,
    agreed: results.length - disagreements.length,
    storedCompared: both(true),
    refused: both(false),
    byMutation,
    disagreements,
  };
}
