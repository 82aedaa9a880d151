import type { Defaulter, UntypedSpec } from '../values/object-rules.ts';
import { jsonEqual } from '../values/json-equal.ts';
import { isPlainObject, type KubeObject } from '../values/kube-object.ts';
import type { JSONValue } from '../schema/json-schema-props.ts';
import type { DefaultComputation, DefaultForm } from './default-form.ts';
import { parseDefaultTarget, parseSourcePath, type DefaultTarget } from './default-target.ts';

// The library's defaults: each a Defaulter, as the webhook applies it, carrying its form, which the policy compiler
// turns into CEL (src/policy/compile-defaults.ts states the same rules in CEL; src/policy/default-cel-agreement.test.ts
// holds the two to each other). Copy on write: what needs no default is returned as the very same object.

/** A Defaulter the library built: its form says what it sets, as data. */
export interface FormedDefaulter<Spec = UntypedSpec> extends Defaulter<Spec> {
  readonly form: DefaultForm;
}

/**
 * `value` where the field at `path` is absent: `spec.replicas`, `spec.caches[*].version` (in each item of the list),
 * `metadata.labels[example.com/tier]`. The objects on the way must be there (a label's map is made when absent).
 */
export function staticDefault<Spec = UntypedSpec>(path: string, value: JSONValue): FormedDefaulter<Spec> {
  return formedDefaulter({ default: 'value', path, value: structuredClone(value) });
}

export interface DerivedDefaultOptions {
  /** The field the value is computed from, such as spec.postgres.version. */
  from: string;
  compute: DefaultComputation;
  /** Rewrite the field wherever it differs, not only where it is absent: for data derived from the spec (a label). */
  keepInStep?: boolean;
}

/** What `compute` makes of the field at `from`, set at `path` (see DefaultForm). */
export function derivedDefault<Spec = UntypedSpec>(
  path: string,
  options: DerivedDefaultOptions,
): FormedDefaulter<Spec> {
  return formedDefaulter({
    default: 'derived',
    path,
    from: options.from,
    compute: options.compute,
    keepInStep: options.keepInStep === true,
  });
}

function formedDefaulter<Spec>(form: DefaultForm): FormedDefaulter<Spec> {
  // A path that names no field applies nothing; defineContract reports it, so a contract never runs with one.
  const target = parseDefaultTarget(form.path);
  const source = form.default === 'derived' ? parseSourcePath(form.from) : [];
  const apply = (object: KubeObject): KubeObject => {
    if (typeof target === 'string' || typeof source === 'string') return object;
    if (form.default === 'value')
      return setField(object, target, (present) => (present ? noChange : structuredClone(form.value)));
    const computed = compute(form.compute, readField(object, source));
    if (computed === noChange) return object;
    return setField(object, target, (present, current) =>
      present && (!form.keepInStep || jsonEqual(current, computed)) ? noChange : structuredClone(computed),
    );
  };
  return Object.assign(apply as Defaulter<Spec>, { form });
}

const noChange = Symbol('no change');

/** The field's new value from whether it is there and what it holds; noChange to leave it. */
type Decide = (present: boolean, current: unknown) => unknown;

function setField(object: KubeObject, target: DefaultTarget, decide: Decide): KubeObject {
  if (target.list === undefined)
    return (
      (setIn(object, target.parents, target.key, target.createsParent, decide) as KubeObject | undefined) ?? object
    );
  return (
    (updateIn(object, target.list, (list) => {
      if (!Array.isArray(list)) return undefined;
      const items = list.map((item) => setIn(item, target.parents, target.key, false, decide) ?? item);
      return items.some((item, index) => item !== list[index]) ? items : undefined;
    }) as KubeObject | undefined) ?? object
  );
}

/** A copy of `node` with the field set, or undefined when nothing changes. */
function setIn(
  node: unknown,
  parents: readonly string[],
  key: string,
  createsParent: boolean,
  decide: Decide,
): unknown {
  const last = parents.length - 1;
  return updateIn(node, parents.slice(0, -1), (holder) => {
    const parent = last < 0 ? holder : childOf(holder, parents[last]!);
    if (parent === undefined && createsParent && isPlainObject(holder)) {
      const value = decide(false, undefined);
      return value === noChange ? undefined : { ...holder, [parents[last]!]: { [key]: value } };
    }
    if (!isPlainObject(parent)) return undefined;
    const present = Object.hasOwn(parent, key);
    const value = decide(present, parent[key]);
    if (value === noChange) return undefined;
    const updated = { ...parent, [key]: value };
    return last < 0 ? updated : { ...(holder as Record<string, unknown>), [parents[last]!]: updated };
  });
}

/** A copy of `node` with the value at `path` replaced by what `update` returns, or undefined when it returns undefined. */
function updateIn(node: unknown, path: readonly string[], update: (value: unknown) => unknown): unknown {
  if (path.length === 0) return update(node);
  if (!isPlainObject(node) || !Object.hasOwn(node, path[0]!)) return undefined;
  const child = updateIn(node[path[0]!], path.slice(1), update);
  return child === undefined ? undefined : { ...node, [path[0]!]: child };
}

function childOf(node: unknown, key: string): unknown {
  return isPlainObject(node) && Object.hasOwn(node, key) ? node[key] : undefined;
}

/** The value at `path` through objects only, or noChange when a step is missing. */
function readField(object: KubeObject, path: readonly string[]): unknown {
  let node: unknown = object;
  for (const key of path) {
    if (!isPlainObject(node) || !Object.hasOwn(node, key)) return noChange;
    node = node[key];
  }
  return node;
}

/** A release as parseVersion reads it: dot-separated decimal numbers without leading zeros. */
export const releasePattern = '^(0|[1-9][0-9]*)([.](0|[1-9][0-9]*))*$';
const release = new RegExp(releasePattern);

function compute(computation: DefaultComputation, value: unknown): unknown {
  if (value === noChange) return noChange;
  switch (computation) {
    case 'copy':
      return value;
    case 'release-major':
      // The digits as written, not parsed: a number past 2^53 keeps every digit, as the CEL's split does.
      return typeof value === 'string' && release.test(value) ? value.split('.')[0]! : noChange;
  }
}
