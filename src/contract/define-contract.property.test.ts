import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../admission/scalable-geodatabase.fixture.ts';
import { checkContractRules, contractWarningLines, registryOfExports } from '../commands/contracts.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { CommandError } from '../errors.ts';
import { compileContractPolicy } from '../policy/compile-policy.ts';
import { messageBrokerContract } from '../policy/message-broker.fixture.ts';
import { renderPolicyCoverage } from '../policy/policy-coverage.ts';
import { manifestDefaults } from '../render/manifest-options.ts';
import { renderManifestFiles } from '../render/manifest-files.ts';
import { manifestsToYaml } from '../render/manifest-yaml.ts';
import { contractTester } from '../testing.ts';
import { dbPoolerContract } from '../../test/e2e/support/db-operator-contracts.ts';
import { type Contract } from './contract-definition.ts';
import { ContractDefinitionError, defineContract } from './define-contract.ts';
import { machineFormats, renderMachine } from './fsa/render/render-machine.ts';
import { describeValue } from './values/describe-value.ts';

// Issue 40: a contract that is wrong gets one sentence naming the option, never a TypeError. Contracts that work
// (the built-in GeoDatabase, the policy's message broker, an operator's kind guarded with readState, a scalable
// GeoDatabase) are broken at generated option paths, deep machine paths and schemas included: an option dropped,
// replaced by a value of another type (null, strings, numbers, lists, objects, functions, nested junk), given where
// it was absent, or replaced by another value of the same contract (right type, wrong meaning). defineContract,
// contractTester and the loading every CLI command goes through either take the result or say what is wrong
// (ContractDefinitionError; a CommandError CONTRACT_INVALID from the CLI's loading); and what the CLI then does
// with a contract it took (`fsa` in every format, `fsa --coverage`, `manifests`) does not throw.

// CRDGATE_FUZZ_RUNS=30000 runs longer (a thirtieth as many load what they generate).
const runs = Number(process.env['CRDGATE_FUZZ_RUNS'] ?? 1000);

type Path = (string | number)[];

interface Base {
  name: string;
  contract: Contract;
  /** Every place a mutation can reach, schema nodes apart: they outnumber the options many times over. */
  options: Path[];
  schemaNodes: Path[];
  /** Values of the contract, to put back in the wrong place. */
  values: unknown[];
}

function baseOf(name: string, contract: Contract): Base {
  const options: Path[] = [];
  const schemaNodes: Path[] = [];
  const values: unknown[] = [];
  const visit = (value: unknown, path: Path, inSchema: boolean) => {
    if (path.length > 0) (inSchema ? schemaNodes : options).push(path);
    values.push(value);
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return;
    const keys: (string | number)[] = Array.isArray(value) ? value.map((_, index) => index) : Object.keys(value);
    for (const key of keys) {
      // Below ownerCrd is the operator's CRD, a document crdgate only applies: one step in is enough.
      if (path[0] === 'ownerCrd' && path.length > 1) continue;
      visit((value as Record<string | number, unknown>)[key], [...path, key], inSchema || key === 'schema');
    }
  };
  visit(contract, [], false);
  return { name, contract, options, schemaNodes, values };
}

const bases = [
  baseOf('GeoDatabase', geoDatabaseContract()),
  baseOf('GeoDatabase with /scale', scalableGeoDatabaseContract()),
  baseOf('MessageBroker', messageBrokerContract()),
  baseOf('DbPooler (readState, crdOwner external)', dbPoolerContract()),
];

// Option names a contract or machine may have, to add where they are absent.
const optionNames = [
  ...new Set([
    ...bases.flatMap((base) =>
      base.options.map((path) => path.at(-1)).filter((key): key is string => typeof key === 'string'),
    ),
    'phasePath',
    'readState',
    'phases',
    'steadyState',
    'listKind',
    'shortNames',
    'categories',
    'deprecated',
    'deprecationWarning',
    'printerColumns',
    'subresources',
    'selectableFields',
    'usesStash',
    'hubToSpokePaths',
    'conversionAnnotation',
    'defaults',
    'invariants',
    'deletionRules',
    'transitions',
    'updateRules',
    'crdAnnotations',
    'crdOwner',
    'ownerCrd',
    'form',
    'target',
    'absentMeans',
    'anyChange',
    'allow',
    'operatorMoves',
    'next',
    'unsupported',
    'exclusive',
    'scale',
    'status',
    'readsMetadataOnly',
    'storageVersion',
    '__proto__',
    'constructor',
  ]),
];

