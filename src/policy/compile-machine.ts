import { statesAllowing } from '../contract/fsa/evaluate/judge-changes.ts';
import type { TransitionMachine } from '../contract/fsa/machine.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { celString, isPlainFieldName, optionalField } from './cel.ts';
import { compileClassifier, concat, schemaAt, type ChangeSource, type UncompiledKinds } from './compile-classifiers.ts';
import { policyValidation, type PolicyValidation, type PolicyVariable } from './policy-parts.ts';

// The transition machine as CEL, judged as evaluateTransition judges an update: the state read from the old
// object, each change kind counted, unsupported changes refused, changes the state does not allow refused unless
// the override annotation gives a reason, and two exclusive changes that would pass refused together.

export interface CompiledMachine {
  variables: PolicyVariable[];
  validations: PolicyValidation[];
  /** Per change kind: enforced by the policy, or by the webhook alone and why. */
  kinds: KindCoverage[];
}

export type KindCoverage = { kind: string; enforcedBy: 'policy' } | { kind: string; enforcedBy: 'webhook'; reason: string };

// JavaScript's String.prototype.trim removes exactly these characters; an override whose reason is nothing but
// them is blank, for the webhook and the policy alike.
const blankPattern = '^[\\t-\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}]*$';

export function compileMachine(machine: TransitionMachine<string, string>, hubSchema: JSONSchemaProps): CompiledMachine {
  const allKinds = Object.keys(machine.changeKinds);
  const machineProblem = machine.readState !== undefined ? stateReaderNotCompiled : phaseProblem(machine, hubSchema);
  if (machineProblem !== undefined) {
    return { variables: [], validations: [], kinds: allKinds.map((kind) => ({ kind, enforcedBy: 'webhook', reason: machineProblem })) };
  }
  const sources: ChangeSource[] = [];
  const uncompiled: UncompiledKinds[] = [];
  const read = readVariables();
  for (const classifier of machine.classifiers) {
    const compiled = compileClassifier(classifier.form, classifier.kinds, {
      old: 'oldObject.?spec',
      new: 'object.?spec',
      schema: hubSchema.properties?.spec,
      field: celString('spec'),
      depth: 0,
      define: read.define,
    });
    sources.push(...compiled.sources);
    uncompiled.push(...compiled.uncompiled);
  }
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
  const variables: PolicyVariable[] = [
    ...reading.variables,
    {
      name: 'judged',
      expression: anyChangeStates.length === 0 ? `request.operation == "UPDATE"` : `request.operation == "UPDATE" && !(variables.state in ${celList(anyChangeStates)})`,
    },
    { name: 'overriding', expression: overrideExpression(machine.overrideAnnotation) },
    ...read.variables,
    ...counted.map((kind) => ({
      name: variableNames.get(kind)!,
      expression: sourcesOf.get(kind)!.map((source) => source.count).join(' + '),
    })),
  ];
  const stateLabel = `(variables.state in ${celList(machine.states)} ? variables.state : ${reading.unrecognisedLabel})`;
  const count = (kind: string) => `variables.${variableNames.get(kind)!}`;
  const firstMessage = (kind: string, description: string) => {
    const own = sourcesOf.get(kind)!;
    return own.slice(0, -1).reduceRight((rest, source) => `(${source.count} > 0 ? ${source.message(description)} : ${rest})`, own.at(-1)!.message(description));
  };
  const allowedWhere = (states: readonly string[]) => (states.length === 0 ? undefined : `variables.state in ${celList(states)}`);

  const validations: PolicyValidation[] = counted.map((kind) => {
    const { description, unsupported } = machine.changeKinds[kind]!;
    if (unsupported !== undefined) {
      return policyValidation(
        `!variables.judged || ${count(kind)} == 0`,
        concat(firstMessage(kind, description), celString(` is unsupported: ${unsupported}`)),
        `${kind} is unsupported: ${unsupported}`,
      );
    }
    const states = statesAllowing(machine, kind);
    const allowedIn = states.length > 0 ? states.join(', ') : 'none';
    return policyValidation(
      [`!variables.judged`, `${count(kind)} == 0`, 'variables.overriding', allowedWhere(states)].filter((part) => part !== undefined).join(' || '),
      concat(firstMessage(kind, description), celString(` is not allowed while the ${machine.subject} is `), stateLabel, celString(` (allowed in: ${allowedIn})`)),
      `${kind} is not allowed in this state of the ${machine.subject} (allowed in: ${allowedIn})`,
    );
  });

  const exclusive = counted.filter((kind) => machine.changeKinds[kind]?.exclusive && machine.changeKinds[kind]?.unsupported === undefined);
  if (exclusive.length > 0) {
    // Only the exclusive changes that would pass count, as in judgeChanges: the override, or the state allowing them.
    const passing = exclusive.map((kind) => {
      const where = allowedWhere(statesAllowing(machine, kind));
      return `((variables.overriding${where === undefined ? '' : ` || ${where}`}) ? ${count(kind)} : 0)`;
    });
    const named = `[${exclusive.map((kind) => `${count(kind)} > 0 ? ${celString(kind)} : ""`).join(', ')}].filter(k, k != "").join(", ")`;
    validations.push(
      policyValidation(
        `!variables.judged || ${passing.join(' + ')} < 2`,
        concat(celString('spec: '), named, celString(' cannot be combined in one update; make these changes one at a time')),
        'exclusive changes cannot be combined in one update; make these changes one at a time',
      ),
    );
  }
  return { variables, validations, kinds };
}

