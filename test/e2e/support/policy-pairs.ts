import fc from 'fast-check';
import type { Contract } from '../../../src/contract/contract-definition.ts';
import { isFieldProtection, type AnnotationProtection } from '../../../src/contract/deletion-rules.ts';
import type { ClassifierForm, ValueReading } from '../../../src/contract/fsa/classifier-form.ts';
import type { TransitionDecision } from '../../../src/contract/fsa/evaluate/evaluate-transition.ts';
import type { Fsa } from '../../../src/contract/fsa/machine.ts';
import { readsPhase } from '../../../src/contract/fsa/phase.ts';
import { findUnclassifiedChanges } from '../../../src/contract/fsa/unclassified-changes.ts';
import type { KubeObject } from '../../../src/contract/values/kube-object.ts';
import { createSchemaCompiler } from '../../../src/contract/schema/compile-schema.ts';
import type { JSONSchemaProps } from '../../../src/contract/schema/json-schema-props.ts';

// Generated (old, new) pairs for comparing the rendered ValidatingAdmissionPolicy with crdgate's own decision,
// for any contract whose machine is built from the library's classifiers. Everything is derived from the machine's
// classifier forms and the hub schema: which fields are read and how (integers within the schema's bounds,
// quantities, releases with as many parts as the schema's pattern allows, strings), which lists are keyed and by
// what, where the phase is and what it may hold. Every generated object is valid for the hub schema and already in
// the API server's normal form (no field the schema prunes, nothing left for a schema default to fill in), so when
// the API server refuses an update, the policy is the only thing that can have refused it.

/** How a pair's object starts out in the API server, before the request under test. */
export interface StoredStart {
  spec: Record<string, unknown>;
  annotations: Record<string, string>;
  /** Written through the status subresource after the create; undefined: no status is written. */
  phase: string | undefined;
  /** The whole status, written the same way, for a machine that reads its state from conditionStates. */
  status?: Record<string, unknown>;
  /** Created with a finalizer and then DELETEd, so that metadata.deletionTimestamp is set. */
  deleting: boolean;
}

export interface UpdatePair {
  operation: 'UPDATE';
  old: StoredStart;
  /** The spec and annotations the UPDATE sends. */
  spec: Record<string, unknown>;
  annotations: Record<string, string>;
}

export interface DeletePair {
  operation: 'DELETE';
  old: StoredStart;
}

export type PolicyPair = UpdatePair | DeletePair;

export interface PairOptions {
  /**
   * `exact`: only quantities the policy reads exactly as crdgate does. `with-unreadable`: some outside that subset
   * too, which the policy treats as unreadable (no change) while crdgate still judges them.
   */
  quantities: 'exact' | 'with-unreadable';
}

export interface PairGenerator {
  updates: fc.Arbitrary<UpdatePair>;
  deletes: fc.Arbitrary<DeletePair>;
  /** Every phase a start may write (recognised or not), for coverage checks. */
  phases: readonly string[];
  /** Whether some start records a state the machine does not know. */
  unrecognised: boolean;
}

/**
 * Quantities the policy reads exactly (the compiler's pattern: up to six digits, three decimals, a suffix up to
 * T/Ti), in groups of equal values, the groups in ascending order: a step between groups is a growth or a
 * shrink, a step within a group a change of spelling only.
 */
export const exactQuantityGroups: readonly (readonly string[])[] = [
  ['128Mi', '0.125Gi'],
  ['256Mi'],
  ['512Mi', '0.5Gi'],
  ['1G', '1000M'],
  ['1Gi', '1024Mi'],
  ['1.5Gi', '1536Mi'],
  ['2Gi', '2048Mi'],
  ['10Gi'],
  ['20Gi', '20480Mi'],
  ['50G'],
  ['50Gi'],
  ['100Gi'],
  ['512Gi', '0.5Ti'],
  ['1Ti', '1024Gi'],
  ['1.5Ti', '1536Gi'],
];

/**
 * Valid quantities outside that subset: more digits or decimals, exponents, a sign, suffixes past T. crdgate reads
 * each exactly; the policy calls them unreadable.
 */
