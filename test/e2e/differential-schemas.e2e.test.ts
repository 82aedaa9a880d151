import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { defineContract } from '../../src/contract/define-contract.ts';
import { fromCrd } from '../../src/contract/from-crd.ts';
import type { JSONSchemaProps } from '../../src/contract/schema/json-schema-props.ts';
import { contractTester } from '../../src/testing.ts';
import { committedCrdsDir } from '../fixtures/controller-gen/generate.ts';
import type { ProvidedControlPlane } from './provided-context.ts';
import { apiServerJudgement, type Judgement } from './support/differential/api-server-judge.ts';
import { tally } from './support/differential/compare.ts';
import { ruleCoverage, rulesOf } from './support/differential/rule-coverage.ts';
import { ruleCreateCases, ruleUpdateCases } from './support/differential/rule-cases.ts';
import { differentialCases, fullValue, minimalValue, type DifferentialCase } from './support/differential/schema-cases.ts';
import { kubectl } from './support/kubectl.ts';
import { restClient, type Rest } from './support/raw-api.ts';

const provided = inject('controlPlane');
const controlPlane = 'unavailable' in provided ? undefined : provided;

type Crd = { metadata: { name: string }; spec: { group: string; names: { kind: string; plural: string }; versions: Array<{ name: string; storage: boolean; schema: { openAPIV3Schema: JSONSchemaProps } }> } };

/**
 * Proof by difference: the same objects, made from the CRD's schema (a minimal valid object, then one mutation at a
 * time at every place the schema describes: type, null, unknown field, bounds, enum, pattern, format, int-or-string,
 * list-map and set duplicates, item and property counts, embedded resources), put to kube-apiserver (a dry run with
 * strict field validation, as kubectl sends it) and to crdgate's `check` (a contract that is the CRD alone). They
 * must agree: both allow, or both refuse naming the same fields.
 */
describe.skipIf(!controlPlane).each(['shapes.fixtures.crdgate.example.com_shapes.yaml', 'shapes.fixtures.crdgate.example.com_ruleds.yaml'])('crdgate check and kube-apiserver on the same objects of controller-gen\'s %s', (file) => {
  const cp = controlPlane as ProvidedControlPlane;
  const namespace = `crdgate-e2e-differential-${randomUUID().slice(0, 8)}`;
  let rest: Rest;
  let crd: Crd;

  beforeAll(async () => {
    crd = parse(await readFile(join(committedCrdsDir, file), 'utf8')) as Crd;
    const applied = await kubectl(cp, ['apply', '--server-side', '-f', join(committedCrdsDir, file)]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect((await kubectl(cp, ['wait', '--for=condition=Established', '--timeout=60s', `crd/${crd.metadata.name}`])).exitCode).toBe(0);
    expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
    rest = restClient(cp.kubeconfigPath, { maxSockets: 4 });
  });

  afterAll(async () => {
    rest?.close();
    await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
  });

  it('agree on every case', async () => {
    const version = crd.spec.versions.find((v) => v.storage)!;
    const schema = version.schema.openAPIV3Schema;
    const apiVersion = `${crd.spec.group}/${version.name}`;
    const object = (value: unknown) => ({ ...(value as Record<string, unknown>), apiVersion, kind: crd.spec.names.kind, metadata: { name: 'base' } });
    const resource = { group: crd.spec.group, version: version.name, plural: crd.spec.names.plural, namespace };
    const bases = await Promise.all(
      [
        { name: 'minimal', object: object(minimalValue(schema)) },
        { name: 'full', object: object(fullValue(schema, 4)) },
      ].map(async (base, index) => ({ ...base, storable: (await apiServerJudgement(rest, resource, { name: base.name, mutation: 'none', object: base.object }, `base-${index}`)).allowed })),
    );
    const tester = contractTester(defineContract(fromCrd(crd)));
    const judged = async (cases: readonly DifferentialCase[], first: number) => {
      const results = [];
      for (const [offset, testCase] of cases.entries()) {
        const name = `case-${first + offset}`;
        const apiServer: Judgement = await apiServerJudgement(rest, resource, testCase, name);
        const object = { ...testCase.object, metadata: { name, namespace } } as never;
        const oldObject = testCase.oldObject ? ({ ...testCase.oldObject, metadata: { name, namespace } } as never) : undefined;
        results.push({ testCase, apiServer, crdgate: tester.check(object, oldObject ? { oldObject } : {}) });
      }
      return results;
    };
    const results = await judged(differentialCases(schema, bases), 0);
    // Then each place that carries rules set to values those rules turn on, on the minimal object (which the API
    // server stores); and, where a rule compares with oldSelf, updates between the values it allowed.
    const creates = await judged(ruleCreateCases(schema, bases[0]!.object), results.length);
    results.push(...creates);
    const allowed = creates.filter((result) => result.apiServer.allowed).map((result) => result.testCase);
    results.push(...(await judged(ruleUpdateCases(schema, bases[0]!.object, allowed), results.length)));
    const figures = tally(results);
    const table = [...figures.byMutation].map(([mutation, entry]) => `${mutation}: ${entry.cases - entry.disagreements}/${entry.cases}`).join('\n');
    const coverage = ruleCoverage(rulesOf(schema), results.map((result) => result.apiServer));
    const rulesTable = [...coverage].map(([{ at, rule }, cases]) => `rule at ${at} (${rule.message ?? rule.messageExpression}): ${cases} refused`).join('\n');
    process.stderr.write(`[e2e] differential ${crd.metadata.name}: ${figures.agreed}/${figures.cases} cases agree\n${table}\n${rulesTable}\n`);
    expect(figures.disagreements).toEqual([]);
    // Every rule is put to the test: some case makes kube-apiserver refuse for it, and crdgate agreed on that case.
    expect([...coverage].filter(([, cases]) => cases === 0).map(([{ at, rule }]) => `${at}: ${rule.rule}`)).toEqual([]);
  }, 600_000);
});
