import { statesAllowing } from '../contract/fsa/evaluate/judge-changes.ts';
import { staleOverrideNote } from '../contract/fsa/evaluate/transition-messages.ts';
import type { TransitionMachine, UnclassifiedChanges } from '../contract/fsa/machine.ts';
import { readsPhase } from '../contract/fsa/phase.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import {
  and,
  celFalse,
  concat,
  cond,
  eq,
  gt,
  ident,
  int,
  isIn,
  isPlainFieldName,
  list,
  lt,
  member,
  method,
  ne,
  not,
  optionalField,
  optionalIndex,
  optionalMember,
  or,
  plus,
  str,
  type Cel,
} from './cel.ts';
import { compileClassifier, schemaAt, type ChangeSource, type UncompiledKinds } from './compile-classifiers.ts';
import { compileUnclassified, type WebhookOnlyField } from './compile-unclassified.ts';
import { specCoverage } from '../contract/fsa/spec-coverage.ts';
import { judgesUnclassifiedChanges, unclassifiedChangesIn, unclassifiedChangesInUnrecognisedPhase } from '../contract/fsa/unclassified-setting.ts';
import { policyValidation, type PolicyValidation, type PolicyVariable } from './policy-parts.ts';

// The transition machine as CEL, judged as evaluateTransition judges an update: the state read from the old
// object, each change kind counted, unsupported changes refused, changes the state does not allow refused unless
// the override annotation gives a reason, and two exclusive changes that would pass refused together.

export interface CompiledMachine {
  variables: PolicyVariable[];
  validations: PolicyValidation[];
  /** Per change kind: enforced by the policy, or by the webhook alone and why. */
  kinds: KindCoverage[];
  unclassified: UnclassifiedCoverage;
}

/** Changes no change kind names: whether some state refuses them, and the fields whose changes the webhook alone refuses. */
export interface UnclassifiedCoverage {
  /** Without a state that refuses them, there is nothing to enforce. */
  judged: boolean;
  /** The policy compares some spec field for them (when judged). */
  compiled: boolean;
  /** The policy refuses the changes of every other spec field; `spec` when it refuses none. */
  webhookOnly: WebhookOnlyField[];
}

export type KindCoverage = { kind: string; enforcedBy: 'policy' } | { kind: string; enforcedBy: 'webhook'; reason: string };

// JavaScript's String.prototype.trim removes exactly these characters; an override whose reason is nothing but
// them is blank, for the webhook and the policy alike.
const blankPattern = '^[\\t-\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]*$';