export const unreadableQuantities: readonly string[] = [
  '1048576Ki',
  '1.0001Gi',
  '2e9',
  '+2Gi',
  '1Pi',
  '1234567Mi',
  '0.0001Ti',
  '3E3',
];

/** Override values: reasons, blanks of every kind JavaScript's trim() removes, and characters that look blank but are not. */
export const overrideValues: readonly string[] = [
  'INC-4711: approved by the on-call lead',
  '  INC-7: cannot wait until Monday  ',
  '\u00a0INC-8\u3000',
  '',
  ' ',
  '\t\n\r\v\f',
  '\u00a0',
  '\u3000',
  '\ufeff',
  '\u2028\u2029',
  ' \u00a0\u1680\u2000\u200a\u202f\u205f\u3000\ufeff ',
  // Not whitespace to JavaScript's trim(): a zero-width space, NEL, the Mongolian vowel separator.
  '\u200b',
  '\u0085',
  '\u180e',
];

const stringPool = ['standard', 'fast-ssd', 'archive', 'PLAIN', 'SCRAM-SHA-256', 'Ünïcode', 'quote " and \\ backslash'];
const keyPool = ['orders', 'events', 'audit', 'tiles', 'sessions', 'geo.cache', 'x'];
const unrecognisedPhases = ['Hibernating', 'running', 'Running ', 'Ünknown', 'Deleting'];
/** The finalizer that keeps a deleting start in the API server until the test removes it. */
export const pairFinalizer = 'crdgate.example.com/policy-agreement-hold';

/** How a classifier reads a field, by its path below the spec (`caches[].memory` for a list item's field). */
interface ReadField {
  reading: ValueReading;
  absentMeans?: unknown;
}

interface Readings {
  fields: Map<string, ReadField>;
  /** Keyed lists by path, with their keys. */
  keys: Map<string, readonly string[]>;
}

function collectReadings(
  forms: readonly (ClassifierForm<string> | undefined)[],
  prefix: string,
  readings: Readings,
): Readings {
  for (const form of forms) {
    if (form === undefined) continue;
    if (form.classify === 'field') {
      readings.fields.set(prefix + form.path, {
        reading: form.reading,
        ...(form.absentMeans === undefined ? {} : { absentMeans: form.absentMeans }),
      });
    } else {
      readings.keys.set(prefix + form.path, form.keys);
      collectReadings(
        form.items.map((item) => item.form),
        `${prefix}${form.path}[].`,
        readings,
      );
    }
  }
  return readings;
}

type Model =
  | { kind: 'object'; properties: { name: string; model: Model; alwaysPresent: boolean }[] }
  | { kind: 'keyed-list'; key: string; item: ObjectModel; maxItems: number }
  | { kind: 'list'; item: Model; maxItems: number }
  | Leaf;

type ObjectModel = Extract<Model, { kind: 'object' }>;

interface Leaf {
  kind: 'leaf';
  values: fc.Arbitrary<unknown>;
  /** Values close to `value`: a step up or down, another spelling of the same amount. */
  near(value: unknown): fc.Arbitrary<unknown>;
  /** The classifier's absentMeans: setting it explicitly is no change, a step from it is one. */
  absentMeans?: unknown;
}

const schemaCompiler = createSchemaCompiler();

/** Whether a value is valid for a schema as crdgate validates it (stricter than the API server: it checks formats). */
function validFor(schema: JSONSchemaProps): (value: unknown) => boolean {
  const validate = schemaCompiler.compile(schema, { rootPath: 'value' });
  return (value) => validate(value).length === 0;
}

function pick<T>(values: readonly T[], what: string): fc.Arbitrary<T> {
  if (values.length === 0) throw new Error(`no generated value fits ${what}`);
  return fc.constantFrom(...values);
}

