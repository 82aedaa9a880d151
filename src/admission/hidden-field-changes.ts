import { apiVersionOf, type Contract } from '../contract/contract-definition.ts';
import { schemaAt } from '../contract/defaults/default-schema.ts';
import { pruneUnknownFields } from '../contract/schema/prune-unknown-fields.ts';
import { renderFieldPath, valueAtSegments, type PathSegment } from '../contract/values/field-path.ts';
import { goKeyOrder, inGoKeyOrder } from '../contract/values/go-key-order.ts';
import { jsonEqual } from '../contract/values/json-equal.ts';
import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';
import { compareQuantities, parseQuantity } from '../contract/values/quantity.ts';
import { convertObject, toHub } from '../conversion/convert-object.ts';

// A client of an older version reads the object without what its version cannot show (a field only a newer version
// has, a value its fields cannot hold); a conversion keeps that in its stash annotation, which comes back only when
// the client sends it back as read. A `kubectl replace` of a manifest without it, or with a stale one, would reset
// those fields in silence: the client never saw them. This finds such changes, from the hub forms the webhook is
// given, so that the webhook, `crdgate check` and contractTester refuse (or warn about) them alike.

/** A field the stored object holds that `version` cannot show, which the write changes. */
export interface HiddenFieldChange {
  /** The hub's path to the field. */
  field: string;
  /** The stored value and the written one, their keys in Go's order; undefined where the field is absent. */
  from: unknown;
  to: unknown;
  /** The served versions that show the field as it is stored, the hub last. */
  shownIn: string[];
}

/**
 * The changes a write in `version` makes to fields the stored object holds and `version` cannot show: where the
 * new hub form differs from the old one, at a field that `version` loses of the stored object without the stash,
 * and the difference is not what the client's own edit makes of the stash as stored now (an edit of the field the
 * stashed spelling belongs to drops it, as the conversion says). Empty for the hub, and when a conversion fails (the
 * write is refused for that already).
 */
export function hiddenFieldChanges(
  contract: Contract,
  version: string,
  oldHub: KubeObject,
  newHub: KubeObject,
): HiddenFieldChange[] {
  if (version === contract.hub || contract.conversions[version] === undefined) return [];
  try {
    const oldRead = readIn(contract, version, oldHub);
    const hidden = fieldsNotShown(contract, oldHub, oldRead);
    if (hidden.length === 0) return [];
    const annotation = contract.conversionAnnotation;
    // What the write would be had the client sent what it cannot see as it is stored now.
    const kept =
      annotation === undefined
        ? undefined
        : toHub(
            contract,
            withAnnotation(readIn(contract, version, newHub), annotation, annotationOf(oldRead, annotation)),
          );
    // The stored object read in the version and written back as read, stash and all: where even that loses a field
    // (a field the version's schema prunes and no stash keeps), every write in the version changes it.
    const roundTrip = annotation === undefined ? undefined : toHub(contract, oldRead);
    const hubSchema = contract.versions.find((candidate) => candidate.name === contract.hub)!.schema;
    const changes: HiddenFieldChange[] = [];
    for (const path of hidden) {
      const [from, to] = [valueAtSegments(oldHub, path), valueAtSegments(newHub, path)];
      if (sameValue(hubSchema, path, from, to)) continue;
      const keepable = roundTrip !== undefined && sameValue(hubSchema, path, valueAtSegments(roundTrip, path), from);
      if (keepable && kept !== undefined && sameValue(hubSchema, path, valueAtSegments(kept, path), to)) continue;
      const shownIn = contract.versions
        .filter((candidate) => candidate.served && candidate.name !== contract.hub && candidate.name !== version)
        .map((candidate) => candidate.name)
        .filter(
          (other) =>
            !fieldsNotShown(contract, oldHub, readIn(contract, other, oldHub)).some(
              (lost) => covers(lost, path) || covers(path, lost),
            ),
        );
      changes.push({
        field: renderFieldPath('', path),
        from: inGoKeyOrder(from),
        to: inGoKeyOrder(to),
        shownIn: [...shownIn, contract.hub],
      });
    }
    return changes;
  } catch {
    return [];
  }
}

/** Where the object's hub form differs from what a version shows of it (`shown`) without the stash, read back in the hub. */
function fieldsNotShown(contract: Contract, hub: KubeObject, shown: KubeObject): PathSegment[][] {
  const annotation = contract.conversionAnnotation;
  const plain = toHub(contract, annotation === undefined ? shown : withAnnotation(shown, annotation, undefined));
  const content = (object: KubeObject) =>
    Object.fromEntries(
      Object.entries(object).filter(([key]) => !['apiVersion', 'kind', 'metadata', 'status'].includes(key)),
    );
  return differences(content(hub), content(plain), []);
}

/**
 * The object as a client of `version` reads it: converted, then pruned by that version's schema, as the API server
 * prunes what a conversion returns. A field a conversion passes through (`...rest`) that the version's schema does
 * not declare is not shown either.
 */
function readIn(contract: Contract, version: string, hub: KubeObject): KubeObject {
  const converted = convertObject(contract, hub, apiVersionOf(contract, version));
  const schema = contract.versions.find((candidate) => candidate.name === version)?.schema;
  return schema === undefined ? converted : pruneUnknownFields(converted, schema);
}

/**
 * The paths at which two JSON values differ: each field of objects, each item of lists as long, else the whole.
 * Fields in Go's order of keys (by their UTF-8 bytes), so that the order does not hang on how an object was written.
 */
function differences(a: unknown, b: unknown, at: PathSegment[]): PathSegment[][] {
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(goKeyOrder);
    return keys.flatMap((key) => differences(a[key], b[key], [...at, key]));
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((item, index) => differences(item, b[index], [...at, index]));
  return jsonEqual(a, b) ? [] : [at];
}

/** Whether `outer` is `inner` or lies above it. */
function covers(outer: readonly PathSegment[], inner: readonly PathSegment[]): boolean {
  return outer.length <= inner.length && outer.every((segment, index) => segment === inner[index]);
}

/** Equal, or two spellings of one quantity where the hub's schema says the field is a quantity. */
function sameValue(
  schema: Contract['versions'][number]['schema'],
  path: PathSegment[],
  a: unknown,
  b: unknown,
): boolean {
  if (jsonEqual(a, b)) return true;
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  const steps = path.map((segment) => (typeof segment === 'number' ? '*' : segment));
  const node = schemaAt(schema, steps, renderFieldPath('', path));
  if (typeof node !== 'object' || node.format !== 'quantity') return false;
  const [x, y] = [parseQuantity(a), parseQuantity(b)];
  return x !== undefined && y !== undefined && compareQuantities(x, y) === 0;
}

function annotationOf(object: KubeObject, key: string): string | undefined {
  return object.metadata?.annotations?.[key];
}

/** The object with the annotation set to `value`, or without it when undefined. */
function withAnnotation(object: KubeObject, key: string, value: string | undefined): KubeObject {
  const { [key]: _, ...others } = object.metadata?.annotations ?? {};
  const annotations = value === undefined ? others : { ...others, [key]: value };
  const metadata = { ...object.metadata };
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  else metadata.annotations = annotations;
  return { ...object, metadata };
}
