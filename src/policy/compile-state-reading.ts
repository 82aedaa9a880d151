import type { ConditionStateRule, StatusTest, Fsa } from '../contract/fsa/machine.ts';
import { readsPhase } from '../contract/fsa/phase.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import {
  and,
  call,
  concat,
  cond,
  eq,
  ge,
  has,
  hasType,
  ident,
  index,
  int,
  isPlainFieldName,
  le,
  list,
  lt,
  member,
  method,
  not,
  optionalField,
  optionalMember,
  or,
  str,
  type Cel,
} from './cel.ts';
import { propertySchemaAt } from './compile-classifiers.ts';
import type { PolicyVariable } from './policy-parts.ts';

// The state an update starts from, as CEL, read as recordedState reads it: deleting once a deletion has started,
// else the phase, or the conditionStates rules. Where the policy cannot read the state (a readState of one's own, a
// phase or conditions the hub schema does not let it read), it still knows a deletion, and otherwise knows no
// state: the machine's validations then refuse only what every state refuses.

/** How the policy reads the state, for the coverage report. */
export type StateCoverage =
  | { readBy: 'phase'; path: string }
  /** From the conditionStates rules, over the first `conditionsRead` conditions; past them, as if unreadable. */
  | { readBy: 'conditions'; conditionsRead: number }
  | { readBy: 'none'; reason: string };

export interface StateReadingCel {
  coverage: StateCoverage;
  /** `state` (a state's name, else "" or the unrecognised phase), and what it is computed from. */
  variables: PolicyVariable[];
  /** CEL string completing "while the ... is " for an unrecognised state. */
  unrecognisedLabel: Cel;
  /** Absent when the policy always reads the state. */
  unread?: {
    /** CEL bool: whether the policy read the state. Where it did not, `state` is "". */
    known: Cel;
    /** CEL string completing "while the ... is " there. */
    label: Cel;
  };
}

/**
 * How many conditions the policy reads: it looks at them by index over a literal list, which the API server's
 * cost estimate bounds by the list's length, where `conditions.exists(...)` over a list the schema does not bound
 * (most operators' CRDs) would be estimated at millions. Past this many the policy reads no state.
 */
export const conditionsRead = 32;

/** Why no state reader of one's own compiles: the policy reads the phase or the conditionStates rules, as data. */
export const stateReaderNotCompiled =
  'the machine reads the state with readState, a function of its own, which the policy cannot run';

const variable = (name: string): Cel => member(ident('variables'), name);
const state = variable('state');
const oldObject = ident('oldObject');
const deleting = method(optionalMember(member(oldObject, 'metadata'), 'deletionTimestamp'), 'hasValue');
// JavaScript holds integers exactly up to 2^53-1; the webhook reads no generation past it, nor does the CEL.
const largestExactInteger = Number.MAX_SAFE_INTEGER;

export function compileStateReading(machine: Fsa<string, string>, hubSchema: JSONSchemaProps): StateReadingCel {
  if (readsPhase(machine)) {
    const problem = phaseProblem(machine, hubSchema);
    return problem === undefined ? phaseReading(machine, hubSchema) : unreadable(machine, problem);
  }
  if (machine.conditionStates !== undefined) {
    const problem = conditionsProblem(machine.conditionStates, hubSchema);
    return problem === undefined ? conditionsReading(machine, machine.conditionStates) : unreadable(machine, problem);
  }
  return unreadable(machine, stateReaderNotCompiled);
}

/** Only a deletion tells the state: `state` is the deleting state then, and "" otherwise. */
function unreadable(machine: Fsa<string, string>, reason: string): StateReadingCel {
  return {
    coverage: { readBy: 'none', reason },
    variables: [
      { name: 'stateKnown', expression: deleting.text },
      { name: 'state', expression: cond(variable('stateKnown'), str(machine.deletingState), str('')).text },
    ],
    unrecognisedLabel: str('in a state the policy cannot read'),
    unread: { known: variable('stateKnown'), label: str('in a state the policy cannot read') },
  };
}