const functions = [
  () => undefined,
  () => null,
  () => 'Ready',
  () => [],
  () => ({}),
  (value: unknown) => value,
  () => {
    throw new TypeError('a function of the fuzz');
  },
];

const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    undefined,
    null,
    true,
    false,
    0,
    -1,
    1.5,
    Number.NaN,
    '',
    'x',
    'Ready',
    'status.phase',
    'v1',
    '.spec.replicas',
    [],
    {},
  ),
  fc.string(),
  fc.integer(),
  fc.constantFrom(...functions),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(
    fc.string({ maxLength: 8 }),
    fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constantFrom(...functions)),
    { maxKeys: 3 },
  ),
  fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true }),
);

type Mutation =
  | { op: 'drop'; path: Path }
  | { op: 'set'; path: Path; value: unknown }
  | { op: 'add'; path: Path; key: string; value: unknown };

function mutation(base: Base): fc.Arbitrary<Mutation> {
  const path = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...base.options) },
    { weight: 1, arbitrary: fc.constantFrom(...base.schemaNodes) },
  );
  const containers = base.options.filter((candidate) => {
    const value = valueAt(base.contract, candidate);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  });
  return fc.oneof(
    path.map((at): Mutation => ({ op: 'drop', path: at })),
    fc.record({ path, value: junk }).map(({ path: at, value }): Mutation => ({ op: 'set', path: at, value })),
    fc
      .record({ path, value: fc.constantFrom(...base.values) })
      .map(({ path: at, value }): Mutation => ({ op: 'set', path: at, value })),
    fc
      .record({
        path: fc.constantFrom([], ...containers),
        key: fc.constantFrom(...optionNames),
        value: fc.oneof(junk, fc.constantFrom(...base.values)),
      })
      .map(({ path: at, key, value }): Mutation => ({ op: 'add', path: at, key, value })),
  );
}

function valueAt(root: unknown, path: Path): unknown {
  return path.reduce<unknown>((node, key) => (node as Record<string | number, unknown> | undefined)?.[key], root);
}

/** A copy of the containers along the path (a function as a function with the same properties); the rest shared. */
function shallowCopy(value: unknown): Record<string | number, unknown> {
  if (Array.isArray(value)) return [...value] as unknown as Record<number, unknown>;
  if (typeof value === 'function') {
    const original = value as (...args: unknown[]) => unknown;
    const copy = (...args: unknown[]) => original(...args);
    // Defined, not assigned: a key an earlier mutation put on the function may be its read-only `name`.
    for (const key of Object.keys(value)) put(copy, key, (value as unknown as Record<string, unknown>)[key]);
    return copy as unknown as Record<string, unknown>;
  }
  return { ...(value as Record<string, unknown>) };
}

/** Sets a key as data: "__proto__" is a key like any other, and a function's read-only name can be replaced. */
function put(container: object, key: string | number, value: unknown): void {
  Object.defineProperty(container, key, { value, enumerable: true, writable: true, configurable: true });
}

function applied(root: unknown, change: Mutation): unknown {
  const edit = (node: unknown, rest: Path): unknown => {
    const copy = shallowCopy(node);
    if (rest.length === 0) {
      // Only 'add' reaches a container itself.
      if (change.op === 'add') put(copy, change.key, change.value);
      return copy;
    }
    const [key, ...below] = rest as [string | number, ...Path];
    if (below.length === 0 && change.op !== 'add') {
      if (change.op === 'set') put(copy, key, change.value);
      else if (Array.isArray(copy)) copy.splice(key as number, 1);
      else delete copy[key];
      return copy;
    }
    put(copy, key, edit(copy[key], below));
    return copy;
  };
  return edit(root, change.path);
}

interface Case {
  base: Base;
  mutations: Mutation[];
}

const caseOf: fc.Arbitrary<Case> = fc.constantFrom(...bases).chain((base) =>
  fc.array(mutation(base), { minLength: 1, maxLength: 3 }).map((mutations) => ({
    base,
    mutations,
    // A failing case is reported as what was done to which contract, not as the whole contract.
    [fc.toStringMethod]: () => `${base.name}: ${mutations.map(describeMutation).join('; ')}`,
  })),
);

