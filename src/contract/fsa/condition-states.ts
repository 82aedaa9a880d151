import { isPlainObject, type KubeObject } from '../values/kube-object.ts';
import type { ConditionStateRule, StateReader, StatusTest } from './machine.ts';

// The state of a stored object from its conditions and observed generation, as a machine's conditionStates rules
// say. The policy floor compiles the same rules to CEL (src/policy/compile-condition-states.ts); both read the
// status exactly as written here, values of unexpected types included, so that they cannot disagree.

/** What a status holds for the tests: its conditions (a list, else none) and the two generations. */
interface StatusView {
  conditions: readonly unknown[];
  /** status.observedGeneration when it is an integer JavaScript holds exactly (the CEL reads no other). */
  observedGeneration?: number;
  /** metadata.generation when it is such an integer, else 0. */
  generation: number;
}

/** conditionStates as a state reader: the first rule whose tests all hold, else unrecognised. */
export function conditionStatesReader<S extends string>(rules: readonly ConditionStateRule<S>[]): StateReader<S> {
  return (object) => {
    const view = statusView(object);
    const rule = rules.find(({ when }) => when.every((test) => statusTestHolds(test, view)));
    // Quoted, and cut to a few dozen characters, by the message that names the unrecognised state.
    if (rule === undefined) return { unrecognised: describeConditions(view.conditions) };
    return rule.nothingRecorded ? undefined : rule.state;
  };
}

function statusView(object: KubeObject): StatusView {
  const status = isPlainObject(object.status) ? object.status : {};
  const conditions = Array.isArray(status['conditions']) ? status['conditions'] : [];
  const observed = status['observedGeneration'];
  const generation = object.metadata?.generation;
  return {
    conditions,
    ...(Number.isSafeInteger(observed) ? { observedGeneration: observed as number } : {}),
    generation: Number.isSafeInteger(generation) ? generation! : 0,
  };
}

function statusTestHolds(test: StatusTest, view: StatusView): boolean {
  if ('observedGeneration' in test) {
    if (view.observedGeneration === undefined) return false;
    return test.observedGeneration === 'behind'
      ? view.observedGeneration < view.generation
      : view.observedGeneration >= view.generation;
  }
  const ofType = view.conditions.filter(
    (condition): condition is Record<string, unknown> =>
      isPlainObject(condition) && condition['type'] === test.condition,
  );
  if (test.absent) return ofType.length === 0;
  return ofType.some(
    (condition) =>
      (test.status === undefined || condition['status'] === test.status) &&
      (test.reason === undefined || condition['reason'] === test.reason),
  );
}

const describedConditions = 5;

/** The conditions as an unrecognised state names them: `conditions Ready=Unknown (Probing), Synced=True`. */
function describeConditions(conditions: readonly unknown[]): string {
  if (conditions.length === 0) return 'no conditions';
  const listed = conditions.slice(0, describedConditions).map((condition) => {
    if (!isPlainObject(condition)) return shown(condition);
    const reason =
      typeof condition['reason'] === 'string' && condition['reason'] !== '' ? ` (${condition['reason']})` : '';
    return `${shown(condition['type'])}=${shown(condition['status'])}${reason}`;
  });
  const more = conditions.length > describedConditions ? ` and ${conditions.length - describedConditions} more` : '';
  return `conditions ${listed.join(', ')}${more}`;
}

const shown = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined'));
