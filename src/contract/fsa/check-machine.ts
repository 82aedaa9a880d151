import { isDns1123Subdomain } from '../values/dns-names.ts';
import { exitsOf, machineEdges } from './machine-graph.ts';
import type { ClassifierTarget } from './classifier-form.ts';
import type { ConditionStateRule, StatusTest, Fsa } from './machine.ts';
import { machineShapeProblems } from './machine-shape.ts';
import { changePlaceholders } from './machine.ts';

// Names end up as Mermaid and DOT identifiers and in messages, so they follow Kubernetes' conventions:
// UpperCamelCase phases, dotted lowercase change kinds.
const stateName = /^[A-Z][A-Za-z0-9]*$/;
const changeKindName = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$/;
// The name part of a qualified name (apimachinery's IsQualifiedName); the prefix is a DNS-1123 subdomain.
const qualifiedNamePart = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

/**
 * What is wrong with a machine, as sentences; empty when nothing is. Types catch most slips, but not a state
 * nobody can reach, a state with no way out, or a change kind no classifier reports, and a machine may come from
 * a user's contract module compiled by anything: its options' shape is checked first, and only a machine whose
 * every option has its type is checked further. The server refuses to start on any problem.
 */
export function checkMachine<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const shape = machineShapeProblems(machine, { path: [], whole: 'the machine' });
  if (shape.length > 0) return shape;
  return [
    ...stateProblems(machine),
    ...changeKindProblems(machine),
    ...ruleProblems(machine),
    ...classifierProblems(machine),
    ...absentMeansProblems(machine),
    ...unclassifiedChangesProblems(machine),
    ...reachabilityProblems(machine),
    ...exitProblems(machine),
    ...overrideAnnotationProblems(machine),
  ];
}

function stateProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const problems: string[] = [];
  const known = new Set<string>(machine.states);
  if (machine.states.length === 0) problems.push('the machine has no states');
  if (known.size !== machine.states.length) problems.push(`state names repeat: ${machine.states.join(', ')}`);
  for (const state of machine.states) {
    if (!stateName.test(state)) problems.push(`state "${state}" must be UpperCamelCase, like a Kubernetes phase`);
  }
  const roles: [string, readonly string[]][] = [
    ['initial state', [machine.initialState]],
    ['deleting state', [machine.deletingState]],
    ['steady state', machine.steadyState === undefined ? [] : [machine.steadyState]],
    ['terminal state', machine.terminalStates],
    ['human-intervention state', machine.humanInterventionStates],
  ];
  for (const [role, states] of roles) {
    for (const state of states) if (!known.has(state)) problems.push(`${role} ${state} is not one of the states`);
  }
  const steady = machine.steadyState;
  if (steady !== undefined && (steady === machine.deletingState || machine.terminalStates.includes(steady))) {
    problems.push(
      `steady state ${steady} is where an object goes away: name the state an existing object normally is in`,
    );
  }
  problems.push(...stateReadingProblems(machine));
  return problems;
}

/**
 * The state is read one way: the phase at phasePath (through the operator's phase strings, each naming a state,
 * when there is a table), the conditionStates rules, or a state reader of one's own.
 */
function stateReadingProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const problems: string[] = [];
  if (machine.phasePath !== undefined && machine.phasePath.trim() === '')
    problems.push("phasePath is empty: the machine cannot read an object's state");
  const readers = (['phasePath', 'phases', 'conditionStates', 'readState'] as const).filter(
    (option) => machine[option] !== undefined,
  );
  for (const [index, option] of readers.entries()) {
    for (const other of readers.slice(index + 1)) {
      if (option !== 'phasePath' || other !== 'phases')
        problems.push(`${option} and ${other} both read the state: give one`);
    }
  }
  if (machine.conditionStates !== undefined)
    problems.push(...conditionStatesProblems(machine, machine.conditionStates));
  if (machine.phases === undefined) return problems;
  const known = new Set<string>(machine.states);
  const entries = Object.entries(machine.phases) as [string, string][];
  if (entries.length === 0)
    problems.push('phases is empty: list the phase strings the operator writes, each with its state');
  for (const [phase, state] of entries) {
    if (phase === '') problems.push('phases maps "", which means no phase recorded yet (the initial state)');
    if (!known.has(state))
      problems.push(`phases maps ${JSON.stringify(phase)} to ${state}, which is not one of the states`);
  }
  return problems;
}