export function compileMachine(machine: TransitionMachine<string, string>, hubSchema: JSONSchemaProps): CompiledMachine {
  const allKinds = Object.keys(machine.changeKinds);
  const judgesUnclassified = judgesUnclassifiedChanges(machine);
  if (!readsPhase(machine)) return webhookOnly(allKinds, stateReaderNotCompiled, judgesUnclassified);
  const phaseUnreadable = phaseProblem(machine, hubSchema);
  if (phaseUnreadable !== undefined) return webhookOnly(allKinds, phaseUnreadable, judgesUnclassified);
  const read = readVariables();
  const { sources, uncompiled } = compileClassifiers(machine, hubSchema, read.define);
  const sourcesOf = new Map(allKinds.map((kind) => [kind, sources.filter((source) => source.kind === kind)]));
  const kinds = allKinds.map((kind): KindCoverage => {
    const missing = uncompiled.find((entry) => entry.kinds.includes(kind));
    if (missing !== undefined) return { kind, enforcedBy: 'webhook', reason: missing.reason };
    if (sourcesOf.get(kind)!.length === 0) return { kind, enforcedBy: 'webhook', reason: 'no classifier reports it' };
    return { kind, enforcedBy: 'policy' };
  });

  const anyChangeStates = machine.states.filter((state) => machine.rules[state]?.anyChange);
  const variableNames = new Map(allKinds.map((kind, index) => [kind, kindVariable(kind, index, allKinds)]));
  const counted = allKinds.filter((kind) => sourcesOf.get(kind)!.length > 0);
  const reading = stateReading(machine, hubSchema);
  const isUpdate = eq(member(ident('request'), 'operation'), str('UPDATE'));
  const variables: PolicyVariable[] = [
    ...reading.variables,
    { name: 'judged', expression: (anyChangeStates.length === 0 ? isUpdate : and(isUpdate, not(isIn(state, celList(anyChangeStates))))).text },
    { name: 'overrideGiven', expression: overrideGivenExpression(machine.overrideAnnotation).text },
    { name: 'overrideKept', expression: overrideKeptExpression(machine.overrideAnnotation).text },
    { name: 'overriding', expression: and(overrideGiven, not(overrideKept)).text },
    ...read.variables,
    ...counted.map((kind) => ({ name: variableNames.get(kind)!, expression: plus(...sourcesOf.get(kind)!.map((source) => source.count)).text })),
  ];
  const judging: Judging = {
    machine,
    count: (kind) => variable(variableNames.get(kind)!),
    firstMessage: (kind, description) => {
      const own = sourcesOf.get(kind)!;
      return own.slice(0, -1).reduceRight((rest, source) => cond(gt(source.count, int(0)), source.message(description), rest), own.at(-1)!.message(description));
    },
    stateLabel: cond(isIn(state, celList(machine.states)), state, reading.unrecognisedLabel),
  };
  const validations = counted.map((kind) => kindValidation(judging, kind));
  const exclusive = counted.filter((kind) => machine.changeKinds[kind]?.exclusive && machine.changeKinds[kind]?.unsupported === undefined);
  if (exclusive.length > 0) validations.push(exclusiveValidation(judging, exclusive));
  if (!judgesUnclassified) return { variables, validations, kinds, unclassified: { judged: false, compiled: false, webhookOnly: [] } };
  const unclassified = compileUnclassified(hubSchema.properties?.spec, specCoverage(machine.classifiers));
  if (unclassified.changedField !== undefined) {
    variables.push({ name: 'unclassified_change', expression: unclassified.changedField.text });
    validations.push(unclassifiedValidation(judging, variable('unclassified_change')));
  }
  return { variables, validations, kinds, unclassified: { judged: true, compiled: unclassified.changedField !== undefined, webhookOnly: unclassified.webhookOnly } };
}

function compileClassifiers(machine: TransitionMachine<string, string>, hubSchema: JSONSchemaProps, define: (hint: string, expression: Cel) => Cel) {
  const sources: ChangeSource[] = [];
  const uncompiled: UncompiledKinds[] = [];
  for (const classifier of machine.classifiers) {
    const compiled = compileClassifier(classifier.form, classifier.kinds, {
      old: optionalMember(ident('oldObject'), 'spec'),
      new: optionalMember(ident('object'), 'spec'),
      schema: hubSchema.properties?.spec,
      field: str('spec'),
      depth: 0,
      define,
    });
    sources.push(...compiled.sources);
    uncompiled.push(...compiled.uncompiled);
  }
  return { sources, uncompiled };
}

/** What the validations of a machine's change kinds read. */
interface Judging {
  machine: TransitionMachine<string, string>;
  /** CEL int: how many changes of the kind the update carries. */
  count(kind: string): Cel;
  /** CEL string: the first change of the kind, described. */
  firstMessage(kind: string, description: string): Cel;
  /** CEL string completing "while the ... is ". */
  stateLabel: Cel;
}

const variable = (name: string): Cel => member(ident('variables'), name);
const state = variable('state');
const judged = variable('judged');
const overrideGiven = variable('overrideGiven');
const overrideKept = variable('overrideKept');
const overriding = variable('overriding');

function allowedWhere(states: readonly string[]): Cel | undefined {
  return states.length === 0 ? undefined : isIn(state, celList(states));
}

/** A kind's changes refused: always when unsupported, else unless the state allows them or the override is given. */
function kindValidation({ machine, count, firstMessage, stateLabel }: Judging, kind: string): PolicyValidation {
  const { description, unsupported } = machine.changeKinds[kind]!;
  const none = eq(count(kind), int(0));
  if (unsupported !== undefined) {
    return policyValidation(or(not(judged), none), concat(firstMessage(kind, description), str(` is unsupported: ${unsupported}`)), `${kind} is unsupported: ${unsupported}`);
  }
  const states = statesAllowing(machine, kind);
  const allowedIn = states.length > 0 ? states.join(', ') : 'none';
  return policyValidation(
    or(...[not(judged), none, overriding, allowedWhere(states)].filter((part) => part !== undefined)),
    concat(
      firstMessage(kind, description),
      str(` is not allowed while the ${machine.subject} is `),
      stateLabel,
      str(` (allowed in: ${allowedIn})`),
      cond(and(overrideGiven, overrideKept), str(staleOverrideNote(machine.overrideAnnotation)), str('')),
    ),
    `${kind} is not allowed in this state of the ${machine.subject} (allowed in: ${allowedIn})`,
  );
}