function phaseProblem(
  machine: Fsa<string, string> & { phasePath: string },
  hubSchema: JSONSchemaProps,
): string | undefined {
  const segments = machine.phasePath.split('.');
  if (!segments.every(isPlainFieldName))
    return `the phase path "${machine.phasePath}" has a field name CEL cannot write plainly`;
  const phase = propertySchemaAt(hubSchema, segments);
  if (phase?.type !== 'string') return `the phase path "${machine.phasePath}" is not a string field of the hub schema`;
  return undefined;
}

/**
 * As readState: deleting once a deletion has started, the initial state while no phase is recorded, else the phase.
 * A phase the hub schema bounds (maxLength, enum) and the machine reads as a state's own name is the state itself.
 * Otherwise the phase is only ever compared with the literal phase strings of the machine's table (its phases, or
 * the states' names): cel-go costs a comparison at its shorter side, so an operator's CRD that bounds nothing (one
 * crdgate does not own, and cannot add a maxLength to) still compiles. An unrecognised phase is then "", and the
 * message does not quote it, since its length, and so the cost of quoting it, is unbounded.
 */
function phaseReading(
  machine: Fsa<string, string> & { phasePath: string },
  hubSchema: JSONSchemaProps,
): StateReadingCel {
  const phasePath = machine.phasePath.split('.');
  const phase = method(optionalField(oldObject, phasePath), 'orValue', str(''));
  const deletingOr = (rest: Cel) => cond(deleting, str(machine.deletingState), rest);
  const schema = propertySchemaAt(hubSchema, phasePath);
  const bounded = schema?.maxLength !== undefined || schema?.enum !== undefined;
  const quoted = (value: Cel) => concat(str('in the unrecognised phase "'), value, str('"'));
  const coverage: StateCoverage = { readBy: 'phase', path: machine.phasePath };
  if (bounded && machine.phases === undefined) {
    return {
      coverage,
      variables: [
        { name: 'state', expression: deletingOr(cond(eq(phase, str('')), str(machine.initialState), phase)).text },
      ],
      unrecognisedLabel: quoted(state),
    };
  }
  const table: [string, string][] =
    machine.phases === undefined ? machine.states.map((name) => [name, name]) : Object.entries(machine.phases);
  const phaseVariable = variable('phase');
  const lookup = table.reduceRight<Cel>(
    (rest, [written, name]) => cond(eq(phaseVariable, str(written)), str(name), rest),
    str(''),
  );
  return {
    coverage,
    variables: [
      { name: 'phase', expression: phase.text },
      {
        name: 'state',
        expression: deletingOr(cond(eq(phaseVariable, str('')), str(machine.initialState), lookup)).text,
      },
    ],
    unrecognisedLabel: bounded ? quoted(phaseVariable) : str('in a phase the machine does not know'),
  };
}

type ConditionTest = Exclude<StatusTest, { observedGeneration: string }>;
const isConditionTest = (test: StatusTest): test is ConditionTest => !('observedGeneration' in test);

/** Why the hub schema does not let the policy read what the rules test, in the types the CEL reads them as. */
function conditionsProblem(
  rules: readonly ConditionStateRule<string>[],
  hubSchema: JSONSchemaProps,
): string | undefined {
  const tests = rules.flatMap((rule) => rule.when);
  const conditionTests = tests.filter(isConditionTest);
  if (conditionTests.length > 0) {
    const conditions = propertySchemaAt(hubSchema, ['status', 'conditions']);
    const item = conditions?.items;
    if (conditions?.type !== 'array' || item?.type !== 'object')
      return 'the hub schema declares no status.conditions list of objects, so the policy cannot read the conditions';
    const fields = new Set([
      'type',
      ...conditionTests.flatMap((test) => [
        ...('status' in test && test.status !== undefined ? ['status'] : []),
        ...('reason' in test && test.reason !== undefined ? ['reason'] : []),
      ]),
    ]);
    const missing = [...fields].filter((field) => item.properties?.[field]?.type !== 'string');
    if (missing.length > 0)
      return `the items of status.conditions in the hub schema declare no string ${missing.join(', ')}, which the conditionStates rules test`;
  }
  if (
    tests.some((test) => 'observedGeneration' in test) &&
    propertySchemaAt(hubSchema, ['status', 'observedGeneration'])?.type !== 'integer'
  ) {
    return 'the hub schema declares no integer status.observedGeneration, which the conditionStates rules test';
  }
  return undefined;
}