function buildModel(
  schema: JSONSchemaProps,
  path: string,
  readings: Readings,
  options: PairOptions,
  keyOf?: string,
): Model {
  if (
    schema['x-kubernetes-preserve-unknown-fields'] ||
    schema['x-kubernetes-int-or-string'] ||
    schema.additionalProperties !== undefined
  ) {
    throw new Error(`${path || 'spec'}: the pair generator does not generate free-form values`);
  }
  switch (schema.type) {
    case 'object': {
      const required = new Set(schema.required ?? []);
      const properties = Object.entries(schema.properties ?? {}).map(([name, child]) => ({
        name,
        model: buildModel(
          child,
          path === '' ? name : `${path}.${name}`,
          readings,
          options,
          name === keyOf ? name : undefined,
        ),
        // A field with a schema default is always set: the API server would otherwise fill it in, and the stored
        // object would not be the one generated.
        alwaysPresent: required.has(name) || child.default !== undefined,
      }));
      return { kind: 'object', properties };
    }
    case 'array': {
      const maxItems = schema.maxItems ?? 4;
      const key = readings.keys.get(path);
      const mapKeys = schema['x-kubernetes-list-map-keys'];
      if (schema['x-kubernetes-list-type'] === 'map') {
        if (mapKeys?.length !== 1) throw new Error(`${path}: the pair generator handles map lists with one key`);
        const item = buildModel(schema.items ?? {}, `${path}[]`, readings, options, mapKeys[0]);
        if (item.kind !== 'object') throw new Error(`${path}: a map list's items must be objects`);
        if (key !== undefined && (key.length !== 1 || key[0] !== mapKeys[0]))
          throw new Error(`${path}: the classifier's keys ${key.join(', ')} are not the list's map key ${mapKeys[0]}`);
        return { kind: 'keyed-list', key: mapKeys[0]!, item, maxItems };
      }
      if (schema['x-kubernetes-list-type'] === 'set')
        throw new Error(`${path}: the pair generator does not generate set lists`);
      return { kind: 'list', item: buildModel(schema.items ?? {}, `${path}[]`, readings, options), maxItems };
    }
    default:
      return leafModel(schema, path, readings.fields.get(path), options, keyOf !== undefined);
  }
}

function leafModel(
  schema: JSONSchemaProps,
  path: string,
  read: ReadField | undefined,
  options: PairOptions,
  isKey: boolean,
): Leaf {
  const valid = validFor(schema);
  // An absentMeans the schema would refuse cannot be written explicitly; it is left to absence.
  const absentMeans =
    read?.absentMeans === undefined || !valid(read.absentMeans) ? {} : { absentMeans: read.absentMeans };
  if (isKey) {
    const keys = pick(keyPool.filter(valid), `the list key ${path}`);
    return { kind: 'leaf', values: keys, near: () => keys };
  }
  if (schema.enum !== undefined) {
    const values = pick(schema.enum, `the enum of ${path}`);
    return { kind: 'leaf', values, near: () => values, ...absentMeans };
  }
  switch (read?.reading) {
    case 'quantity':
      return { ...quantityLeaf(options), ...absentMeans };
    case 'release':
      return { ...releaseLeaf(schema, path, valid, read.absentMeans), ...absentMeans };
    case 'integer':
      return { ...integerLeaf(schema), ...absentMeans };
    case 'string':
    case undefined:
      break;
  }
  switch (schema.type) {
    case 'integer':
    case 'number':
      return { ...integerLeaf(schema), ...absentMeans };
    case 'boolean':
      return { kind: 'leaf', values: fc.boolean(), near: (value) => fc.constant(!value) };
    case 'string': {
      const values = pick(stringPool.filter(valid), `the string ${path}`);
      return { kind: 'leaf', values, near: () => values, ...absentMeans };
    }
    default:
      throw new Error(`${path}: the pair generator does not generate ${schema.type ?? 'untyped'} values`);
  }
}

function integerLeaf(schema: JSONSchemaProps): Leaf {
  const min = (schema.minimum ?? 0) + (schema.exclusiveMinimum ? 1 : 0);
  const max = (schema.maximum ?? min + 20) - (schema.exclusiveMaximum ? 1 : 0);
  const within = (value: number) => Math.min(max, Math.max(min, value));
  return {
    kind: 'leaf',
    values: fc.integer({ min, max }),
    near: (value) => fc.constantFrom(-2, -1, 1, 2).map((step) => within(Number(value) + step)),
  };
}