/** Only the exclusive changes that would pass count, as in judgeChanges: the override, or the state allowing them. */
function exclusiveValidation({ machine, count }: Judging, exclusive: readonly string[]): PolicyValidation {
  const passing = exclusive.map((kind) => {
    const where = allowedWhere(statesAllowing(machine, kind));
    return cond(where === undefined ? overriding : or(overriding, where), count(kind), int(0));
  });
  const k = ident('k');
  const named = method(
    method(list(exclusive.map((kind) => cond(gt(count(kind), int(0)), str(kind), str('')))), 'filter', k, ne(k, str(''))),
    'join',
    str(', '),
  );
  return policyValidation(
    or(not(judged), lt(plus(...passing), int(2))),
    concat(str('spec: '), named, str(' cannot be combined in one update; make these changes one at a time')),
    'exclusive changes cannot be combined in one update; make these changes one at a time',
  );
}

function webhookOnly(kinds: readonly string[], reason: string, judgesUnclassified: boolean): CompiledMachine {
  return {
    variables: [],
    validations: [],
    kinds: kinds.map((kind) => ({ kind, enforcedBy: 'webhook', reason })),
    unclassified: { judged: judgesUnclassified, compiled: false, webhookOnly: judgesUnclassified ? [{ field: 'spec', reason }] : [] },
  };
}

/** A machine that reads the state from the phase at phasePath: the only kind the policy can compile. */
type PhaseMachine = TransitionMachine<string, string> & { phasePath: string };

/**
 * As judgeUnclassified: a change no change kind names (`changedField`, the first such field, "" when none) is refused
 * where the state refuses it, and where it refuses it unless overridden, without the override; an unrecognised
 * phase reads as unclassifiedChangesInUnrecognisedPhase says.
 */
function unclassifiedValidation({ machine, stateLabel }: Judging, changedField: Cel): PolicyValidation {
  const where = (setting: UnclassifiedChanges): Cel => {
    const states = machine.states.filter((name) => unclassifiedChangesIn(machine, name) === setting);
    const inState = states.length === 0 ? celFalse : isIn(state, celList(states));
    return unclassifiedChangesInUnrecognisedPhase(machine) === setting ? or(inState, not(isIn(state, celList(machine.states)))) : inState;
  };
  const needs = `such changes need ${machine.overrideAnnotation} with a reason`;
  const during = (verdict: string) => concat(str(`: a change no change kind names is ${verdict} while the ${machine.subject} is `), stateLabel);
  return policyValidation(
    // The state first: where it allows them, the spec is not compared at all.
    or(not(judged), where('allowed'), and(overriding, where('refused-unless-overridden')), eq(changedField, str(''))),
    concat(
      changedField,
      cond(
        where('refused'),
        concat(during('refused'), str(' (such changes are refused there, override or not)')),
        concat(during('not allowed'), str(` (${needs})`), cond(and(overrideGiven, overrideKept), str(staleOverrideNote(machine.overrideAnnotation)), str(''))),
      ),
    ),
    `a change no change kind names is refused in this state of the ${machine.subject}`,
  );
}

/** Why no state reader of one's own compiles: the policy reads the phase as data or not at all. */
export const stateReaderNotCompiled =
  "the machine reads the state with readState, a function of its own, which the policy cannot run: it cannot tell which state an update is made in, so only the webhook judges the machine's changes";

function phaseProblem(machine: PhaseMachine, hubSchema: JSONSchemaProps): string | undefined {
  const segments = machine.phasePath.split('.');
  if (!segments.every(isPlainFieldName)) return `the phase path "${machine.phasePath}" has a field name CEL cannot write plainly`;
  const phase = schemaAt(hubSchema, segments);
  if (phase?.type !== 'string') return `the phase path "${machine.phasePath}" is not a string field of the hub schema`;
  return undefined;
}

