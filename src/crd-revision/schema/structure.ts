import { jsonEqual } from '../../contract/values/json-equal.ts';
import { describeChange } from '../../contract/values/describe-value.ts';
import { changeAt, fieldName, type Where } from '../change.ts';
import type { Change } from '../finding.ts';

type Schema = Record<string, unknown>;

// How the API server merges, prunes and wraps one field: list and map types, unknown fields, embedded objects, and
// the value validations (allOf, anyOf, oneOf, not) that a structural schema may carry beside its types.

/** A list without x-kubernetes-list-type is atomic, and a map without x-kubernetes-map-type granular. */
export function compareListAndMapTypes(old: Schema, now: Schema, where: Where): Change[] {
  const changes: Change[] = [];
  // Absent, the list type is atomic only on a list (and the map type granular only on an object).
  const bothLists = old.type === 'array' && now.type === 'array';
  const listType = (schema: Schema) =>
    bothLists ? (schema['x-kubernetes-list-type'] ?? 'atomic') : schema['x-kubernetes-list-type'];
  const [listA, listB] = [listType(old), listType(now)];
  if (!jsonEqual(listA, listB))
    changes.push(
      changeAt(where, 'listType', `${fieldName(where)}: x-kubernetes-list-type ${describeChange(listA, listB)}`, {
        old: listA,
        new: listB,
      }),
    );
  const [keysA, keysB] = [old['x-kubernetes-list-map-keys'], now['x-kubernetes-list-map-keys']];
  // Only a map list has keys; a list-type change already says what changed for one that became or stopped being one.
  if (listA === 'map' && listB === 'map' && !jsonEqual(keysA, keysB)) {
    changes.push(
      changeAt(
        where,
        'listMapKeys',
        `${fieldName(where)}: x-kubernetes-list-map-keys ${describeChange(keysA ?? [], keysB ?? [])}`,
        { old: keysA, new: keysB },
      ),
    );
  }
  const bothMaps = old.type === 'object' && now.type === 'object';
  const mapType = (schema: Schema) =>
    bothMaps ? (schema['x-kubernetes-map-type'] ?? 'granular') : schema['x-kubernetes-map-type'];
  const [mapA, mapB] = [mapType(old), mapType(now)];
  if (!jsonEqual(mapA, mapB))
    changes.push(
      changeAt(where, 'mapType', `${fieldName(where)}: x-kubernetes-map-type ${describeChange(mapA, mapB)}`, {
        old: mapA,
        new: mapB,
      }),
    );
  return changes;
}

export function compareUnknownFields(old: Schema, now: Schema, where: Where): Change[] {
  const changes: Change[] = [];
  const [keepA, keepB] = [
    old['x-kubernetes-preserve-unknown-fields'] === true,
    now['x-kubernetes-preserve-unknown-fields'] === true,
  ];
  if (keepA && !keepB)
    changes.push(
      changeAt(
        where,
        'preserveUnknownFieldsRemoved',
        `${fieldName(where)}: unknown fields are no longer preserved (they are pruned)`,
        { old: true, new: false },
      ),
    );
  if (!keepA && keepB)
    changes.push(
      changeAt(where, 'preserveUnknownFieldsAdded', `${fieldName(where)}: unknown fields are now preserved`, {
        old: false,
        new: true,
      }),
    );
  const [embeddedA, embeddedB] = [
    old['x-kubernetes-embedded-resource'] === true,
    now['x-kubernetes-embedded-resource'] === true,
  ];
  if (embeddedA !== embeddedB) {
    changes.push(
      changeAt(
        where,
        'embeddedResource',
        `${fieldName(where)}: ${embeddedB ? 'became' : 'is no longer'} an embedded resource`,
        { old: embeddedA, new: embeddedB },
      ),
    );
  }
  return changes;
}

/**
 * crdify leaves these open (its issues #24, #26): one added or changed is reported whole, without judging whether
 * it admits less; one taken away admits more, and is no finding.
 */
export function compareValueValidations(old: Schema, now: Schema, where: Where): Change[] {
  return ['allOf', 'anyOf', 'oneOf', 'not'].flatMap((keyword) => {
    const [a, b] = [old[keyword], now[keyword]];
    if (b === undefined || jsonEqual(a, b)) return [];
    const what = a === undefined ? 'added' : 'changed';
    return [changeAt(where, 'valueValidationChanged', `${fieldName(where)}: ${keyword} ${what}`, { old: a, new: b })];
  });
}
