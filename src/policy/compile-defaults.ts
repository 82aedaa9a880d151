import { defaultersOf } from '../contract/defaults/contract-defaulter.ts';
import type { DefaultComputation, DefaultForm } from '../contract/defaults/default-form.ts';
import { parseDefaultTarget, parseSourcePath, type DefaultTarget } from '../contract/defaults/default-target.ts';
import { releasePattern, type FormedDefaulter } from '../contract/defaults/library-defaults.ts';
import { schemaAt } from '../contract/defaults/default-schema.ts';
import type { ContractDefinition } from '../contract/contract-definition.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import {
  and,
  Binding,
  bool,
  call,
  celString,
  cond,
  eq,
  ident,
  index,
  int,
  isIn,
  isPlainFieldName,
  list,
  member,
  method,
  ne,
  not,
  or,
  plus,
  str,
  type Cel,
} from './cel.ts';

// The library's defaults as a MutatingAdmissionPolicy's JSONPatch mutations, one per default, in the contract's
// order: each is the CEL of its defaulter in library-defaults.ts, reading the object as the API server hands it to a
// policy (unstructured JSON, no schema types: every step is checked to be an object before it is read, so a value of
// another type sets nothing instead of failing the request).
//
// The API server runs mutating admission policies before mutating webhooks (kube-apiserver's admission plugin
// order), and crdgate's webhook applies every default, the compiled ones included, to what the policy returns. The
// policy is never reinvoked (reinvocationPolicy Never): its defaults are applied once, first, as the webhook's own
// list applies them first. So a default compiles only if no function of one's own comes before it in the list: such
// a function may read what the default sets, and would then see it set before its turn. With that, the object stored
// with both is the webhook's alone, since each default is idempotent and the webhook re-applies those the policy
// applied, in the same order.

/** One mutation of a MutatingAdmissionPolicy, as admissionregistration.k8s.io/v1 names it. */
export interface PolicyMutation {
  patchType: 'JSONPatch';
  jsonPatch: { expression: string };
}

export type DefaultCoverage =
  { default: string; enforcedBy: 'policy' } | { default: string; enforcedBy: 'webhook'; reason: string };

export interface CompiledDefaults {
  mutations: PolicyMutation[];
  /** Per defaulter, in the contract's order. */
  coverage: DefaultCoverage[];
}

/** How one JSONPatch operation is written: kube-apiserver's JSONPatch type; a test evaluates the CEL with another. */
export type PatchOperation = (path: Cel, value: Cel) => Cel;

/** `JSONPatch{op: "add", ...}`: add sets a field that is absent and replaces one that is there (RFC 6902). */
export const jsonPatchAdd: PatchOperation = (path, value) => ({
  text: `JSONPatch{op: "add", path: ${path.text}, value: ${value.text}}`,
  binds: Binding.Primary,
});

export function compileContractDefaults(
  contract: Pick<ContractDefinition, 'defaults' | 'versions' | 'hub'>,
  patch: PatchOperation = jsonPatchAdd,
): CompiledDefaults {
  const hubSchema = contract.versions.find((version) => version.name === contract.hub)?.schema;
  const mutations: PolicyMutation[] = [];
  const coverage: DefaultCoverage[] = [];
  let ownFunction: string | undefined;
  defaultersOf(contract).forEach((defaulter, position) => {
    const { form } = defaulter as Partial<FormedDefaulter>;
    if (form === undefined) {
      ownFunction ??= functionName(defaulter, position);
      coverage.push({
        default: functionName(defaulter, position),
        enforcedBy: 'webhook',
        reason: 'a function of its own: the policy has nothing to compile',
      });
      return;
    }
    const name = describeDefaultForm(form);
    if (ownFunction !== undefined) {
      coverage.push({ default: name, enforcedBy: 'webhook', reason: followsOwnFunction(ownFunction) });
      return;
    }
    const expression = unboundedCost(form, hubSchema) ?? compileDefaultForm(form, patch);
    if (typeof expression === 'string') coverage.push({ default: name, enforcedBy: 'webhook', reason: expression });
    else {
      mutations.push({ patchType: 'JSONPatch', jsonPatch: { expression: expression.text } });
      coverage.push({ default: name, enforcedBy: 'policy' });
    }
  });
  return { mutations, coverage };
}