/** Each rule names a state or says nothing is recorded yet, and each test is one of the three and can hold. */
function conditionStatesProblems<S extends string, C extends string>(
  machine: Fsa<S, C>,
  rules: readonly ConditionStateRule<S>[],
): string[] {
  const problems: string[] = [];
  if (rules.length === 0)
    problems.push('conditionStates is empty: give the rules that read the state from the conditions');
  const alwaysHolds = rules.findIndex((rule) => rule.when.length === 0);
  rules.forEach((rule, index) => {
    const place = `conditionStates[${index}]`;
    if ((rule.state === undefined) === (rule.nothingRecorded === undefined))
      problems.push(
        `${place} must give a state or nothingRecorded: true, not ${rule.state === undefined ? 'neither' : 'both'}`,
      );
    if (rule.state !== undefined && !machine.states.includes(rule.state))
      problems.push(`${place} names ${rule.state}, which is not one of the states`);
    if (alwaysHolds >= 0 && index > alwaysHolds)
      problems.push(
        `${place} never applies: conditionStates[${alwaysHolds}] before it has no tests, so it always holds`,
      );
    rule.when.forEach((test, testIndex) => problems.push(...statusTestProblems(test, `${place}.when[${testIndex}]`)));
  });
  return problems;
}

function statusTestProblems(test: StatusTest, place: string): string[] {
  const fields = test as {
    condition?: string;
    status?: string;
    reason?: string;
    absent?: true;
    observedGeneration?: string;
  };
  if ((fields.condition === undefined) === (fields.observedGeneration === undefined)) {
    return [
      `${place} must test a condition or the observedGeneration, not ${fields.condition === undefined ? 'neither' : 'both'}`,
    ];
  }
  if (fields.condition === undefined) {
    return fields.status !== undefined || fields.reason !== undefined || fields.absent !== undefined
      ? [`${place} tests the observedGeneration, which has no status, reason or absent`]
      : [];
  }
  const problems: string[] = [];
  // An empty string is what a missing field reads as in CEL: a test for one could never mean the same twice.
  for (const key of ['condition', 'status', 'reason'] as const) {
    if (fields[key] === '') problems.push(`${place}.${key} is empty: conditions always carry one, so name it`);
  }
  if (fields.absent && (fields.status !== undefined || fields.reason !== undefined))
    problems.push(`${place} tests that no ${fields.condition} condition exists, so it has no status or reason to test`);
  return problems;
}

function changeKindProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const problems: string[] = [];
  for (const [kind, definition] of kindEntries(machine)) {
    if (!changeKindName.test(kind)) problems.push(`change kind "${kind}" must be dotted lowercase, like storage.grow`);
    for (const [, placeholder] of definition.description.matchAll(/\{([^}]*)\}/g)) {
      if (!(changePlaceholders as readonly string[]).includes(placeholder ?? '')) {
        problems.push(
          `change kind ${kind}: its description uses {${placeholder}}, but only ${changePlaceholders.map((p) => `{${p}}`).join(', ')} exist`,
        );
      }
    }
    if (definition.unsupported !== undefined && definition.unsupported.trim() === '') {
      problems.push(`change kind ${kind} is unsupported without a reason`);
    }
    if (definition.overrideOnly !== undefined && definition.overrideOnly.trim() === '') {
      problems.push(`change kind ${kind} is override-only without a reason`);
    }
    if (definition.unsupported !== undefined && definition.overrideOnly !== undefined) {
      problems.push(
        `change kind ${kind} is both unsupported and override-only: an unsupported change no override lets through, so give one`,
      );
    }
    const allowedSomewhere = machine.states.some((state) =>
      machine.rules[state]?.allow?.some((group) => group.changes.includes(kind)),
    );
    // An override-only kind is allowed nowhere by design: a person's reason lets it through in any state.
    if (definition.unsupported === undefined && definition.overrideOnly === undefined && !allowedSomewhere) {
      problems.push(
        `change kind ${kind} is supported, but no state allows it: allow it somewhere, mark it override-only (every change of it needs a person's reason) or mark it unsupported`,
      );
    }
  }
  return problems;
}

function ruleProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const problems: string[] = [];
  const states = new Set<string>(machine.states);
  for (const state of machine.states)
    if (machine.rules[state] === undefined) problems.push(`state ${state} has no rule`);
  for (const [state, rule] of Object.entries(machine.rules) as [string, (typeof machine.rules)[S] | undefined][]) {
    if (rule === undefined) continue;
    if (!states.has(state)) {
      problems.push(`there is a rule for ${state}, which is not one of the states`);
      continue;
    }
    const seen = new Set<string>();
    for (const group of rule.allow ?? []) {
      if (group.next !== undefined && !states.has(group.next))
        problems.push(`state ${state} leads to ${group.next}, which is not one of the states`);
      for (const kind of group.changes) {
        const definition = machine.changeKinds[kind];
        if (definition === undefined) problems.push(`state ${state} allows ${kind}, which is not a change kind`);
        else if (definition.unsupported !== undefined)
          problems.push(`state ${state} allows ${kind}, which is unsupported`);
        else if (definition.overrideOnly !== undefined)
          problems.push(
            `state ${state} allows ${kind}, which is override-only: it needs a person's reason in every state, so no state allows it`,
          );
        if (seen.has(kind)) problems.push(`state ${state} lists ${kind} more than once`);
        seen.add(kind);
      }
    }
    for (const to of rule.operatorMoves ?? []) {
      if (!states.has(to)) problems.push(`the operator moves ${state} to ${to}, which is not one of the states`);
    }
  }
  return problems;
}

function classifierProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const problems: string[] = [];
  const reported = new Set<string>(machine.classifiers.flatMap((classifier) => classifier.kinds));
  for (const kind of reported) {
    if (!Object.hasOwn(machine.changeKinds, kind))
      problems.push(`a classifier reports ${kind}, which is not a change kind`);
  }
  for (const [kind] of kindEntries(machine)) {
    if (!reported.has(kind)) problems.push(`change kind ${kind} is never reported by any classifier`);
  }
  return problems;
}

/** Each classifier's absentMeans goes through its reader, as the field's values do (fieldClassifier found why not). */
function absentMeansProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const problems = (target: ClassifierTarget | undefined, at: string): string[] => {
    if (target === undefined) return [];
    const field = `${at}.${target.path}`;
    if (target.classify === 'keyed-list') return target.items.flatMap((item) => problems(item, `${field}[*]`));
    return target.absentMeansUnread === undefined ? [] : [`the classifier of ${field}: ${target.absentMeansUnread}`];
  };
  return machine.classifiers.flatMap((classifier) => problems(classifier.target, 'spec'));
}

/** The setting for changes no classifier names, nowhere that it could never apply (its values are the shape's). */
function unclassifiedChangesProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  return machine.states.flatMap((state) => {
    const rule = machine.rules[state];
    return rule?.anyChange && rule.unclassifiedChanges !== undefined && rule.unclassifiedChanges !== 'allowed'
      ? [
          `state ${state} allows any change, so its unclassifiedChanges ${rule.unclassifiedChanges} never applies: leave it out`,
        ]
      : [];
  });
}

/** Every state must be reachable from the initial one through allowed changes, operator moves or a deletion. */
function reachabilityProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  if (!machine.states.includes(machine.initialState)) return []; // reported already; every state would follow
  const edges = machineEdges(machine);
  const reached = new Set<S>([machine.initialState, machine.deletingState]);
  const frontier = [machine.initialState];
  for (let state = frontier.pop(); state !== undefined; state = frontier.pop()) {
    for (const next of exitsOf(edges, state)) {
      if (!reached.has(next)) {
        reached.add(next);
        frontier.push(next);
      }
    }
  }
  return machine.states
    .filter((state) => !reached.has(state))
    .map((state) => `state ${state} cannot be reached from ${machine.initialState}`);
}

/** A state the object can never leave is a trap, unless the object is going away or a person takes over. */
function exitProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  const edges = machineEdges(machine);
  const problems: string[] = [];
  for (const state of machine.states) {
    const exits = exitsOf(edges, state);
    const terminal = machine.terminalStates.includes(state);
    const humanIntervention = machine.humanInterventionStates.includes(state);
    if (exits.length === 0 && !terminal && !humanIntervention) {
      problems.push(`state ${state} has no way out: give it one, or mark it terminal or human-intervention`);
    }
    if (exits.length > 0 && terminal) problems.push(`state ${state} is terminal but leads to ${exits.join(', ')}`);
  }
  return problems;
}

function overrideAnnotationProblems<S extends string, C extends string>(machine: Fsa<S, C>): string[] {
  return isPrefixedAnnotationKey(machine.overrideAnnotation)
    ? []
    : [
        `override annotation "${machine.overrideAnnotation}" must be a prefixed annotation key, like example.com/override-transitions`,
      ];
}

function kindEntries<S extends string, C extends string>(machine: Fsa<S, C>) {
  return Object.entries(machine.changeKinds) as [C, Fsa<S, C>['changeKinds'][C]][];
}

function isPrefixedAnnotationKey(key: string): boolean {
  const slash = key.indexOf('/');
  return slash > 0 && isDns1123Subdomain(key.slice(0, slash)) && qualifiedNamePart.test(key.slice(slash + 1));
}
