import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CrdUnservableError, judge, loadCrd, type EngineCrd } from '../../api-server-engine/engine.ts';
import type { ContractDefinition } from '../contract-definition.ts';
import { ContractDefinitionError, defineContract } from '../define-contract.ts';
import { createContractRegistry } from '../registry.ts';
import { contractTester } from '../../testing.ts';
import { expectFloors } from '../../../test/e2e/support/case-floors.ts';
import { goPatternCases, patternsSchema, patternValueSpecs, type GoPatternCase } from './go-patterns.fixture.ts';
import { checkStructural } from './structural-check.ts';

// The catalogue of patterns (go-patterns.fixture.ts) put to kube-apiserver's own code, the API server engine, and to
// crdgate's contract path (defineContract's check of the schema, the validators the validating webhook runs, its
// answer to an AdmissionReview): the same patterns refused in the same words, the same values refused in the same
// words. test/e2e/re2-patterns.e2e.test.ts puts the same catalogue to a real kube-apiserver.

const group = 'patterns.example.com';

function definitionOf(cases: readonly GoPatternCase[]): ContractDefinition {
  return {
    identity: { group, kind: 'Patterned', plural: 'patterneds', singular: 'patterned', scope: 'Namespaced' },
    versions: [{ name: 'v1', served: true, storage: true, schema: patternsSchema(cases) }],
    hub: 'v1',
    conversions: {},
  };
}

function crdOf(cases: readonly GoPatternCase[]): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `patterneds.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { kind: 'Patterned', plural: 'patterneds', singular: 'patterned', listKind: 'PatternedList' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: patternsSchema(cases) } }],
    },
  };
}

/** What the engine answers to creating the CRD: its problems, as `field: message` from the schema's root. */
function engineRefusal(cases: readonly GoPatternCase[]): string[] {
  let refusal;
  try {
    refusal = loadCrd(crdOf(cases)).refusal;
  } catch (error) {
    if (!(error instanceof CrdUnservableError)) throw error;
    refusal = error.refusal;
  }
  return refusal.map(
    (problem) => `${problem.field.replace(/^spec\.(validation|versions\[0\]\.schema)\./, '')}: ${problem.message}`,
  );
}

/** The index of the case whose field a schema problem names. */
function caseIndexOf(problem: string): number {
  return Number(/properties\[p(\d+)\]/.exec(problem)?.[1] ?? NaN);
}

/**
 * A message naming a value longer than crdgate quotes (64 characters, describe-value.ts: what clients send is
 * shortened) is compared from the field on: the API server quotes the value whole.
 */
function comparable(message: string, value: string, field: string): string {
  return value.length > 60 ? message.slice(message.indexOf(`: ${field} in body should match`)) : message;
}

/** Whether ECMAScript's reading (what crdgate used before) answers otherwise than Go's on a pair, or not at all. */
function ecmaScriptDiffers(pattern: string, value: string, goMatches: boolean): boolean {
  try {
    return new RegExp(pattern, 'u').test(value) !== goMatches;
  } catch {
    return true;
  }
}

describe("patterns as kube-apiserver reads them (Go's regexp): its code and crdgate's contract path agree", () => {
  const refusal = engineRefusal(goPatternCases);
  const refused = new Set(refusal.map(caseIndexOf));
  const accepted = goPatternCases.filter((_, index) => !refused.has(index));

  it("refuses the patterns the API server refuses, in the API server's words", () => {
    expect(refusal.every((problem) => Number.isInteger(caseIndexOf(problem)))).toBe(true);
    const problems = checkStructural(patternsSchema(goPatternCases));
    expect([...problems].sort()).toEqual([...refusal].sort());
    // And defineContract, which every contract goes through (fromCrd's, an operator's), refuses with each of them.
    let thrown: unknown;
    try {
      defineContract(definitionOf(goPatternCases));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ContractDefinitionError);
    for (const problem of refusal) expect((thrown as Error).message).toContain(`version v1: ${problem}`);
    const counts = { patterns: goPatternCases.length, refused: refused.size, accepted: accepted.length };
    console.info(`patterns: ${JSON.stringify(counts)}`);
    // A little under what a run gives today (129 patterns: 35 refused, 94 accepted).
    expectFloors('patterns', counts, { patterns: 122, refused: 33, accepted: 88 });
  });

  it('takes the others, and refuses the values the API server refuses, in its words', () => {
    expect(engineRefusal(accepted)).toEqual([]);
    const contract = defineContract(definitionOf(accepted));
    const validate = createContractRegistry([contract]).contracts[0]!.validators.get('v1')!;
    const tester = contractTester(contract);
    const crd: EngineCrd = loadCrd(crdOf(accepted));
    const disagreements: string[] = [];
    let pairs = 0;
    let refusedPairs = 0;
    let ecmaScriptWouldDiffer = 0;
    for (const { spec, pairs: batch } of patternValueSpecs(accepted)) {
      const object = {
        apiVersion: `${group}/v1`,
        kind: 'Patterned',
        metadata: { name: 'patterned', namespace: 'default' },
        spec,
      };
      const answer = judge(crd, { operation: 'CREATE', object });
      const apiServer = new Map(answer.causes.map((cause) => [cause.field, cause.message]));
      const webhook = new Map(validate(object).map((error) => [error.field, error.message]));
      const review = tester.review('validate', admissionReview(object)).response;
      const reviewed = new Map(
        (review?.status?.details?.causes ?? []).map((cause) => [cause.field, cause.message] as const),
      );
      for (const { testCase, field, value } of batch) {
        pairs++;
        const path = `spec.${field}`;
        const expected = apiServer.get(path);
        if (expected !== undefined) refusedPairs++;
        if (ecmaScriptDiffers(testCase.pattern, value, expected === undefined)) ecmaScriptWouldDiffer++;
        const shown = (message: string | undefined) =>
          message === undefined ? 'allowed' : comparable(message, value, path);
        if (shown(webhook.get(path)) !== shown(expected))
          disagreements.push(
            `${JSON.stringify(testCase.pattern).slice(0, 100)} on ${JSON.stringify(value).slice(0, 40)}: API server ${shown(expected)}; crdgate ${shown(webhook.get(path))}`,
          );
        // The webhook's answer lists the first of its causes (verdict.ts); each as the API server words it.
        const listed = reviewed.get(path);
        if (listed !== undefined && shown(listed) !== shown(expected))
          disagreements.push(`review: ${path}: API server ${shown(expected)}; crdgate ${shown(listed)}`);
      }
      expect(review?.allowed).toBe(answer.allowed);
    }
    expect(disagreements).toEqual([]);
    const counts = {
      pairs,
      refused: refusedPairs,
      allowed: pairs - refusedPairs,
      'ECMAScript would differ': ecmaScriptWouldDiffer,
    };
    console.info(`pattern values: ${JSON.stringify(counts)}`);
    // A little under what a run gives today (259 pairs: 108 refused, 151 allowed; ECMAScript would answer 137 otherwise).
    expectFloors('pattern values', counts, { pairs: 245, refused: 100, allowed: 140, 'ECMAScript would differ': 125 });
  });
});

function admissionReview(object: Record<string, unknown>): unknown {
  const kind = { group, version: 'v1', kind: 'Patterned' };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind,
      requestKind: kind,
      resource: { group, version: 'v1', resource: 'patterneds' },
      requestResource: { group, version: 'v1', resource: 'patterneds' },
      name: 'patterned',
      namespace: 'default',
      operation: 'CREATE',
      userInfo: { username: 'tester' },
      object,
      oldObject: null,
      dryRun: true,
    },
  };
}