function followsOwnFunction(name: string): string {
  return (
    `it comes after ${name}, a function of its own, which may read what it sets: the policy runs before the webhook ` +
    'and would set it before that function sees the object'
  );
}

/**
 * Why the API server could not bound what the default's CEL costs, or undefined when it can: a list it goes into
 * without a maxItems, a value it reads or compares whose size the schema does not bound. A mutating policy runs
 * before the API server validates the object, so the schema's bounds do not hold yet; what they do is make the
 * schema refuse, right after, any object large enough to run the policy out of budget. Where the schema has no
 * bound, an object it accepts could meet a policy that refuses it: such a default stays the webhook's.
 */
function unboundedCost(form: DefaultForm, hubSchema: JSONSchemaProps | undefined): string | undefined {
  const target = parseDefaultTarget(form.path);
  const at = (path: readonly string[]) =>
    hubSchema === undefined ? undefined : schemaAt(hubSchema, path, path.join('.'));
  const costNote = "in the hub schema, so the API server can bound the policy's cost";
  if (typeof target !== 'string' && target.list !== undefined) {
    const list = at(target.list);
    if (typeof list !== 'object' || list.maxItems === undefined)
      return `${target.list.join('.')} needs a maxItems ${costNote}`;
  }
  if (form.default !== 'derived' || (form.compute === 'copy' && !form.keepInStep)) return undefined;
  const source = parseSourcePath(form.from);
  const read = typeof source === 'string' ? undefined : at(source);
  const bounded =
    typeof read === 'object' &&
    (read.type === 'integer' ||
      read.type === 'number' ||
      read.type === 'boolean' ||
      (read.type === 'string' && (read.maxLength !== undefined || read.enum !== undefined)));
  if (bounded) return undefined;
  return form.compute === 'copy'
    ? `${form.from} needs to be a number, a boolean or a string with a maxLength (or an enum) ${costNote}, as it is compared when kept in step`
    : `${form.from} needs a maxLength (or an enum) ${costNote}`;
}

/** How coverage names a default: `spec.replicas: 1`, `metadata.labels[k]: release-major of spec.version, kept in step`. */
export function describeDefaultForm(form: DefaultForm): string {
  if (form.default === 'value') return `${form.path}: ${JSON.stringify(form.value)}`;
  return `${form.path}: ${form.compute} of ${form.from}${form.keepInStep ? ', kept in step' : ''}`;
}

function functionName(defaulter: { name: string }, position: number): string {
  return defaulter.name ? `${defaulter.name} (defaults[${position}])` : `defaults[${position}]`;
}

/** The CEL list of JSONPatch operations a default makes, or why it makes none. */
export function compileDefaultForm(form: DefaultForm, patch: PatchOperation = jsonPatchAdd): Cel | string {
  const target = parseDefaultTarget(form.path);
  if (typeof target === 'string') return `its path ${target}`;
  if (form.default === 'value') return setField(target, patch, jsonLiteral(form.value), false);
  const source = parseSourcePath(form.from);
  if (typeof source === 'string') return `its from ${source}`;
  const read = walk(ident('object'), source);
  const { readable, value } = computation(form.compute, read.node);
  // The value read may be of any type: the walk's last guard (that it is an object) is not the source's.
  return cond(and(...read.guards.slice(0, -1), readable), setField(target, patch, value, form.keepInStep), list([]));
}

/** What a computation reads and makes, as CEL of the value it reads. */
function computation(compute: DefaultComputation, node: Cel): { readable: Cel; value: Cel } {
  switch (compute) {
    case 'copy':
      return { readable: bool(true), value: node };
    case 'release-major':
      return {
        readable: and(eq(call('type', [node]), ident('string')), method(node, 'matches', str(releasePattern))),
        value: index(method(node, 'split', str('.')), int(0)),
      };
  }
}