function quantityLeaf(options: PairOptions): Leaf {
  const spellings = exactQuantityGroups.flat();
  const exact = fc.constantFrom(...spellings);
  const values =
    options.quantities === 'exact'
      ? exact
      : fc.oneof({ weight: 2, arbitrary: exact }, { weight: 1, arbitrary: fc.constantFrom(...unreadableQuantities) });
  return {
    kind: 'leaf',
    values,
    near: (value) => {
      const group = exactQuantityGroups.findIndex((spelled) => spelled.includes(String(value)));
      if (group === -1) return values;
      // The same amount spelled otherwise, or a step of one or two groups up or down.
      return fc.constantFrom(0, -2, -1, 1, 2).chain((step) => {
        const target = exactQuantityGroups[Math.min(exactQuantityGroups.length - 1, Math.max(0, group + step))]!;
        return fc.constantFrom(...target);
      });
    },
  };
}

/** Release numbers with as many parts as the schema's pattern accepts, around its absentMeans if it has one. */
function releaseLeaf(
  schema: JSONSchemaProps,
  path: string,
  valid: (value: unknown) => boolean,
  absentMeans: unknown,
): Leaf {
  const partCounts = [1, 2, 3, 4, 5].filter((count) =>
    valid(Array.from({ length: count }, (_, index) => index + 1).join('.')),
  );
  if (partCounts.length === 0) throw new Error(`${path}: no release with 1 to 5 parts fits its schema`);
  // Small parts, so that equal majors are common, and 9/10/11, so that numeric order differs from text order.
  const part = fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom(9, 10, 11, 16));
  const random = fc
    .constantFrom(...partCounts)
    .chain((count) => fc.array(part, { minLength: count, maxLength: count }))
    .map((parts) => parts.join('.'))
    .filter(valid);
  const near = (value: unknown): fc.Arbitrary<unknown> => {
    const parts = String(value).split('.').map(Number);
    // One part up or down (9 -> 10 crosses a digit), the parts after it kept or reset to 0.
    return fc
      .tuple(fc.nat(parts.length - 1), fc.constantFrom(-1, 1, 1, 2), fc.boolean())
      .map(([index, step, reset]) =>
        parts.map((old, at) => (at === index ? Math.max(0, old + step) : at > index && reset ? 0 : old)).join('.'),
      )
      .filter(valid);
  };
  const values = typeof absentMeans === 'string' && valid(absentMeans) ? fc.oneof(random, near(absentMeans)) : random;
  return { kind: 'leaf', values, near };
}

/** Absent in a generated object is `undefined`; objects leave such fields out. */
function generate(model: Model): fc.Arbitrary<unknown> {
  switch (model.kind) {
    case 'leaf':
      return model.absentMeans === undefined
        ? model.values
        : fc.oneof({ weight: 3, arbitrary: model.values }, { weight: 1, arbitrary: fc.constant(model.absentMeans) });
    case 'object':
      return fc
        .tuple(
          ...model.properties.map(({ model: child, alwaysPresent }) =>
            alwaysPresent ? generate(child) : fc.option(generate(child), { nil: undefined, freq: 3 }),
          ),
        )
        .map((values) => objectOf(model, values));
    case 'keyed-list':
      return fc.uniqueArray(generate(model.item), {
        maxLength: Math.min(model.maxItems, 4),
        selector: (item) => (item as Record<string, unknown>)[model.key],
      });
    case 'list':
      return fc.array(generate(model.item), { maxLength: Math.min(model.maxItems, 3) });
  }
}

