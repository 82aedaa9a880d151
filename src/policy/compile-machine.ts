import { statesAllowing } from '../contract/fsa/evaluate/judge-changes.ts';
import { overrideOnlyWords, staleOverrideNote } from '../contract/fsa/evaluate/transition-messages.ts';
import type { Fsa, UnclassifiedChanges } from '../contract/fsa/machine.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import {
  and,
  celFalse,
  celTrue,
  concat,
  cond,
  eq,
  gt,
  ident,
  int,
  isIn,
  list,
  lt,
  member,
  method,
  ne,
  not,
  optionalIndex,
  optionalMember,
  or,
  plus,
  str,
  type Cel,
} from './cel.ts';
import { compileClassifier, type ChangeSource, type UncompiledKinds } from './compile-classifiers.ts';
import { compileUnclassified, type WebhookOnlyField } from './compile-unclassified.ts';
import { compileStateReading, type StateCoverage, type StateReadingCel } from './compile-state-reading.ts';
import { specCoverage } from '../contract/fsa/spec-coverage.ts';
import {
  judgesUnclassifiedChanges,
  unclassifiedChangesIn,
  unclassifiedChangesInUnrecognisedPhase,
} from '../contract/fsa/unclassified-setting.ts';
import { policyValidation, type PolicyValidation, type PolicyVariable } from './policy-parts.ts';

// The FSA as CEL, judged as evaluateTransition judges an update: the state read from the old
// object, each change kind counted, unsupported changes refused, changes the state does not allow refused unless
// the override annotation gives a reason, and two exclusive changes that would pass refused together. Where the
// policy does not read the state (compile-state-reading.ts), each validation refuses only what every state refuses.

