import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Contract } from '../../../src/contract/contract-definition.ts';
import { evaluateTransition } from '../../../src/contract/fsa/evaluate/evaluate-transition.ts';
import { compareQuantities, parseQuantity } from '../../../src/contract/values/quantity.ts';
import { createSchemaCompiler } from '../../../src/contract/schema/compile-schema.ts';
import { geoDatabaseContract } from '../../../src/contracts/geodatabase/index.ts';
import { messageBrokerContract } from '../../../src/policy/message-broker.fixture.ts';
import { declarativeDbPoolerContract } from './db-operator-contracts.ts';
import {
  annotationProtections,
  emptyTally,
  exactQuantityGroups,
  hubSchema,
  machineOf,
  overrideValues,
  policyPairGenerator,
  storablePhases,
  storedObject,
  tallyDecision,
  unreadableQuantities,
} from './policy-pairs.ts';

// The pair generator's promises, checked without an API server: what it generates is valid for the hub schema
// (so the API server can refuse it only through the policy), its quantities are where the policy reads them
// exactly or deliberately not, and its pairs reach every state and kind of change the e2e test counts on.

const contracts = [geoDatabaseContract(), messageBrokerContract()];
// The policy compiler's spelling of the quantities it reads exactly (src/policy/compile-classifiers.ts).
const exactQuantityPattern = /^[0-9]{1,6}([.][0-9]{1,3})?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;

describe.each(contracts.map((contract) => [contract.identity.kind, contract] as const))(
  'pairs for %s',
  (_kind, contract: Contract) => {
    const validSpec = createSchemaCompiler().compile(hubSchema(contract).properties!.spec!, { rootPath: 'spec' });

    it('generates specs the hub schema accepts, before and after the update, with unreadable quantities too', () => {
      for (const quantities of ['exact', 'with-unreadable'] as const) {
        for (const pair of fc.sample(policyPairGenerator(contract, { quantities }).updates, {
          numRuns: 500,
          seed: 7,
        })) {
          expect(validSpec(pair.old.spec)).toEqual([]);
          expect(validSpec(pair.spec)).toEqual([]);
          // null is pruned (or refused) by the API server: the stored object would not be the one generated.
          expect(JSON.stringify([pair.old.spec, pair.spec])).not.toContain('null');
        }
      }
    });

    it('keeps to the exact quantities unless told otherwise', () => {
      const stringsIn = (value: unknown): string[] =>
        typeof value === 'string'
          ? [value]
          : typeof value === 'object' && value !== null
            ? Object.values(value).flatMap(stringsIn)
            : [];
      const quantitiesIn = (value: unknown) => stringsIn(value).filter((text) => parseQuantity(text) !== undefined);
      const sampled = (quantities: 'exact' | 'with-unreadable') =>
        fc
          .sample(policyPairGenerator(contract, { quantities }).updates, { numRuns: 300, seed: 11 })
          .flatMap((pair) => [...quantitiesIn(pair.old.spec), ...quantitiesIn(pair.spec)]);
      expect(sampled('exact').filter((text) => unreadableQuantities.includes(text))).toEqual([]);
      expect(sampled('with-unreadable').some((text) => unreadableQuantities.includes(text))).toBe(true);
    });

    it('starts from every phase the schema can store, deleting objects, and every override value', () => {
      const generator = policyPairGenerator(contract, { quantities: 'exact' });
      const pairs = fc.sample(generator.updates, { numRuns: 1000, seed: 3 });
      expect(new Set(pairs.map((pair) => pair.old.phase))).toEqual(new Set([undefined, ...generator.phases]));
      expect(pairs.filter((pair) => pair.old.deleting).length).toBeGreaterThan(50);
      const reasons = new Set(pairs.map((pair) => pair.annotations[machineOf(contract).overrideAnnotation]));
      for (const value of overrideValues) expect(reasons).toContain(value);
      const deletes = fc.sample(generator.deletes, { numRuns: 300, seed: 3 });
      const protection = annotationProtections(contract)[0]!;
      const protectedStarts = deletes.filter(
        (pair) => pair.old.annotations[protection.annotation] === protection.equals,
      ).length;
      expect(protectedStarts).toBeGreaterThan(50);
      expect(deletes.length - protectedStarts).toBeGreaterThan(50);
    });

    it('reaches every state and every kind of change, allowed and denied, offline as crdgate decides', () => {
      const machine = machineOf(contract);
      const tally = emptyTally();
      for (const pair of fc.sample(policyPairGenerator(contract, { quantities: 'exact' }).updates, {
        numRuns: 1000,
        seed: 5,
      })) {
        const decision = evaluateTransition(machine, storedObject(contract, pair.old, 'offline'), {
          metadata: { annotations: pair.annotations },
          spec: pair.spec,
        });
        tallyDecision(tally, machine, decision, [pair.old.spec, pair.spec]);
      }
      expect(Object.keys(tally.kinds).sort()).toEqual(Object.keys(machine.changeKinds).sort());
      for (const state of machine.states) expect(tally.states[state], state).toBeGreaterThan(10);
      expect(tally.allowed).toBeGreaterThan(200);
      expect(tally.denied).toBeGreaterThan(200);
      expect(Object.keys(tally.outcomes).sort()).toEqual([
        'allowed',
        'exclusive-conflict',
        'not-allowed',
        'overridden',
        'unsupported',
      ]);
      // MessageBroker has a field no change kind names, whose changes it refuses in some states; every field of the
      // GeoDatabase's generated specs is classified.
      const judged =
        contract.identity.kind === 'MessageBroker' ? ['allowed', 'not-allowed', 'overridden', 'refused'] : [];
      expect(Object.keys(tally.unclassified).sort()).toEqual(judged);
      for (const outcome of Object.keys(tally.unclassified))
        expect(tally.unclassified[outcome], outcome).toBeGreaterThan(10);
    });
  },
);