function objectOf(model: ObjectModel, values: readonly unknown[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  model.properties.forEach(({ name }, index) => {
    if (values[index] !== undefined) object[name] = values[index];
  });
  return object;
}

/**
 * A new value made from `old` by a few edits: each field is edited with probability `rate` (a step, another value,
 * set or removed when optional); a keyed list's items are kept, edited, replaced or removed, new ones added,
 * the order reversed, the list emptied or removed.
 */
function edit(model: Model, old: unknown, rate: number): fc.Arbitrary<unknown> {
  switch (model.kind) {
    case 'leaf': {
      if (old === undefined)
        return model.absentMeans === undefined
          ? model.values
          : fc.oneof(model.values, fc.constant(model.absentMeans), model.near(model.absentMeans));
      // Mostly a step from the old value: that is where upgrades, growths and equal spellings are.
      return fc.oneof({ weight: 3, arbitrary: model.near(old) }, { weight: 1, arbitrary: model.values });
    }
    case 'object': {
      const before = (old ?? {}) as Record<string, unknown>;
      return fc
        .tuple(
          ...model.properties.map(({ name, model: child, alwaysPresent }) => {
            const value = before[name];
            const change =
              value !== undefined && !alwaysPresent
                ? fc.oneof(
                    { weight: 4, arbitrary: edit(child, value, rate) },
                    { weight: 1, arbitrary: fc.constant(undefined) },
                  )
                : edit(child, value, rate);
            const percent = Math.round(rate * 100);
            return fc.oneof(
              { weight: percent, arbitrary: change },
              { weight: 100 - percent, arbitrary: fc.constant(value) },
            );
          }),
        )
        .map((values) => objectOf(model, values));
    }
    case 'keyed-list':
      return editKeyedList(model, old, rate);
    case 'list':
      return fc.oneof(fc.constant(old), generate(model));
  }
}

function editKeyedList(
  model: Extract<Model, { kind: 'keyed-list' }>,
  old: unknown,
  rate: number,
): fc.Arbitrary<unknown> {
  if (!Array.isArray(old)) return fc.oneof(generate(model), fc.constant([]));
  const keyed = (item: unknown) => (item as Record<string, unknown>)[model.key];
  const itemEdits = old.map((item) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(item) },
      // The item with the same key and a few of its fields changed, or all of them.
      {
        weight: 3,
        arbitrary: edit(withoutKey(model), item, Math.max(rate, 0.5)).map((edited) => ({
          ...(edited as object),
          [model.key]: keyed(item),
        })),
      },
      {
        weight: 1,
        arbitrary: generate(model.item).map((fresh) => ({ ...(fresh as object), [model.key]: keyed(item) })),
      },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
  );
  const added = fc.uniqueArray(generate(model.item), { maxLength: 2, selector: keyed });
  const rebuilt = fc.tuple(fc.tuple(...itemEdits), added, fc.boolean()).map(([kept, fresh, reversed]) => {
    const present = new Set(old.map(keyed));
    const items = [
      ...kept.filter((item) => item !== undefined),
      ...fresh.filter((item) => !present.has(keyed(item))),
    ].slice(0, model.maxItems);
    return reversed ? items.reverse() : items;
  });
  // Removing an optional list is the enclosing object's edit.
  return fc.oneof({ weight: 8, arbitrary: rebuilt }, { weight: 1, arbitrary: fc.constant([]) });
}

function withoutKey(model: Extract<Model, { kind: 'keyed-list' }>): ObjectModel {
  return { kind: 'object', properties: model.item.properties.filter(({ name }) => name !== model.key) };
}

/** Where a path below the root lands in a schema, through object properties. */
function schemaAtPath(schema: JSONSchemaProps, path: string): JSONSchemaProps | undefined {
  return path.split('.').reduce<JSONSchemaProps | undefined>((node, segment) => node?.properties?.[segment], schema);
}

/**
 * The phases a start may write: the enum if the schema has one, else the machine's phase strings (its table's, or
 * its states' names), "" and phases it does not know.
 */
export function storablePhases(contract: Contract): string[] {
  const machine = machineOf(contract);
  // A machine that reads its state with readState has no phase to write: its starts are set up by their caller.
  if (!readsPhase(machine)) return [];
  const schema = schemaAtPath(hubSchema(contract), machine.phasePath);
  if (schema === undefined) throw new Error(`the hub schema has no ${machine.phasePath}`);
  // With a table of the operator's phase strings, those are the recognised phases (a state's own name is not one).
  const recognised = machine.phases === undefined ? machine.states : Object.keys(machine.phases);
  const candidates =
    schema.enum !== undefined
      ? schema.enum.map(String)
      : [...recognised, '', ...unrecognisedPhases, ...(machine.phases === undefined ? [] : machine.states)];
  return candidates.filter(validFor(schema));
}

/** The contract's deletion protections held by an annotation, which the pairs set (a field protection is the spec's). */
export function annotationProtections(contract: Contract): AnnotationProtection[] {
  return (contract.deletionRules ?? []).flatMap((rule) =>
    rule.form !== undefined && !isFieldProtection(rule.form) ? [rule.form] : [],
  );
}