/** The operations that set the target's field to `value` where it is absent, and (keepInStep) where it differs. */
function setField(target: DefaultTarget, patch: PatchOperation, value: Cel, keepInStep: boolean): Cel {
  const shouldSet = (parent: Cel) => {
    const absent = not(present(parent, target.key));
    return keepInStep ? or(absent, ne(child(parent, target.key), value)) : absent;
  };
  if (target.list !== undefined) {
    const listAt = walk(ident('object'), target.list);
    const item = ident('item');
    const inItem = walk(item, target.parents);
    const pointer = plus(
      str(`${jsonPointer(target.list)}/`),
      call('string', [ident('i')]),
      str(jsonPointer([...target.parents, target.key])),
    );
    return cond(
      and(...listAt.guards.slice(0, -1), eq(call('type', [listAt.node]), ident('list'))),
      method(
        listAt.node,
        'transformList',
        ident('i'),
        item,
        and(isMap(item), ...inItem.guards, shouldSet(inItem.node)),
        patch(pointer, value),
      ),
      list([]),
    );
  }
  const set = list([patch(str(jsonPointer([...target.parents, target.key])), value)]);
  if (!target.createsParent) {
    const parent = walk(ident('object'), target.parents);
    return cond(and(...parent.guards, shouldSet(parent.node)), set, list([]));
  }
  // A label's or an annotation's map, made with the field in it where the object has none.
  const holder = walk(ident('object'), target.parents.slice(0, -1));
  const mapKey = target.parents.at(-1)!;
  const map = child(holder.node, mapKey);
  const made = list([
    patch(str(jsonPointer(target.parents)), {
      text: `{${celString(target.key)}: ${value.text}}`,
      binds: Binding.Primary,
    }),
  ]);
  return cond(
    and(...holder.guards),
    cond(present(holder.node, mapKey), cond(and(isMap(map), shouldSet(map)), set, list([])), made),
    list([]),
  );
}

/**
 * The way from `base` down `keys`: each key present and (but the last) an object, as guards in order, and the node
 * at the end. The last guard checks the end node is an object; callers that need it to be something else drop it.
 */
function walk(base: Cel, keys: readonly string[]): { guards: Cel[]; node: Cel } {
  const guards: Cel[] = [];
  let node = base;
  for (const key of keys) {
    guards.push(present(node, key));
    node = child(node, key);
    guards.push(isMap(node));
  }
  return { guards, node };
}

function isMap(node: Cel): Cel {
  return eq(call('type', [node]), ident('map'));
}

/** Whether an object holds the key: `has(x.key)`, or `"key" in x` for a key CEL cannot write after a dot. */
function present(node: Cel, key: string): Cel {
  return isPlainFieldName(key) ? call('has', [member(node, key)]) : isIn(str(key), node);
}

function child(node: Cel, key: string): Cel {
  return isPlainFieldName(key) ? member(node, key) : index(node, str(key));
}

/** RFC 6901: `~` as `~0`, `/` as `~1`. */
function jsonPointer(keys: readonly string[]): string {
  return keys.map((key) => `/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/**
 * A JSON value as a CEL literal. Kubernetes' CEL refuses a list or map literal whose elements differ in type, so a
 * container whose elements are not all scalars of one type has each wrapped in dyn(). A whole number past 2^53, or
 * a fraction, is a double: the JSONPatch writes every number as one anyway.
 */
export function jsonLiteral(value: unknown): Cel {
  if (value === null) return { text: 'null', binds: Binding.Primary };
  if (typeof value === 'string') return str(value);
  if (typeof value === 'boolean') return bool(value);
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return int(value);
    const text = String(value);
    return { text: /[.e]/.test(text) ? text : `${text}.0`, binds: value < 0 ? Binding.Unary : Binding.Primary };
  }
  const entries: [string | undefined, unknown][] = Array.isArray(value)
    ? value.map((item) => [undefined, item])
    : Object.entries(value as object);
  const kinds = new Set(entries.map(([, item]) => scalarKind(item)));
  const uniform = kinds.size <= 1 && !kinds.has(undefined);
  const items = entries.map(([key, item]) => {
    const literal = jsonLiteral(item);
    const text = uniform ? literal.text : `dyn(${literal.text})`;
    return key === undefined ? text : `${celString(key)}: ${text}`;
  });
  return { text: Array.isArray(value) ? `[${items.join(', ')}]` : `{${items.join(', ')}}`, binds: Binding.Primary };
}

/** A scalar's CEL type; undefined for a container. */
function scalarKind(value: unknown): string | undefined {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'int' : 'double';
  return typeof value === 'object' ? undefined : typeof value;
}