describe('the quantities of the pairs', () => {
  it('are read exactly by the policy, equal within a group and ascending from group to group', () => {
    for (const spelling of exactQuantityGroups.flat()) expect(spelling).toMatch(exactQuantityPattern);
    const amounts = exactQuantityGroups.map((group) => group.map((spelling) => parseQuantity(spelling)!));
    for (const group of amounts) for (const amount of group) expect(compareQuantities(amount, group[0]!)).toBe(0);
    for (let index = 1; index < amounts.length; index++)
      expect(compareQuantities(amounts[index - 1]![0]!, amounts[index]![0]!)).toBe(-1);
  });

  it('outside the exact subset are still quantities crdgate reads', () => {
    for (const spelling of unreadableQuantities) {
      expect(spelling).not.toMatch(exactQuantityPattern);
      expect(parseQuantity(spelling), spelling).toBeDefined();
    }
  });
});

describe('the phases a start can write', () => {
  it('are the enum where the schema has one, and otherwise the states, "" and phases the machine does not know', () => {
    const [geoDatabase, messageBroker] = contracts as [Contract, Contract];
    expect(storablePhases(geoDatabase)).toEqual([
      'Pending',
      'Provisioning',
      'Ready',
      'Scaling',
      'Resizing',
      'Upgrading',
      'Degraded',
      'Failed',
    ]);
    const phases = storablePhases(messageBroker);
    expect(phases).toEqual(expect.arrayContaining([...machineOf(messageBroker).states, '', 'Hibernating', 'Running ']));
  });
});

describe('pairs for a machine that reads its state from conditionStates (DbPooler)', () => {
  const contract = declarativeDbPoolerContract();
  const generator = policyPairGenerator(contract, { quantities: 'exact' });
  const pairs = fc.sample(generator.updates, { numRuns: 1000, seed: 5 });

  it('starts from statuses the hub schema accepts, made of what the rules test, and from none', () => {
    const validStatus = createSchemaCompiler().compile(hubSchema(contract).properties!.status!, { rootPath: 'status' });
    for (const pair of pairs) if (pair.old.status !== undefined) expect(validStatus(pair.old.status)).toEqual([]);
    expect(pairs.filter((pair) => pair.old.status === undefined).length).toBeGreaterThan(50);
    expect(pairs.every((pair) => pair.old.phase === undefined)).toBe(true);
    expect(generator.unrecognised).toBe(true);
  });

  it('reaches every state and an unrecognised one, each kind of change, allowed and denied, offline as crdgate decides', () => {
    const machine = machineOf(contract);
    const tally = emptyTally();
    for (const pair of pairs) {
      const decision = evaluateTransition(machine, storedObject(contract, pair.old, 'offline'), {
        metadata: { annotations: pair.annotations },
        spec: pair.spec,
      });
      tallyDecision(tally, machine, decision, [pair.old.spec, pair.spec]);
    }
    expect(Object.keys(tally.states).sort()).toEqual([...machine.states, 'unrecognised'].sort());
    for (const state of Object.keys(tally.states)) expect(tally.states[state], state).toBeGreaterThan(40);
    expect(Object.keys(tally.kinds).sort()).toEqual(Object.keys(machine.changeKinds).sort());
    expect(tally.allowed).toBeGreaterThan(200);
    expect(tally.denied).toBeGreaterThan(125);
  });
});
