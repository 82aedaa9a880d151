import { isPlainObject } from '../../contract/values/kube-object.ts';
import { changeAt, type Where } from '../change.ts';
import type { Change } from '../finding.ts';
import { compareBounds } from './bounds.ts';
import { compareCelRules } from './cel-rules.ts';
import { compareDescription } from './description.ts';
import { compareRequired } from './required.ts';
import { compareListAndMapTypes, compareUnknownFields, compareValueValidations } from './structure.ts';
import { compareDefault, compareEnum, compareFormat, compareNullable, comparePattern, compareType } from './values.ts';
import { elementPath, propertyPath } from './schema-path.ts';

type Schema = Record<string, unknown>;

/** What one field's own keywords say, old against new; its properties, items and map values are walked after. */
const nodeComparisons = [
  compareEnum,
  compareDefault,
  compareBounds,
  compareRequired,
  comparePattern,
  compareFormat,
  compareNullable,
  compareValueValidations,
  compareCelRules,
  compareListAndMapTypes,
  compareUnknownFields,
  compareDescription,
];

/**
 * Every change between two schemas of one version, field by field in the old schema's order: a field both have is
 * compared keyword by keyword and walked into; one only the old has is removed (and not walked into: its removal
 * says it all); one only the new has is new and optional unless `required` says otherwise, which that rule reports.
 */
export function compareSchemas(old: Schema, now: Schema, version: string): Change[] {
  const changes: Change[] = [];
  walk(old, now, { version, path: '' }, changes);
  return changes;
}

function walk(old: Schema, now: Schema, where: Where & { path: string }, out: Change[]): void {
  const typeChanged = compareType(old, now, where);
  // A field of another type refuses every value it held: that is the finding, and what is below it is moot.
  if (typeChanged.length > 0) {
    out.push(...typeChanged);
    return;
  }
  for (const compare of nodeComparisons) out.push(...compare(old, now, where));
  const propsA = isPlainObject(old.properties) ? old.properties : {};
  const propsB = isPlainObject(now.properties) ? now.properties : {};
  for (const [name, a] of Object.entries(propsA)) {
    const child = { ...where, path: propertyPath(where.path, name) };
    const b = Object.hasOwn(propsB, name) ? propsB[name] : undefined;
    if (isPlainObject(a) && isPlainObject(b)) walk(a, b, child, out);
    else if (b === undefined) out.push(removedField(child, a, now));
  }
  const element = { ...where, path: elementPath(where.path) };
  if (isPlainObject(old.items) && isPlainObject(now.items)) walk(old.items, now.items, element, out);
  const [mapA, mapB] = [old.additionalProperties, now.additionalProperties];
  if (isPlainObject(mapA) && isPlainObject(mapB)) walk(mapA, mapB, element, out);
  // A map whose values are no longer declared loses them all, as a removed field does.
  else if ((isPlainObject(mapA) || mapA === true) && !(isPlainObject(mapB) || mapB === true))
    out.push(removedField(element, mapA, now));
}

function removedField(where: Where, old: unknown, parent: Schema): Change {
  // Under x-kubernetes-preserve-unknown-fields the value is kept, but no longer validated nor defaulted.
  const kept = parent['x-kubernetes-preserve-unknown-fields'] === true;
  const what = kept
    ? 'removed from the schema (its values are kept as unknown fields, no longer validated)'
    : 'removed (the API server prunes it on read and erases it on the next write)';
  return changeAt(where, 'existingFieldRemoval', `${where.path}: ${what}`, { old });
}
