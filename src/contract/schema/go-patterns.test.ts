import { describe, expect, it } from 'vitest';
import { CrdUnservableError, judge, loadCrd } from '../../api-server-engine/engine.ts';
import { ContractDefinitionError, defineContract } from '../define-contract.ts';
import { createContractRegistry } from '../registry.ts';
import { contractTester } from '../../testing.ts';
import { expectFloors } from '../../../test/e2e/support/case-floors.ts';
import {
  caseIndexOf,
  PatternValueTally,
  patternValueFloors,
  fromSchemaRoot,
  goPatternCases,
  messagesByField,
  patternDisagreements,
  patternedReview,
  patternsCrd,
  patternsDefinition,
  patternsSchema,
  patternValueSpecs,
  type GoPatternCase,
} from './go-patterns.fixture.ts';
import { checkStructural } from './structural-check.ts';

// The catalogue of patterns (go-patterns.fixture.ts) put to kube-apiserver's own code, the API server engine, and to
// crdgate's contract path (defineContract's check of the schema, the validators the validating webhook runs, its
// answer to an AdmissionReview, contractTester's check): the same patterns refused in the same words, the same
// values refused in the same words. test/e2e/re2-patterns.e2e.test.ts puts the catalogue to a real kube-apiserver.

const group = 'patterns.example.com';

/** What the engine answers to creating the CRD: its problems, from the schema's root. */
function engineRefusal(cases: readonly GoPatternCase[]): string[] {
  let refusal;
  try {
    refusal = loadCrd(patternsCrd(group, cases)).refusal;
  } catch (error) {
    if (!(error instanceof CrdUnservableError)) throw error;
    refusal = error.refusal;
  }
  return refusal.map((problem) => fromSchemaRoot(problem.field, problem.message));
}

describe("patterns as kube-apiserver reads them (Go's regexp): its code and crdgate's contract path agree", () => {
  const refusal = engineRefusal(goPatternCases);
  const refused = new Set(refusal.map(caseIndexOf));
  const accepted = goPatternCases.filter((_, index) => !refused.has(index));

  it("refuses the patterns the API server refuses, in the API server's words", () => {
    expect(refusal.every((problem) => Number.isInteger(caseIndexOf(problem)))).toBe(true);
    expect([...checkStructural(patternsSchema(goPatternCases))].sort()).toEqual([...refusal].sort());
    // And defineContract, which every contract goes through (fromCrd's, an operator's), refuses with each of them.
    let thrown: unknown;
    try {
      defineContract(patternsDefinition(group, goPatternCases));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ContractDefinitionError);
    for (const problem of refusal) expect((thrown as Error).message).toContain(`version v1: ${problem}`);
    const counts = { patterns: goPatternCases.length, refused: refused.size, accepted: accepted.length };
    console.info(`patterns: ${JSON.stringify(counts)}`);
    // A little under what a run gives today (131 patterns: 36 refused, 95 accepted).
    expectFloors('patterns', counts, { patterns: 122, refused: 33, accepted: 88 });
  });

  it('takes the others, and refuses the values the API server refuses, in its words', () => {
    expect(engineRefusal(accepted)).toEqual([]);
    const contract = defineContract(patternsDefinition(group, accepted));
    const validate = createContractRegistry([contract]).contracts[0]!.validators.get('v1')!;
    const tester = contractTester(contract);
    const crd = loadCrd(patternsCrd(group, accepted));
    const disagreements: string[] = [];
    const tally = new PatternValueTally();
    for (const { spec, pairs: batch } of patternValueSpecs(accepted)) {
      const object = { apiVersion: `${group}/v1`, kind: 'Patterned', metadata: { name: 'patterned' }, spec };
      const answer = judge(crd, { operation: 'CREATE', object });
      const apiServer = new Map(answer.causes.map((cause) => [cause.field, cause.message]));
      const review = tester.review('validate', patternedReview(group, object)).response;
      expect(review?.allowed).toBe(answer.allowed);
      disagreements.push(
        ...patternDisagreements(batch, apiServer, messagesByField(validate(object)), { side: 'validator' }),
        ...patternDisagreements(batch, apiServer, messagesByField(review?.status?.details?.causes ?? []), {
          side: 'webhook answer',
          listedOnly: true,
        }),
      );
      tally.add(batch, apiServer);
    }
    expect(disagreements).toEqual([]);
    const counts = tally.counts();
    console.info(`pattern values: ${JSON.stringify(counts)}`);
    expectFloors('pattern values', counts, patternValueFloors);
  });
});
