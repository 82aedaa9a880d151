import { jsonEqual } from '../../contract/values/json-equal.ts';
import { describeValue } from '../../contract/values/describe-value.ts';
import { changeAt } from '../change.ts';
import { migratePlan } from '../migrate-plan.ts';
import { compareSchemas } from '../schema/compare-schemas.ts';
import { compareSubresources } from './compare-subresources.ts';
import type { CrdVersionView, CrdView } from '../crd-view.ts';
import type { Change } from '../finding.ts';

/**
 * Every version either revision has, in the old revision's order then the new ones: removed, added, served or
 * unserved, the storage version moved; for a version both have, its schema, subresources, printer columns and selectable fields.
 */
export function compareVersions(old: CrdView, now: CrdView): Change[] {
  const changes: Change[] = [];
  const newByName = new Map(now.versions.map((version) => [version.name, version]));
  // The old storage version holds objects whenever the kind has any; storedVersions lists the others written before.
  const stored = new Set([...old.storedVersions, ...old.versions.filter((v) => v.storage).map((v) => v.name)]);
  for (const a of old.versions) {
    const b = newByName.get(a.name);
    const where = { version: a.name };
    if (b === undefined) {
      changes.push(
        stored.has(a.name)
          ? changeAt(where, 'storedVersionRemoval', storedVersionRemoved(old, now, a.name))
          : changeAt(where, a.served ? 'versionRemoval' : 'unservedVersionRemoval', versionRemoved(old, a)),
      );
      continue;
    }
    if (a.served && !b.served)
      changes.push(
        changeAt(where, 'versionUnserved', `version ${a.name} is no longer served`, { old: true, new: false }),
      );
    if (!a.served && b.served)
      changes.push(changeAt(where, 'versionServed', `version ${a.name} is served again`, { old: false, new: true }));
    changes.push(
      ...compareSchemas(a.schema ?? {}, b.schema ?? {}, a.name),
      ...compareSubresources(a, b),
      ...comparePrinterColumns(a, b),
      ...compareSelectableFields(a, b),
    );
  }
  const oldNames = new Set(old.versions.map((version) => version.name));
  for (const b of now.versions)
    if (!oldNames.has(b.name))
      changes.push(
        changeAt({ version: b.name }, 'versionAdded', `version ${b.name} added${b.served ? '' : ' (not served)'}`),
      );
  const storage = (view: CrdView) => view.versions.find((version) => version.storage)?.name;
  const [storageA, storageB] = [storage(old), storage(now)];
  if (storageA !== undefined && storageB !== undefined && storageA !== storageB) {
    changes.push(
      changeAt(
        {},
        'storageVersionChanged',
        `storage version ${storageA} → ${storageB}: objects stay stored in ${storageA} until rewritten (crdgate migrate)`,
        { old: storageA, new: storageB },
      ),
    );
  }
  return changes;
}

/**
 * A version removed that objects may be stored in, and why they may (status.storedVersions, or the old storage
 * version): the API server refuses the update until `crdgate migrate` has rewritten them and trimmed storedVersions.
 */
function storedVersionRemoved(old: CrdView, now: CrdView, version: string): string {
  const why = old.storedVersions.includes(version)
    ? `status.storedVersions lists ${old.storedVersions.join(', ')}`
    : `${version} is the storage version`;
  const target = now.versions.find((v) => v.storage)?.name;
  const stillStored = old.versions.find((v) => v.storage)?.name;
  const plan = migratePlan({
    resource: old.name === '' ? 'PLURAL.GROUP' : old.name,
    removed: version,
    target,
    targetStoresAlready: target !== undefined && stillStored === target,
  });
  return `version ${version} removed while objects may be stored in it (${why}): the API server refuses this update; ${plan}`;
}

/**
 * A version removed that the old revision does not store in: its clients (if it was served) get 404; and where
 * status.storedVersions is not known (a CRD in a file), an earlier revision may have stored objects in it, which
 * the API server holds to until they are migrated: it may refuse the update, and how to find out. Of a version
 * that was not served, that risk is all there is (unservedVersionRemoval, a warning).
 */
function versionRemoved(old: CrdView, version: CrdVersionView): string {
  const clients = version.served ? ': its clients get 404' : '';
  if (old.storedVersions.length > 0) return `version ${version.name} removed${clients}`;
  const crd = old.name === '' ? 'CRD' : `crd ${old.name}`;
  return (
    `version ${version.name} removed${clients}; status.storedVersions is not known here: if an earlier revision ` +
    `stored objects in ${version.name}, the API server refuses this update until they are migrated; find out with ` +
    `--from-cluster, or \`kubectl get ${crd} -o jsonpath='{.status.storedVersions}'\``
  );
}

/** Printer columns are matched by name, as kubectl shows them (of two of one name, which the API server refuses, the first). */
function comparePrinterColumns(a: CrdVersionView, b: CrdVersionView): Change[] {
  const where = { version: a.name };
  const name = (column: Record<string, unknown>) => String(column.name);
  const byName = (columns: Record<string, unknown>[]) =>
    new Map([...columns].reverse().map((column) => [name(column), column]));
  const [before, after] = [byName(a.printerColumns), byName(b.printerColumns)];
  const changes: Change[] = [];
  for (const column of before.values()) {
    const other = after.get(name(column));
    if (other === undefined)
      changes.push(
        changeAt(where, 'printerColumnRemoved', `printer column ${describeValue(name(column))} removed`, {
          old: column,
        }),
      );
    else if (!jsonEqual(withoutDescription(column), withoutDescription(other))) {
      changes.push(
        changeAt(where, 'printerColumnChanged', `printer column ${describeValue(name(column))} changed`, {
          old: column,
          new: other,
        }),
      );
    }
  }
  for (const column of after.values()) {
    if (!before.has(name(column)))
      changes.push(
        changeAt(where, 'printerColumnAdded', `printer column ${describeValue(name(column))} added`, { new: column }),
      );
  }
  return changes;
}

function withoutDescription(column: Record<string, unknown>): Record<string, unknown> {
  const { description: _description, ...rest } = column;
  return rest;
}

/** Selectable fields are matched by their jsonPath, which is what a field selector names. */
function compareSelectableFields(a: CrdVersionView, b: CrdVersionView): Change[] {
  const paths = (version: CrdVersionView) => [
    ...new Set(
      version.selectableFields
        .map((field) => field.jsonPath)
        .filter((path): path is string => typeof path === 'string'),
    ),
  ];
  const [before, after] = [paths(a), paths(b)];
  const where = { version: a.name };
  return [
    ...before
      .filter((path) => !after.includes(path))
      .map((path) =>
        changeAt(
          where,
          'selectableFieldRemoved',
          `selectable field ${path} removed: field selectors on it are refused`,
          { old: path },
        ),
      ),
    ...after
      .filter((path) => !before.includes(path))
      .map((path) => changeAt(where, 'selectableFieldAdded', `selectable field ${path} added`, { new: path })),
  ];
}