export function hubSchema(contract: Contract): JSONSchemaProps {
  return contract.versions.find((version) => version.name === contract.hub)!.schema;
}

export function machineOf(contract: Contract): Fsa<string, string> {
  if (contract.transitions === undefined) throw new Error(`${contract.identity.kind} has no FSA`);
  return contract.transitions;
}

/** The contract's machine, which reads a phase, for writing one. */
export function phaseMachineOf(contract: Contract): Fsa<string, string> & { phasePath: string } {
  const machine = machineOf(contract);
  if (!readsPhase(machine)) throw new Error(`${contract.identity.kind}'s machine reads no phase`);
  return machine;
}

export function policyPairGenerator(contract: Contract, options: PairOptions): PairGenerator {
  const machine = machineOf(contract);
  const specSchema = hubSchema(contract).properties?.spec;
  if (specSchema === undefined) throw new Error(`${contract.identity.kind}'s hub schema has no spec`);
  const model = buildModel(
    specSchema,
    '',
    collectReadings(
      machine.classifiers.map((classifier) => classifier.form),
      '',
      { fields: new Map(), keys: new Map() },
    ),
    options,
  );
  if (model.kind !== 'object') throw new Error('the spec must be an object');
  const phases = storablePhases(contract);
  const statuses = conditionStatuses(machine, hubSchema(contract));
  const protection = annotationProtections(contract)[0];

  const override = machine.overrideAnnotation;
  // Most real objects sit in the steady state, where most changes are allowed and exclusive ones can meet.
  const steady =
    machine.steadyState !== undefined && phases.includes(machine.steadyState) ? machine.steadyState : undefined;
  const phase = fc.oneof(
    { weight: 1, arbitrary: fc.constant<string | undefined>(undefined) },
    ...(phases.length === 0 ? [] : [{ weight: phases.length, arbitrary: fc.constantFrom(...phases) }]),
    ...(steady === undefined ? [] : [{ weight: 3, arbitrary: fc.constant(steady) }]),
  );
  // About one start in eight is being deleted.
  const deleting = fc.integer({ min: 0, max: 7 }).map((roll) => roll === 0);
  const overrideAnnotation = fc.oneof(
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.constantFrom(...overrideValues).map((value) => ({ [override]: value })) },
  );
  // A third of the starts protected, a third with a value that is almost the protecting one, a third without.
  const nearMisses =
    protection === undefined
      ? []
      : [protection.equals.toUpperCase(), ` ${protection.equals}`, `${protection.equals} `, 'no', ''];
  const protectionAnnotation =
    protection === undefined
      ? fc.constant({})
      : fc.oneof(
          fc.constant({}),
          fc.constant({ [protection.annotation]: protection.equals }),
          fc.constantFrom(...nearMisses).map((value) => ({ [protection.annotation]: value })),
        );
  const oldAnnotations = fc
    .tuple(overrideAnnotation, protectionAnnotation)
    .map(([a, b]): Record<string, string> => ({ ...a, ...b }));
  const fields = {
    spec: generate(model) as fc.Arbitrary<Record<string, unknown>>,
    annotations: oldAnnotations,
    phase,
    deleting,
  };
  // Only a machine that reads conditions draws a status, so the other machines' pairs stay as their seeds make them.
  const start: fc.Arbitrary<StoredStart> =
    statuses === undefined
      ? fc.record(fields)
      : fc
          .record({ ...fields, status: statuses })
          .map(({ status, ...rest }) => (status === undefined ? rest : { ...rest, status }));

  const updates = fc
    .tuple(start, fc.constantFrom(0.1, 0.25, 0.5, 0.8))
    .chain(([old, rate]) =>
      fc.tuple(
        fc.constant(old),
        edit(model, old.spec, rate) as fc.Arbitrary<Record<string, unknown>>,
        // The override as the update leaves it: kept, set to one of the values, or removed.
        fc.oneof(
          { weight: 1, arbitrary: fc.constant(old.annotations[override]) },
          { weight: 1, arbitrary: fc.constant(undefined) },
          { weight: 3, arbitrary: fc.constantFrom(...overrideValues) },
        ),
      ),
    )
    .map(([old, spec, reason]): UpdatePair => {
      const { [override]: _previous, ...others } = old.annotations;
      return {
        operation: 'UPDATE',
        old,
        spec,
        annotations: reason === undefined ? others : { ...others, [override]: reason },
      };
    });
  const deletes = start.map((old): DeletePair => ({ operation: 'DELETE', old }));
  const unrecognised =
    phases.some(
      (written) => written !== '' && !machine.states.includes(written) && !Object.hasOwn(machine.phases ?? {}, written),
    ) || statuses !== undefined;
  return { updates, deletes, phases, unrecognised };
}