function describeMutation(change: Mutation): string {
  const at = [...change.path, ...(change.op === 'add' ? [change.key] : [])].join('.');
  if (change.op === 'drop') return `drop ${at}`;
  const value =
    typeof change.value === 'function'
      ? `a function (${describeValue(String(change.value))})`
      : describeValue(change.value);
  return `${change.op} ${at} = ${value}`;
}

/** The value mutated, and what was done to it, for the report of a failing case. */
function mutated({ base, mutations }: Case): unknown {
  return mutations.reduce<unknown>((value, change) => applied(value, change), base.contract);
}

/** Runs `act`; an error that is not one of `allowed` fails the case with its stack. */
function worksOrSays(act: () => unknown, allowed: (error: unknown) => boolean): boolean {
  try {
    act();
    return true;
  } catch (error) {
    if (allowed(error)) return false;
    throw error;
  }
}

const isDefinitionError = (error: unknown) => error instanceof ContractDefinitionError;
const isContractInvalid = (error: unknown) => error instanceof CommandError && error.code === 'CONTRACT_INVALID';

// The engine remembers the CRDs it took here, as `crdgate manifests` does under ~/.cache: not in the user's home.
const cache = mkdtempSync(join(tmpdir(), 'crdgate-contract-fuzz-'));
afterAll(() => rmSync(cache, { recursive: true, force: true }));

/** What `crdgate fsa` (every format, --coverage) and `crdgate manifests` do with a contract they loaded. */
function useAsTheCliDoes(contract: Contract): void {
  if (contract.transitions) for (const format of machineFormats) renderMachine(contract.transitions, format);
  renderPolicyCoverage(contract, compileContractPolicy(contract));
  manifestsToYaml(renderManifestFiles([contract], manifestDefaults).flatMap((file) => file.manifests));
}

describe('a contract broken at any option', () => {
  it('starts from contracts that work', () => {
    for (const base of bases) {
      expect(defineContract(base.contract).storageVersion).toBe(base.contract.storageVersion);
      expect(base.options.length).toBeGreaterThan(50);
    }
  });

  it(
    'is taken by defineContract, or refused with a ContractDefinitionError: never another error',
    { timeout: runs * 100 },
    () => {
      let refused = 0;
      fc.assert(
        fc.property(caseOf, (generated) => {
          if (!worksOrSays(() => defineContract(mutated(generated) as Contract), isDefinitionError)) refused++;
        }),
        { numRuns: runs },
      );
      // Most cases break something, and some do not: a generator that stopped doing either would pass in silence.
      expect(refused).toBeGreaterThan(runs / 3);
      expect(refused).toBeLessThan(runs);
    },
  );

  // Fewer runs: a contract that passes its checks is compiled (its schemas, and its CEL rules by the engine), which
  // takes a tenth of a second or more.
  const loadRuns = Math.max(20, Math.round(runs / 30));
  it(
    'is loaded by contractTester and by every CLI command (one CONTRACT_INVALID line if not), and what is loaded renders',
    { timeout: loadRuns * 2000 },
    () => {
      let loaded = 0;
      fc.assert(
        fc.property(
          caseOf,
          fc.constantFrom(
            'contractTester',
            'module exporting it',
            'module exporting a function',
            'module calling defineContract',
          ),
          (generated, loader) => {
            const value = mutated(generated);
            if (loader === 'contractTester') {
              if (worksOrSays(() => contractTester(value as Contract), isDefinitionError)) loaded++;
              return;
            }
            const exported =
              loader === 'module exporting it'
                ? value
                : loader === 'module exporting a function'
                  ? () => value
                  : () => defineContract(value as Contract);
            let registry;
            try {
              registry = registryOfExports([{ module: './contract.ts', exported }]);
              checkContractRules(registry, { XDG_CACHE_HOME: cache });
            } catch (error) {
              if (!isContractInvalid(error)) throw error;
              expect((error as Error).message).not.toContain('\n');
              return;
            }
            loaded++;
            contractWarningLines(registry);
            for (const compiled of registry.contracts) useAsTheCliDoes(compiled.contract);
          },
        ),
        { numRuns: loadRuns },
      );
      expect(loaded).toBeGreaterThan(0);
    },
  );
});