export interface CompiledMachine {
  variables: PolicyVariable[];
  validations: PolicyValidation[];
  /** How the policy reads the state an update starts from, if it can. */
  state: StateCoverage;
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

export type KindCoverage =
  { kind: string; enforcedBy: 'policy' } | { kind: string; enforcedBy: 'webhook'; reason: string };

// JavaScript's String.prototype.trim removes exactly these characters; an override whose reason is nothing but
// them is blank, for the webhook and the policy alike.
const blankPattern =
  '^[\\t-\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]*$';

export function compileMachine(machine: Fsa<string, string>, hubSchema: JSONSchemaProps): CompiledMachine {
  const allKinds = Object.keys(machine.changeKinds);
  const reading = compileStateReading(machine, hubSchema);
  const read = readVariables();
  const { sources, uncompiled } = compileClassifiers(machine, hubSchema, read.define);
  const sourcesOf = new Map(allKinds.map((kind) => [kind, sources.filter((source) => source.kind === kind)]));
  const anyChangeStates = machine.states.filter((state) => machine.rules[state]?.anyChange);
  const everywhere = refusedInEveryState(machine, anyChangeStates);
  const kinds = allKinds.map((kind): KindCoverage => {
    const missing = uncompiled.find((entry) => entry.kinds.includes(kind));
    if (missing !== undefined) return { kind, enforcedBy: 'webhook', reason: missing.reason };
    if (sourcesOf.get(kind)!.length === 0) return { kind, enforcedBy: 'webhook', reason: 'no classifier reports it' };
    if (reading.coverage.readBy === 'none' && !everywhere.kind(kind))
      return { kind, enforcedBy: 'webhook', reason: stateDependent(machine, kind) };
    return { kind, enforcedBy: 'policy' };
  });

  const variableNames = new Map(allKinds.map((kind, index) => [kind, kindVariable(kind, index, allKinds)]));
  const counted = allKinds.filter((kind) => sourcesOf.get(kind)!.length > 0);
  const variables: PolicyVariable[] = [
    ...reading.variables,
    {
      name: 'judged',
      expression: (anyChangeStates.length === 0 ? isUpdate : and(isUpdate, not(isIn(state, celList(anyChangeStates)))))
        .text,
    },
    { name: 'overrideGiven', expression: overrideGivenExpression(machine.overrideAnnotation).text },
    { name: 'overrideKept', expression: overrideKeptExpression(machine.overrideAnnotation).text },
    { name: 'overriding', expression: and(overrideGiven, not(overrideKept)).text },
    ...read.variables,
    ...counted.map((kind) => ({
      name: variableNames.get(kind)!,
      expression: plus(...sourcesOf.get(kind)!.map((source) => source.count)).text,
    })),
  ];
  const judging: Judging = {
    machine,
    count: (kind) => variable(variableNames.get(kind)!),
    firstMessage: (kind, description) => {
      const own = sourcesOf.get(kind)!;
      return own
        .slice(0, -1)
        .reduceRight(
          (rest, source) => cond(gt(source.count, int(0)), source.message(description), rest),
          own.at(-1)!.message(description),
        );
    },
    stateLabel: cond(
      isIn(state, celList(machine.states)),
      state,
      reading.unread === undefined
        ? reading.unrecognisedLabel
        : cond(reading.unread.known, reading.unrecognisedLabel, reading.unread.label),
    ),
    reading,
    everywhere,
  };
  const validations = counted.map((kind) => kindValidation(judging, kind));
  const exclusive = counted.filter(
    (kind) => machine.changeKinds[kind]?.exclusive && machine.changeKinds[kind]?.unsupported === undefined,
  );
  if (exclusive.length > 0) validations.push(exclusiveValidation(judging, exclusive));
  const result = { variables, validations, state: reading.coverage, kinds };
  if (!judgesUnclassifiedChanges(machine))
    return { ...result, unclassified: { judged: false, compiled: false, webhookOnly: [] } };
  // Where the policy cannot read the state, it compares the spec only if every state decides alike.
  if (reading.coverage.readBy === 'none' && everywhere.unclassified === undefined) {
    return {
      ...result,
      unclassified: {
        judged: true,
        compiled: false,
        webhookOnly: [
          { field: 'spec', reason: 'states decide them differently, and the policy does not read the state' },
        ],
      },
    };
  }
  const unclassified = compileUnclassified(hubSchema.properties?.spec, specCoverage(machine.classifiers));
  if (unclassified.changedField !== undefined) {
    variables.push({ name: 'unclassified_change', expression: unclassified.changedField.text });
    validations.push(unclassifiedValidation(judging, variable('unclassified_change')));
  }
  return {
    ...result,
    unclassified: {
      judged: true,
      compiled: unclassified.changedField !== undefined,
      webhookOnly: unclassified.webhookOnly,
    },
  };
}

/** What the webhook refuses whatever state an update starts from: in every state and in an unrecognised one. */
interface RefusedEverywhere {
  /** A change of the kind, on its own. */
  kind(kind: string): boolean;
  /** Two exclusive changes in one update: each is refused where the state does not allow it, and together where it does. */
  exclusive: boolean;
  /** The one setting for changes no change kind names in every state and an unrecognised phase, if they share one. */
  unclassified?: UnclassifiedChanges;
}

/**
 * A state that allows any change allows everything; without one, unsupported changes are refused everywhere, and so
 * are override-only ones without the override (which reads no state).
 */
function refusedInEveryState(machine: Fsa<string, string>, anyChangeStates: readonly string[]): RefusedEverywhere {
  const settings = new Set([
    ...machine.states.map((name) => unclassifiedChangesIn(machine, name)),
    unclassifiedChangesInUnrecognisedPhase(machine),
  ]);
  return {
    kind: (kind) => anyChangeStates.length === 0 && allowedNowhere(machine, kind),
    exclusive: anyChangeStates.length === 0,
    ...(settings.size === 1 ? { unclassified: [...settings][0]! } : {}),
  };
}

/** An unsupported or override-only kind: no state's rule allows it. */
function allowedNowhere(machine: Fsa<string, string>, kind: string): boolean {
  const definition = machine.changeKinds[kind];
  return definition?.unsupported !== undefined || definition?.overrideOnly !== undefined;
}

/** Why a kind the state decides is the webhook's where the policy does not read the state (the coverage says why not). */
function stateDependent(machine: Fsa<string, string>, kind: string): string {
  const where = allowedNowhere(machine, kind)
    ? `where any change is (${machine.states.filter((name) => machine.rules[name]?.anyChange).join(', ')})`
    : `in ${statesAllowing(machine, kind).join(', ')}`;
  return `it is allowed ${where}, and the policy does not read the state: it refuses it only once a deletion has started (${machine.deletingState})`;
}

const isUpdate = eq(member(ident('request'), 'operation'), str('UPDATE'));

function compileClassifiers(
  machine: Fsa<string, string>,
  hubSchema: JSONSchemaProps,
  define: (hint: string, expression: Cel) => Cel,
) {
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
  machine: Fsa<string, string>;
  /** CEL int: how many changes of the kind the update carries. */
  count(kind: string): Cel;
  /** CEL string: the first change of the kind, described. */
  firstMessage(kind: string, description: string): Cel;
  /** CEL string completing "while the ... is ". */
  stateLabel: Cel;
  reading: StateReadingCel;
  everywhere: RefusedEverywhere;
}

/**
 * A validation that holds where the policy read the state as `definite` says, and elsewhere as `unknown` (what
 * every state decides alike); `unknown` true when some state lets everything through.
 */
function byReading(reading: StateReadingCel, definite: Cel, unknown: Cel): Cel {
  if (reading.unread === undefined) return definite;
  if (unknown === celTrue) return or(not(reading.unread.known), definite);
  return cond(reading.unread.known, definite, unknown);
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

/**
 * A kind's changes refused: always when unsupported, unless the override is given when override-only, else unless
 * the state allows them or the override is given.
 */
function kindValidation(
  { machine, count, firstMessage, stateLabel, reading, everywhere }: Judging,
  kind: string,
): PolicyValidation {
  const { description, unsupported } = machine.changeKinds[kind]!;
  const none = eq(count(kind), int(0));
  if (unsupported !== undefined) {
    // Without a state that allows any change, `judged` is every update, whether the policy read the state or not.
    const refused = everywhere.kind(kind) ? or(not(judged), none) : byReading(reading, or(not(judged), none), celTrue);
    return policyValidation(
      refused,
      concat(firstMessage(kind, description), str(` is unsupported: ${unsupported}`)),
      `${kind} is unsupported: ${unsupported}`,
    );
  }
  const staleNote = cond(and(overrideGiven, overrideKept), str(staleOverrideNote(machine.overrideAnnotation)), str(''));
  const { overrideOnly } = machine.changeKinds[kind]!;
  if (overrideOnly !== undefined) {
    // No state allows it: the override alone lets it through, so the state matters only where any change is.
    const passes = or(not(judged), none, overriding);
    return policyValidation(
      everywhere.kind(kind) ? passes : byReading(reading, passes, celTrue),
      concat(
        firstMessage(kind, description),
        str(overrideOnlyWords(machine.overrideAnnotation, overrideOnly)),
        staleNote,
      ),
      `${kind} needs a person's reason in every state: ${overrideOnly}`,
    );
  }
  const states = statesAllowing(machine, kind);
  const allowedIn = states.length > 0 ? states.join(', ') : 'none';
  return policyValidation(
    byReading(
      reading,
      or(...[not(judged), none, overriding, allowedWhere(states)].filter((part) => part !== undefined)),
      celTrue,
    ),
    concat(
      firstMessage(kind, description),
      str(` is not allowed while the ${machine.subject} is `),
      stateLabel,
      str(` (allowed in: ${allowedIn})`),
      staleNote,
    ),
    `${kind} is not allowed in this state of the ${machine.subject} (allowed in: ${allowedIn})`,
  );
}

/** Only the exclusive changes that would pass count, as in judgeChanges: the override, or the state allowing them. */
function exclusiveValidation(
  { machine, count, reading, everywhere }: Judging,
  exclusive: readonly string[],
): PolicyValidation {
  const passing = exclusive.map((kind) => {
    const where = allowedWhere(statesAllowing(machine, kind));
    return cond(where === undefined ? overriding : or(overriding, where), count(kind), int(0));
  });
  const k = ident('k');
  const named = method(
    method(
      list(exclusive.map((kind) => cond(gt(count(kind), int(0)), str(kind), str('')))),
      'filter',
      k,
      ne(k, str('')),
    ),
    'join',
    str(', '),
  );
  // Where the policy did not read the state, two exclusive changes are refused in every state all the same (and
  // without a state that allows any change, `judged` is every update).
  const unknown = everywhere.exclusive ? or(not(judged), lt(plus(...exclusive.map(count)), int(2))) : celTrue;
  return policyValidation(
    byReading(reading, or(not(judged), lt(plus(...passing), int(2))), unknown),
    concat(str('spec: '), named, str(' cannot be combined in one update; make these changes one at a time')),
    'exclusive changes cannot be combined in one update; make these changes one at a time',
  );
}

/**
 * As judgeUnclassified: a change no change kind names (`changedField`, the first such field, "" when none) is refused
 * where the state refuses it, and where it refuses it unless overridden, without the override; an unrecognised
 * phase reads as unclassifiedChangesInUnrecognisedPhase says.
 */
function unclassifiedValidation(
  { machine, stateLabel, reading, everywhere }: Judging,
  changedField: Cel,
): PolicyValidation {
  const where = (setting: UnclassifiedChanges): Cel => {
    const states = machine.states.filter((name) => unclassifiedChangesIn(machine, name) === setting);
    const inState = states.length === 0 ? celFalse : isIn(state, celList(states));
    return unclassifiedChangesInUnrecognisedPhase(machine) === setting
      ? or(inState, not(isIn(state, celList(machine.states))))
      : inState;
  };
  const needs = `such changes need ${machine.overrideAnnotation} with a reason`;
  const during = (verdict: string) =>
    concat(str(`: a change no change kind names is ${verdict} while the ${machine.subject} is `), stateLabel);
  // The state first: where it allows them, the spec is not compared at all.
  const definite = or(
    not(judged),
    where('allowed'),
    and(overriding, where('refused-unless-overridden')),
    eq(changedField, str('')),
  );
  return policyValidation(
    // Where every state decides alike, a state the policy did not read ("") decides as an unrecognised one, which is alike too.
    everywhere.unclassified === undefined ? byReading(reading, definite, celTrue) : definite,
    concat(
      changedField,
      cond(
        where('refused'),
        concat(during('refused'), str(' (such changes are refused there, override or not)')),
        concat(
          during('not allowed'),
          str(` (${needs})`),
          cond(and(overrideGiven, overrideKept), str(staleOverrideNote(machine.overrideAnnotation)), str('')),
        ),
      ),
    ),
    `a change no change kind names is refused in this state of the ${machine.subject}`,
  );
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
  const clashes = kinds.some(
    (other, otherIndex) => otherIndex !== index && `changes_${other.replace(/[^A-Za-z0-9]/g, '_')}` === plain,
  );
  return clashes ? `${plain}_${index}` : plain;
}

function celList(values: readonly string[]): Cel {
  return list(values.map(str));
}