/**
 * Statuses for a machine that reads conditionStates, undefined for one that does not: now and then none at all,
 * mostly conditions made of what its rules test (each tested type with each tested status and reason, and Unknown,
 * which no rule names), at most one of each type as a map list keyed by type holds them, at times beside a condition
 * of a type no rule tests, or only that one, or none; and an observedGeneration behind, at or past the generation (1:
 * the start is created once), or none. Only the fields the hub schema declares for a condition are written.
 */
function conditionStatuses(
  machine: Fsa<string, string>,
  schema: JSONSchemaProps,
): fc.Arbitrary<Record<string, unknown> | undefined> | undefined {
  if (machine.conditionStates === undefined) return undefined;
  const tests = machine.conditionStates.flatMap((rule) => rule.when);
  const declared = new Set(Object.keys(schemaAtPath(schema, 'status.conditions')?.items?.properties ?? {}));
  const condition = (type: string, status: string, reason?: string) => ({
    type,
    ...(declared.has('status') ? { status } : {}),
    ...(reason !== undefined && declared.has('reason') ? { reason } : {}),
  });
  const tested = [...new Set(tests.flatMap((test) => ('condition' in test ? [test.condition] : [])))].flatMap(
    (type) => {
      const ofType = tests.filter(
        (test): test is Extract<typeof test, { condition: string }> => 'condition' in test && test.condition === type,
      );
      const statuses = [
        ...new Set([
          ...ofType.flatMap((test) => ('status' in test && test.status !== undefined ? [test.status] : [])),
          'Unknown',
        ]),
      ];
      const reasons = [
        undefined,
        ...new Set(ofType.flatMap((test) => ('reason' in test && test.reason !== undefined ? [test.reason] : []))),
      ];
      return statuses.flatMap((status) => reasons.map((reason) => condition(type, status, reason)));
    },
  );
  const untested = condition('CrdgateTestUntested', 'True');
  const someTested = fc.uniqueArray(fc.constantFrom(...tested), {
    minLength: 1,
    maxLength: 2,
    selector: (item) => item.type,
  });
  const conditions = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.tuple(someTested, fc.boolean()).map(([list, more]) => (more ? [...list, untested] : list)),
    },
    { weight: 1, arbitrary: fc.constant([untested]) },
    { weight: 1, arbitrary: fc.constant([]) },
  );
  const observed = tests.some((test) => 'observedGeneration' in test)
    ? fc.constantFrom(undefined, 0, 1, 1, 2)
    : fc.constant(undefined);
  const status = fc
    .record({ conditions, observedGeneration: observed })
    .map((fields) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)));
  return fc.option(status, { nil: undefined, freq: 10 });
}

/**
 * The object a start leads to, as the API server stores it (less the fields it adds), for deciding offline what a
 * pair should get; the e2e test decides on the object it reads back instead.
 */
export function storedObject(contract: Contract, start: StoredStart, name: string): KubeObject {
  return {
    apiVersion: `${contract.identity.group}/${contract.hub}`,
    kind: contract.identity.kind,
    metadata: {
      name,
      // Created once: the API server's first generation.
      generation: 1,
      ...(Object.keys(start.annotations).length > 0 ? { annotations: start.annotations } : {}),
      ...(start.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [pairFinalizer] } : {}),
    },
    spec: start.spec,
    ...startStatus(contract, start),
  };
}

/** What a start writes through the status subresource, as the object's fields: its status, or its phase at phasePath. */
export function startStatus(contract: Contract, start: StoredStart): Record<string, unknown> {
  if (start.status !== undefined) return { status: start.status };
  if (start.phase === undefined) return {};
  const [root, ...below] = phaseMachineOf(contract).phasePath.split('.');
  return { [root!]: nested(below, start.phase) };
}