/** Why no state reader of one's own compiles: the policy reads the phase as data or not at all. */
export const stateReaderNotCompiled =
  "the machine reads the state with readState, a function of its own, which the policy cannot run: it cannot tell which state an update is made in, so only the webhook judges the machine's changes";

function phaseProblem(machine: TransitionMachine<string, string>, hubSchema: JSONSchemaProps): string | undefined {
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
  unrecognisedLabel: string;
}

/**
 * As readState: deleting once a deletion has started, the initial state while no phase is recorded, else the phase.
 * A phase the hub schema bounds (maxLength, enum) and the machine reads as a state's own name is the state itself.
 * Otherwise the phase is only ever compared with the literal phase strings of the machine's table (its phases, or
 * the states' names): cel-go costs a comparison at its shorter side, so an operator's CRD that bounds nothing (one
 * crdgate does not own, and cannot add a maxLength to) still compiles. An unrecognised phase is then "", and the
 * message does not quote it, since its length, and so the cost of quoting it, is unbounded.
 */
function stateReading(machine: TransitionMachine<string, string>, hubSchema: JSONSchemaProps): StateReadingCel {
  const phase = `${optionalField('oldObject', machine.phasePath.split('.'))}.orValue("")`;
  const deletingOr = (rest: string) => `oldObject.metadata.?deletionTimestamp.hasValue() ? ${celString(machine.deletingState)} : (${rest})`;
  const schema = schemaAt(hubSchema, machine.phasePath.split('.'));
  const bounded = schema?.maxLength !== undefined || schema?.enum !== undefined;
  const quoted = (value: string) => concat(celString('in the unrecognised phase "'), value, celString('"'));
  if (bounded && machine.phases === undefined) {
    return { variables: [{ name: 'state', expression: deletingOr(`${phase} == "" ? ${celString(machine.initialState)} : ${phase}`) }], unrecognisedLabel: quoted('variables.state') };
  }
  const table: [string, string][] = machine.phases === undefined ? machine.states.map((state) => [state, state]) : Object.entries(machine.phases);
  const lookup = table.reduceRight((rest, [written, state]) => `(variables.phase == ${celString(written)} ? ${celString(state)} : ${rest})`, '""');
  return {
    variables: [
      { name: 'phase', expression: phase },
      { name: 'state', expression: deletingOr(`variables.phase == "" ? ${celString(machine.initialState)} : ${lookup}`) },
    ],
    unrecognisedLabel: bounded ? quoted('variables.phase') : celString('in a phase the machine does not know'),
  };
}

/** As readOverride: the annotation on the new object, with a reason that is not blank. */
function overrideExpression(annotation: string): string {
  return `!object.metadata.?annotations[?${celString(annotation)}].orValue("").matches(${celString(blankPattern)})`;
}

/** The spec's values the classifiers read, each a variable read once per request, in the order first needed. */
function readVariables(): { variables: PolicyVariable[]; define: (hint: string, expression: string) => string } {
  const variables: PolicyVariable[] = [];
  const byExpression = new Map<string, string>();
  return {
    variables,
    define(hint, expression) {
      const known = byExpression.get(expression);
      if (known !== undefined) return `variables.${known}`;
      const base = `spec_${hint.replace(/[^A-Za-z0-9]/g, '_')}`;
      let name = base;
      for (let index = 2; variables.some((variable) => variable.name === name); index++) name = `${base}_${index}`;
      variables.push({ name, expression });
      byExpression.set(expression, name);
      return `variables.${name}`;
    },
  };
}

function kindVariable(kind: string, index: number, kinds: readonly string[]): string {
  const plain = `changes_${kind.replace(/[^A-Za-z0-9]/g, '_')}`;
  const clashes = kinds.some((other, otherIndex) => otherIndex !== index && `changes_${other.replace(/[^A-Za-z0-9]/g, '_')}` === plain);
  return clashes ? `${plain}_${index}` : plain;
}

function celList(values: readonly string[]): string {
  return `[${values.map(celString).join(', ')}]`;
}