interface StateReadingCel {
  /** `state` (a state's name, or for an unrecognised phase the phase or ""), and what it is computed from. */
  variables: PolicyVariable[];
  /** CEL string completing "while the ... is " for an unrecognised phase. */
  unrecognisedLabel: Cel;
}

/**
 * As readState: deleting once a deletion has started, the initial state while no phase is recorded, else the phase.
 * A phase the hub schema bounds (maxLength, enum) and the machine reads as a state's own name is the state itself.
 * Otherwise the phase is only ever compared with the literal phase strings of the machine's table (its phases, or
 * the states' names): cel-go costs a comparison at its shorter side, so an operator's CRD that bounds nothing (one
 * crdgate does not own, and cannot add a maxLength to) still compiles. An unrecognised phase is then "", and the
 * message does not quote it, since its length, and so the cost of quoting it, is unbounded.
 */
function stateReading(machine: PhaseMachine, hubSchema: JSONSchemaProps): StateReadingCel {
  const phasePath = machine.phasePath.split('.');
  const phase = method(optionalField(ident('oldObject'), phasePath), 'orValue', str(''));
  const deleting = method(optionalMember(member(ident('oldObject'), 'metadata'), 'deletionTimestamp'), 'hasValue');
  const deletingOr = (rest: Cel) => cond(deleting, str(machine.deletingState), rest);
  const schema = schemaAt(hubSchema, phasePath);
  const bounded = schema?.maxLength !== undefined || schema?.enum !== undefined;
  const quoted = (value: Cel) => concat(str('in the unrecognised phase "'), value, str('"'));
  if (bounded && machine.phases === undefined) {
    return { variables: [{ name: 'state', expression: deletingOr(cond(eq(phase, str('')), str(machine.initialState), phase)).text }], unrecognisedLabel: quoted(state) };
  }
  const table: [string, string][] = machine.phases === undefined ? machine.states.map((name) => [name, name]) : Object.entries(machine.phases);
  const phaseVariable = variable('phase');
  const lookup = table.reduceRight<Cel>((rest, [written, name]) => cond(eq(phaseVariable, str(written)), str(name), rest), str(''));
  return {
    variables: [
      { name: 'phase', expression: phase.text },
      { name: 'state', expression: deletingOr(cond(eq(phaseVariable, str('')), str(machine.initialState), lookup)).text },
    ],
    unrecognisedLabel: bounded ? quoted(phaseVariable) : str('in a phase the machine does not know'),
  };
}

/** As readOverride: the annotation on the new object, with a reason that is not blank. */
function overrideGivenExpression(annotation: string): Cel {
  return not(method(method(overrideValue('object', annotation), 'orValue', str('')), 'matches', str(blankPattern)));
}

/** As readOverride: the old object carried the same value already (stale: it authorised the write that set it). */
function overrideKeptExpression(annotation: string): Cel {
  return eq(overrideValue('oldObject', annotation), overrideValue('object', annotation));
}

/** The annotation's value on one side, as a CEL optional. */
function overrideValue(side: 'object' | 'oldObject', annotation: string): Cel {
  return optionalIndex(optionalMember(member(ident(side), 'metadata'), 'annotations'), str(annotation));
}

/** The spec's values the classifiers read, each a variable read once per request, in the order first needed. */
function readVariables(): { variables: PolicyVariable[]; define: (hint: string, expression: Cel) => Cel } {
  const variables: PolicyVariable[] = [];
  const byExpression = new Map<string, string>();
  return {
    variables,
    define(hint, expression) {
      const known = byExpression.get(expression.text);
      if (known !== undefined) return variable(known);
      const base = `spec_${hint.replace(/[^A-Za-z0-9]/g, '_')}`;
      let name = base;
      for (let index = 2; variables.some((defined) => defined.name === name); index++) name = `${base}_${index}`;
      variables.push({ name, expression: expression.text });
      byExpression.set(expression.text, name);
      return variable(name);
    },
  };
}

function kindVariable(kind: string, index: number, kinds: readonly string[]): string {
  const plain = `changes_${kind.replace(/[^A-Za-z0-9]/g, '_')}`;
  const clashes = kinds.some((other, otherIndex) => otherIndex !== index && `changes_${other.replace(/[^A-Za-z0-9]/g, '_')}` === plain);
  return clashes ? `${plain}_${index}` : plain;
}

function celList(values: readonly string[]): Cel {
  return list(values.map(str));
}
