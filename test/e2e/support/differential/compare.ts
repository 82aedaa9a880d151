import type { CheckResult } from '../../../../src/admission/check-object.ts';
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
  /** Per mutation: cases and disagreements, so a figure says what it covers. */
  byMutation: Map<string, { cases: number; disagreements: number }>;
  disagreements: Disagreement[];
}

/**
 * Both allowed, or both refused with the same causes: each field with the same message (for a CEL rule, its
 * `message` or `messageExpression`'s result, reason and fieldPath as kube-apiserver words them). One named exception:
 * an error about no field (anyOf's "must validate at least one schema", "some validation rules were not checked") has
 * the field `<nil>` on the API server's wire, Go's rendering of a nil path, where crdgate says ''
 * (src/api-server-engine/engine.ts).
 */
export function agrees(apiServer: Judgement, crdgate: CheckResult): boolean {
  if (apiServer.allowed !== crdgate.allowed) return false;
  if (apiServer.allowed) return true;
  const fields = [...new Set(crdgate.causes.map((cause) => cause.field))].sort();
  const apiServerFields = [...new Set(apiServer.fields.map(withoutNil))].sort();
  if (JSON.stringify(fields) !== JSON.stringify(apiServerFields)) return false;
  // A 400 of strict decoding carries no causes, only its message: the fields above are all there is to compare.
  if (apiServer.causes === undefined) return true;
  const messages = crdgate.causes.map((cause) => `${cause.field}: ${cause.message}`).sort();
  return JSON.stringify(messages) === JSON.stringify(apiServer.causes.map((cause) => `${withoutNil(cause.field)}: ${cause.message}`).sort());
}

function withoutNil(field: string): string {
  return field === '<nil>' ? '' : field;
}

export function describeJudgement(judgement: Judgement): string {
  return judgement.allowed ? 'allowed' : `denied: ${judgement.messages.join('; ')}`;
}

export function describeCheck(result: CheckResult): string {
  return result.allowed ? 'allowed' : `denied: ${result.causes.map((cause) => `${cause.field}: ${cause.message}`).join('; ') || result.message}`;
}

export function tally(results: ReadonlyArray<{ testCase: DifferentialCase; apiServer: Judgement; crdgate: CheckResult }>): Tally {
  const byMutation = new Map<string, { cases: number; disagreements: number }>();
  const disagreements: Disagreement[] = [];
  for (const { testCase, apiServer, crdgate } of results) {
    const entry = byMutation.get(testCase.mutation) ?? { cases: 0, disagreements: 0 };
    entry.cases++;
    if (!agrees(apiServer, crdgate)) {
      entry.disagreements++;
      disagreements.push({ case: testCase.name, apiServer: describeJudgement(apiServer), crdgate: describeCheck(crdgate) });
    }
    byMutation.set(testCase.mutation, entry);
  }
  return { cases: results.length, agreed: results.length - disagreements.length, byMutation, disagreements };
}