/**
 * As conditionStatesReader: the status's conditions (a list, else none), each read only if it is an object, and the
 * observed generation only if it is an integer JavaScript holds exactly; the first rule whose tests all hold names the
 * state, else it is unrecognised (""). Each test is a variable, evaluated at most once per request.
 */
function conditionsReading(
  machine: Fsa<string, string>,
  rules: readonly ConditionStateRule<string>[],
): StateReadingCel {
  const status = member(oldObject, 'status');
  const statusIsObject = and(has(oldObject, 'status'), hasType(status, 'map'));
  const variables: PolicyVariable[] = [
    {
      name: 'status_conditions',
      expression: cond(
        and(statusIsObject, has(status, 'conditions'), hasType(member(status, 'conditions'), 'list')),
        member(status, 'conditions'),
        list([]),
      ).text,
    },
  ];
  const conditions = variable('status_conditions');
  const tests = new Map<string, Cel>();
  const testVariable = (test: StatusTest): Cel => {
    const expression = isConditionTest(test)
      ? conditionTest(conditions, test)
      : generationTest(variables, statusIsObject, status, test.observedGeneration);
    const known = tests.get(expression.text);
    if (known !== undefined) return known;
    const name = `status_test_${tests.size}`;
    variables.push({ name, expression: expression.text });
    tests.set(expression.text, variable(name));
    return variable(name);
  };
  const holds = rules.map((rule) => and(...rule.when.map(testVariable)));
  const named = rules.reduceRight<Cel>(
    (rest, rule, position) => cond(holds[position]!, str(rule.state ?? machine.initialState), rest),
    str(''),
  );
  const readable = le(call('size', [conditions]), int(conditionsRead));
  variables.push(
    { name: 'stateKnown', expression: or(deleting, readable).text },
    { name: 'state', expression: cond(deleting, str(machine.deletingState), cond(readable, named, str(''))).text },
  );
  return {
    coverage: { readBy: 'conditions', conditionsRead },
    variables,
    unrecognisedLabel: str('in a state no conditionStates rule names'),
    unread: {
      known: variable('stateKnown'),
      label: str(`in a state the policy does not read (it reads no more than ${conditionsRead} conditions)`),
    },
  };
}

/** Some condition among the first conditionsRead is an object of the test's type (and status, and reason); or, absent, none is. */
function conditionTest(conditions: Cel, test: ConditionTest): Cel {
  const i = ident('i');
  const condition = index(conditions, i);
  const field = (name: string, value: string) =>
    eq(method(optionalMember(condition, name), 'orValue', str('')), str(value));
  const matching = (withValues: boolean) =>
    method(
      list(Array.from({ length: conditionsRead }, (_, position) => int(position))),
      'exists',
      i,
      and(
        lt(i, call('size', [conditions])),
        hasType(condition, 'map'),
        field('type', test.condition),
        ...(withValues && 'status' in test && test.status !== undefined ? [field('status', test.status)] : []),
        ...(withValues && 'reason' in test && test.reason !== undefined ? [field('reason', test.reason)] : []),
      ),
    );
  return test.absent ? not(matching(false)) : matching(true);
}

/** status.observedGeneration against metadata.generation, each read as the webhook reads it. */
function generationTest(
  variables: PolicyVariable[],
  statusIsObject: Cel,
  status: Cel,
  which: 'behind' | 'current',
): Cel {
  if (!variables.some(({ name }) => name === 'observed_generation_read')) {
    const observed = member(status, 'observedGeneration');
    const generation = member(member(oldObject, 'metadata'), 'generation');
    variables.push(
      {
        name: 'observed_generation_read',
        expression: and(statusIsObject, has(status, 'observedGeneration'), hasType(observed, 'int'), exact(observed))
          .text,
      },
      {
        name: 'generation',
        expression: cond(and(has(member(oldObject, 'metadata'), 'generation'), exact(generation)), generation, int(0))
          .text,
      },
    );
  }
  // Compared only once read: && is false, whatever its other side, when one side is.
  const [observed, read, generation] = [
    member(status, 'observedGeneration'),
    variable('observed_generation_read'),
    variable('generation'),
  ];
  return and(read, which === 'behind' ? lt(observed, generation) : ge(observed, generation));
}

const exact = (value: Cel): Cel => and(ge(value, int(-largestExactInteger)), le(value, int(largestExactInteger)));
