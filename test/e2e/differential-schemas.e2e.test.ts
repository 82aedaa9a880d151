import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { defineContract } from '../../src/contract/define-contract.ts';
import { fromCrd } from '../../src/contract/from-crd.ts';
import type { JSONSchemaProps } from '../../src/contract/schema/json-schema-props.ts';
import { contractTester } from '../../src/testing.ts';
import { committedCrdsDir } from '../fixtures/controller-gen/generate.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { expectFloors } from './support/case-floors.ts';
import { apiServerJudgement, storedJudgement, type Judgement } from './support/differential/api-server-judge.ts';
import { describeJudgement, disagreementOf, tally, type Tally } from './support/differential/compare.ts';
import { ruleCoverage, rulesOf } from './support/differential/rule-coverage.ts';
import { ruleCreateCases, ruleUpdateCases } from './support/differential/rule-cases.ts';
import {
  differentialCases,
  fullValue,
  minimalValue,
  type DifferentialCase,
} from './support/differential/schema-cases.ts';
import { storableVariant } from './support/differential/storable-base.ts';
import { applyCrdFile, kubectl } from './support/kubectl.ts';
import { restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

type Crd = {
  metadata: { name: string };
  spec: {
    group: string;
    names: { kind: string; plural: string };
    versions: Array<{ name: string; storage: boolean; schema: { openAPIV3Schema: JSONSchemaProps } }>;
  };
};

/** A run's counts, as its floors name them: all cases, those both allowed and both refused, and each kind of case. */
function countsOf(figures: Tally): Record<string, number> {
  return {
    cases: figures.cases,
    'allowed, stored objects compared': figures.storedCompared,
    refused: figures.refused,
    ...Object.fromEntries([...figures.byMutation].map(([mutation, entry]) => [mutation, entry.cases])),
  };
}

// Floors on the counts, a little under what a run gives today (2026-11-27: 402 cases of Shape, 895 of Ruled): 90%
// of each count, and counts of 5 or fewer as they are. A generator cut short, a base the API server refuses, or a
// kind of case that stops coming up fails here, where "no case disagrees" alone would still pass.
const floors: Record<string, Record<string, number>> = {
  'shapes.fixtures.crdgate.example.com_shapes.yaml': {
    cases: 361,
    'allowed, stored objects compared': 145,
    refused: 216,
    none: 2,
    'wrong type': 36,
    'wrong type (update)': 36,
    'unknown field': 13,
    'unknown field (update)': 13,
    'required removed': 15,
    'required removed (update)': 15,
    null: 36,
    'null (update)': 36,
    'int-or-string fraction': 6,
    'int-or-string fraction (update)': 6,
    'pattern broken': 6,
    'pattern broken (update)': 6,
    'another valid value': 36,
    'another valid value (update)': 36,
    'format broken': 4,
    'format broken (update)': 4,
    'too long': 4,
    'too long (update)': 4,
    'too short': 2,
    'too short (update)': 2,
    'too few items': 1,
    'too few items (update)': 1,
    'byte as array': 1,
    'byte as array (update)': 1,
    'embedded metadata unknown field': 1,
    'embedded metadata unknown field (update)': 1,
    'embedded metadata bad label': 1,
    'embedded metadata bad label (update)': 1,
    'embedded without kind': 1,
    'embedded without kind (update)': 1,
    'too many properties': 1,
    'too many properties (update)': 1,
    'too many items': 2,
    'too many items (update)': 2,
    'duplicate map key': 2,
    'duplicate map key (update)': 2,
    'below minimum': 5,
    'below minimum (update)': 5,
    'above maximum': 2,
    'above maximum (update)': 2,
    'not in enum': 4,
    'not in enum (update)': 4,
    'duplicate in set': 1,
    'duplicate in set (update)': 1,
    'not a multiple': 1,
    'not a multiple (update)': 1,
    'whole number for a fractional multipleOf': 1,
    'whole number for a fractional multipleOf (update)': 1,
  },
  'shapes.fixtures.crdgate.example.com_ruleds.yaml': {
    cases: 805,
    'allowed, stored objects compared': 252,
    refused: 553,
    none: 2,
    'wrong type': 36,
    'wrong type (update)': 36,
    'unknown field': 6,
    'unknown field (update)': 6,
    'required removed': 7,
    'required removed (update)': 7,
    'another valid value': 27,
    'another valid value (update)': 27,
    null: 36,
    'null (update)': 36,
    'too long': 18,
    'too long (update)': 18,
    'too many items': 5,
    'too many items (update)': 5,
    'duplicate in set': 2,
    'duplicate in set (update)': 2,
    'too many properties': 3,
    'too many properties (update)': 3,
    'pattern broken': 4,
    'pattern broken (update)': 4,
    'below minimum': 4,
    'below minimum (update)': 4,
    'above maximum': 4,
    'above maximum (update)': 4,
    'int-or-string fraction': 4,
    'int-or-string fraction (update)': 4,
    'duplicate map key': 2,
    'duplicate map key (update)': 2,
    'not in enum': 2,
    'not in enum (update)': 2,
    'format broken': 1,
    'format broken (update)': 1,
    'value for a rule': 370,
    'value for a rule (update)': 116,
  },
};

/**
 * Proof by difference: the same objects, made from the CRD's schema (a minimal valid object, then one mutation at a
 * time at every place the schema describes: type, null, unknown field, bounds, enum, pattern, format, int-or-string,
 * list-map and set duplicates, item and property counts, embedded resources), put to kube-apiserver (a dry run with
 * strict field validation, as kubectl sends it) and to crdgate's `check` (a contract that is the CRD alone). They
 * must agree: both allow, storing the same (pruned, defaulted) object, or both refuse with the same causes. Every
 * base object is stored, and every count of cases is over its floor.
 */
describe
  .skipIf(!controlPlane)
  .each(['shapes.fixtures.crdgate.example.com_shapes.yaml', 'shapes.fixtures.crdgate.example.com_ruleds.yaml'])(
  "crdgate check and kube-apiserver on the same objects of controller-gen's %s",
  (file) => {
    const cp = controlPlane as ProvidedControlPlane;
    const namespace = `crdgate-e2e-differential-${randomUUID().slice(0, 8)}`;
    let rest: Rest;
    let crd: Crd;

    beforeAll(async () => {
      crd = parse(await readFile(join(committedCrdsDir, file), 'utf8')) as Crd;
      await applyCrdFile(cp, join(committedCrdsDir, file), crd.metadata.name);
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
      const object = (value: unknown) => ({
        ...(value as Record<string, unknown>),
        apiVersion,
        kind: crd.spec.names.kind,
        metadata: { name: 'base' },
      });
      const resource = { group: crd.spec.group, version: version.name, plural: crd.spec.names.plural, namespace };
      const tester = contractTester(defineContract(fromCrd(crd)));
      // The full object as generated may break CEL rules (fields that exclude each other): then the nearest variant
      // crdgate allows, which the API server must store too.
      const full = object(fullValue(schema, 4));
      const bases = [
        { name: 'minimal', object: object(minimalValue(schema)) },
        {
          name: 'full',
          object:
            storableVariant(schema, full, (candidate) =>
              tester.check({ ...candidate, metadata: { name: 'base', namespace } } as never),
            ) ?? full,
        },
      ];
      // Every base is stored, and read back it is what crdgate says the API server stores: a base refused would leave
      // its mutations as creates alone (no updates), and a kind of case with a handful of cases.
      const storedBases = await Promise.all(
        bases.map(async (base, index) => {
          const name = `base-${index}`;
          const apiServer = await storedJudgement(rest, resource, base.object, name);
          return {
            ...base,
            apiServer,
            crdgate: tester.check({ ...base.object, metadata: { name, namespace } } as never),
            storable: apiServer.allowed,
          };
        }),
      );
      expect(
        storedBases
          .map((base) =>
            base.apiServer.allowed
              ? disagreementOf(`${base.name} base`, base.apiServer, base.crdgate)
              : { case: `${base.name} base`, refused: describeJudgement(base.apiServer) },
          )
          .filter(Boolean),
      ).toEqual([]);
      const judged = async (cases: readonly DifferentialCase[], first: number) => {
        const results = [];
        for (const [offset, testCase] of cases.entries()) {
          const name = `case-${first + offset}`;
          const apiServer: Judgement = await apiServerJudgement(rest, resource, testCase, name);
          const object = { ...testCase.object, metadata: { name, namespace } } as never;
          const oldObject = testCase.oldObject
            ? ({ ...testCase.oldObject, metadata: { name, namespace } } as never)
            : undefined;
          results.push({ testCase, apiServer, crdgate: tester.check(object, oldObject ? { oldObject } : {}) });
        }
        return results;
      };
      const results = await judged(differentialCases(schema, storedBases), 0);
      // Then each place that carries rules set to values those rules turn on, on the minimal object (which the API
      // server stores); and, where a rule compares with oldSelf, updates between the values it allowed.
      const creates = await judged(ruleCreateCases(schema, bases[0]!.object), results.length);
      results.push(...creates);
      const allowed = creates.filter((result) => result.apiServer.allowed).map((result) => result.testCase);
      results.push(...(await judged(ruleUpdateCases(schema, bases[0]!.object, allowed), results.length)));
      const figures = tally(results);
      const table = [...figures.byMutation]
        .map(([mutation, entry]) => `${mutation}: ${entry.cases - entry.disagreements}/${entry.cases}`)
        .join('\n');
      const coverage = ruleCoverage(
        rulesOf(schema),
        results.map((result) => result.apiServer),
      );
      const rulesTable = [...coverage]
        .map(([{ at, rule }, cases]) => `rule at ${at} (${rule.message ?? rule.messageExpression}): ${cases} refused`)
        .join('\n');
      process.stderr.write(
        `[e2e] differential ${crd.metadata.name}: ${figures.agreed}/${figures.cases} cases agree (${figures.storedCompared} allowed by both, stored objects compared; ${figures.refused} refused by both)\n${table}\n${rulesTable}\ncounts for the floors: ${JSON.stringify(countsOf(figures))}\n`,
      );
      expect(figures.disagreements).toEqual([]);
      expectFloors(file, countsOf(figures), floors[file]!);
      // Every rule is put to the test: some case makes kube-apiserver refuse for it, and crdgate agreed on that case.
      expect([...coverage].filter(([, cases]) => cases === 0).map(([{ at, rule }]) => `${at}: ${rule.rule}`)).toEqual(
        [],
      );
    }, 600_000);
  },
);