/** `{ a: { b: value } }` for the path ['a', 'b']. */
export function nested(path: readonly string[], value: unknown): unknown {
  return path.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), value);
}

/** What a set of pairs covered, counted from crdgate's decisions on them. */
export interface Tally {
  pairs: number;
  allowed: number;
  denied: number;
  /** Per state, as crdgate read it (`unrecognised` for a phase the machine does not know). */
  states: Record<string, number>;
  /** Per change kind, the pairs carrying at least one change of it. */
  kinds: Record<string, number>;
  /** Per ruling outcome (allowed, overridden, not-allowed, unsupported, exclusive-conflict), the pairs with one. */
  outcomes: Record<string, number>;
  /** Pairs with several changes; with an unsupported change next to another; with two exclusive ones; with changes to several list items. */
  combinations: {
    severalChanges: number;
    unsupportedBesideAnother: number;
    severalExclusive: number;
    severalListItems: number;
  };
  /** Pairs whose new annotations give an override reason, a blank one, none, or keep the stored object's (stale). */
  override: { reason: number; blank: number; absent: number; stale: number };
  /** Per ruling on the changes no change kind names (allowed, not-allowed, overridden, refused), the pairs with one. */
  unclassified: Record<string, number>;
}

export function emptyTally(): Tally {
  return {
    pairs: 0,
    allowed: 0,
    denied: 0,
    states: {},
    kinds: {},
    outcomes: {},
    combinations: { severalChanges: 0, unsupportedBesideAnother: 0, severalExclusive: 0, severalListItems: 0 },
    override: { reason: 0, blank: 0, absent: 0, stale: 0 },
    unclassified: {},
  };
}

/**
 * Counts a decision into the tally; `specs`, the old and the new spec, tell where a change no change kind names was
 * allowed, which a decision does not look for.
 */
export function tallyDecision(
  tally: Tally,
  machine: Fsa<string, string>,
  decision: TransitionDecision<string, string>,
  specs?: readonly [unknown, unknown],
): void {
  const bump = (counts: Record<string, number>, key: string) => {
    counts[key] = (counts[key] ?? 0) + 1;
  };
  tally.pairs += 1;
  if (decision.allowed) tally.allowed += 1;
  else tally.denied += 1;
  bump(tally.states, decision.state.recognised ? decision.state.state : 'unrecognised');
  for (const kind of new Set(decision.changes.map(({ change }) => change.kind))) bump(tally.kinds, kind);
  for (const outcome of new Set(decision.changes.map(({ ruling }) => ruling.outcome))) bump(tally.outcomes, outcome);
  const changes = decision.changes.map(({ change }) => change);
  const unsupported = changes.filter((change) => machine.changeKinds[change.kind]?.unsupported !== undefined);
  const exclusive = changes.filter((change) => machine.changeKinds[change.kind]?.exclusive === true);
  const listItems = new Set(changes.filter((change) => change.item !== undefined).map((change) => change.item));
  if (changes.length > 1) tally.combinations.severalChanges += 1;
  if (unsupported.length > 0 && changes.length > unsupported.length) tally.combinations.unsupportedBesideAnother += 1;
  if (exclusive.length > 1) tally.combinations.severalExclusive += 1;
  if (listItems.size > 1) tally.combinations.severalListItems += 1;
  const { ruling, changes: unclassified, more } = decision.unclassified;
  if (unclassified.length + more > 0) bump(tally.unclassified, ruling.outcome);
  else if (ruling.outcome === 'allowed' && specs !== undefined && unclassifiedIn(machine, specs))
    bump(tally.unclassified, 'allowed');
  tally.override[decision.override.given ? 'reason' : decision.override.why] += 1;
}

function unclassifiedIn(machine: Fsa<string, string>, [oldSpec, newSpec]: readonly [unknown, unknown]): boolean {
  const classified = machine.classifiers.map((classifier) => ({
    classifier,
    changes: classifier.classify(oldSpec, newSpec, { field: 'spec' }),
  }));
  return findUnclassifiedChanges(classified, oldSpec, newSpec, 1).changes.length > 0;
}
