import { jsonEqual } from '../../contract/values/json-equal.ts';
import { describeChange, describeItems, describeValue } from '../../contract/values/describe-value.ts';
import { changeAt, fieldName, type Where } from '../change.ts';
import type { Change } from '../finding.ts';

type Schema = Record<string, unknown>;

// What values one field takes: its type, enum, default, nullability, pattern and format.

/** The type as the API server checks it: x-kubernetes-int-or-string is a type of its own. */
function effectiveType(schema: Schema): unknown {
  return schema['x-kubernetes-int-or-string'] === true ? 'int-or-string' : schema.type;
}

export function compareType(old: Schema, now: Schema, where: Where): Change[] {
  const [a, b] = [effectiveType(old), effectiveType(now)];
  if (jsonEqual(a, b)) return [];
  return [
    changeAt(where, 'type', `${fieldName(where)}: type ${describeChange(a, b)}`, {
      old: a,
      new: b,
    }),
  ];
}

/** crdify's enum semantics: a new enum, or values taken out, narrow what is taken; values put in widen what is read. */
export function compareEnum(old: Schema, now: Schema, where: Where): Change[] {
  const a = Array.isArray(old.enum) ? old.enum : undefined;
  const b = Array.isArray(now.enum) ? now.enum : undefined;
  if (b === undefined) return [];
  if (a === undefined)
    return [changeAt(where, 'enum', `${fieldName(where)}: an enum was added (${describeItems(b)})`, { new: b })];
  const removed = a.filter((value) => !b.some((other) => jsonEqual(value, other)));
  const added = b.filter((value) => !a.some((other) => jsonEqual(value, other)));
  const changes: Change[] = [];
  if (removed.length > 0)
    changes.push(
      changeAt(where, 'enum', `${fieldName(where)}: enum values removed: ${describeItems(removed)}`, { old: removed }),
    );
  if (added.length > 0)
    changes.push(
      changeAt(where, 'enumValueAdded', `${fieldName(where)}: enum values added: ${describeItems(added)}`, {
        new: added,
      }),
    );
  return changes;
}

export function compareDefault(old: Schema, now: Schema, where: Where): Change[] {
  const has = (schema: Schema) => Object.hasOwn(schema, 'default');
  if (!has(old) && !has(now)) return [];
  const values = { ...(has(old) ? { old: old.default } : {}), ...(has(now) ? { new: now.default } : {}) };
  if (!has(old))
    return [
      changeAt(where, 'defaultAdded', `${fieldName(where)}: default ${describeValue(now.default)} added`, values),
    ];
  if (!has(now))
    return [
      changeAt(where, 'defaultRemoved', `${fieldName(where)}: default ${describeValue(old.default)} removed`, values),
    ];
  if (jsonEqual(old.default, now.default)) return [];
  return [
    changeAt(
      where,
      'defaultChanged',
      `${fieldName(where)}: default ${describeChange(old.default, now.default)}`,
      values,
    ),
  ];
}

export function compareNullable(old: Schema, now: Schema, where: Where): Change[] {
  const [a, b] = [old.nullable === true, now.nullable === true];
  if (a === b) return [];
  return b
    ? [changeAt(where, 'nullableAdded', `${fieldName(where)}: became nullable`, { old: a, new: b })]
    : [changeAt(where, 'nullable', `${fieldName(where)}: no longer nullable`, { old: a, new: b })];
}

export function comparePattern(old: Schema, now: Schema, where: Where): Change[] {
  const text = (schema: Schema) =>
    typeof schema.pattern === 'string' && schema.pattern !== '' ? schema.pattern : undefined;
  const [a, b] = [text(old), text(now)];
  if (a === b) return [];
  const values = { old: a, new: b };
  if (b === undefined)
    return [changeAt(where, 'patternRemoved', `${fieldName(where)}: pattern ${describeValue(a)} removed`, values)];
  const verb = a === undefined ? `pattern ${describeValue(b)} added` : `pattern ${describeChange(a, b)}`;
  return [changeAt(where, 'pattern', `${fieldName(where)}: ${verb}`, values)];
}

/** A format taken away widens; one added or changed may refuse stored values (for the formats the API server knows). */
export function compareFormat(old: Schema, now: Schema, where: Where): Change[] {
  const text = (schema: Schema) =>
    typeof schema.format === 'string' && schema.format !== '' ? schema.format : undefined;
  const [a, b] = [text(old), text(now)];
  if (a === b || b === undefined) return [];
  const verb = a === undefined ? `format ${describeValue(b)} added` : `format ${describeChange(a, b)}`;
  return [changeAt(where, 'format', `${fieldName(where)}: ${verb}`, { old: a, new: b })];
}
