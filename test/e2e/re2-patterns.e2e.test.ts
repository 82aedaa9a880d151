import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractDefinitionError, defineContract } from '../../src/contract/define-contract.ts';
import { createContractRegistry } from '../../src/contract/registry.ts';
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
} from '../../src/contract/schema/go-patterns.fixture.ts';
import { checkStructural } from '../../src/contract/schema/structural-check.ts';
import { renderCustomResourceDefinition } from '../../src/render/custom-resource-definition.ts';
import { contractTester } from '../../src/testing.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { expectFloors } from './support/case-floors.ts';
import { expectStatus, installCrd, removeCrd, restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

// The catalogue of patterns (src/contract/schema/go-patterns.fixture.ts: inline flags, POSIX and Unicode classes,
// anchors, quoting, escapes, repetition limits, classes, empty alternations, astral characters, and patterns Go
// refuses), each written where Go's regexp and ECMAScript part, put to a real kube-apiserver as one CRD with a field
// per pattern (a dry run), then every value of every pattern in a handful of objects (dry runs): crdgate refuses the
// patterns it refuses, in its words, and its contract path (the validating webhook's validators and answer, and
// `crdgate check`'s decision through contractTester) refuses the values it refuses, in its words.
// src/contract/schema/go-patterns.test.ts puts the same catalogue to the API server engine, without a control plane.

interface Cause {
  field: string;
  message: string;
}

describe.skipIf(!controlPlane)("patterns as kube-apiserver reads them (Go's regexp): crdgate agrees", () => {
  const cp = controlPlane as ProvidedControlPlane;
  const group = `re2-patterns-${randomUUID().slice(0, 8)}.example.com`;
  let api: Rest;

  beforeAll(() => {
    api = restClient(cp.kubeconfigPath, { maxSockets: 4 });
  });
  afterAll(() => api?.close());

  /** The API server's problems with the CRD of these patterns (a dry run), from the schema's root. */
  async function crdProblems(crd: Record<string, unknown>): Promise<string[]> {
    const response = await api.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', crd);
    if (response.status === 201) return [];
    expectStatus(422)(response);
    const causes = (response.body as { details?: { causes?: Cause[] } }).details?.causes ?? [];
    return causes.map((cause) => fromSchemaRoot(cause.field, cause.message));
  }

  let accepted = goPatternCases;

  it('refuses the patterns kube-apiserver refuses, in its words, and takes the others', async () => {
    const refusal = await crdProblems(patternsCrd(group, goPatternCases));
    expect(refusal.every((problem) => Number.isInteger(caseIndexOf(problem)))).toBe(true);
    expect([...checkStructural(patternsSchema(goPatternCases))].sort()).toEqual([...refusal].sort());
    let thrown: unknown;
    try {
      defineContract(patternsDefinition(group, goPatternCases));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ContractDefinitionError);
    for (const problem of refusal) expect((thrown as Error).message).toContain(`version v1: ${problem}`);
    const refused = new Set(refusal.map(caseIndexOf));
    accepted = goPatternCases.filter((_, index) => !refused.has(index));
    expect(await crdProblems(patternsCrd(group, accepted))).toEqual([]);
    const counts = { patterns: goPatternCases.length, refused: refused.size, accepted: accepted.length };
    console.info(`patterns: ${JSON.stringify(counts)}`);
    // A little under what a run gives today (131 patterns: 36 refused, 95 accepted).
    expectFloors('patterns', counts, { patterns: 122, refused: 33, accepted: 88 });
  });

  it('judges every value of the patterns it takes as kube-apiserver does, in its words', async () => {
    const contract = defineContract(patternsDefinition(group, accepted));
    const validate = createContractRegistry([contract]).contracts[0]!.validators.get('v1')!;
    const tester = contractTester(contract);
    const crd = renderCustomResourceDefinition(contract, { target: { url: 'https://127.0.0.1:1' } });
    await installCrd(api, crd, 're2-patterns-e2e');
    try {
      const disagreements: string[] = [];
      const tally = new PatternValueTally();
      for (const { spec, pairs: batch } of patternValueSpecs(accepted)) {
        const object = {
          apiVersion: `${group}/v1`,
          kind: 'Patterned',
          metadata: { name: 'patterned', namespace: 'default' },
          spec,
        };
        const response = await api.send(
          'POST',
          `/apis/${group}/v1/namespaces/default/patterneds?dryRun=All&fieldValidation=Strict`,
          object,
        );
        if (response.status !== 201) expectStatus(422)(response);
        const causes = (response.body as { details?: { causes?: Cause[] } }).details?.causes ?? [];
        const apiServer = messagesByField(causes);
        const review = tester.review('validate', patternedReview(group, object)).response;
        const checked = tester.check(object as never);
        expect(review?.allowed).toBe(response.status === 201);
        expect(checked.allowed).toBe(response.status === 201);
        disagreements.push(
          ...patternDisagreements(batch, apiServer, messagesByField(validate(object)), { side: 'validator' }),
          ...patternDisagreements(batch, apiServer, messagesByField(review?.status?.details?.causes ?? []), {
            side: 'webhook answer',
            listedOnly: true,
          }),
          ...patternDisagreements(batch, apiServer, messagesByField(checked.causes), { side: 'check' }),
        );
        tally.add(batch, apiServer);
      }
      expect(disagreements).toEqual([]);
      const counts = tally.counts();
      console.info(`pattern values: ${JSON.stringify(counts)}`);
      expectFloors('pattern values', counts, patternValueFloors);
    } finally {
      await removeCrd(api, crd);
    }
  }, 180_000);
});
