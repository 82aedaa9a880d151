import { isPlainObject } from '../../contract/values/kube-object.ts';
import { changeAt, type Where } from '../change.ts';
import type { Change } from '../finding.ts';
import { propertyPath } from './schema-path.ts';

type Schema = Record<string, unknown>;

/** crdify's rule: a field newly required. Each is named by its own path when a revision declares it. */
export function compareRequired(old: Schema, now: Schema, where: Where & { path: string }): Change[] {
  const names = (schema: Schema) =>
    Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  const before = new Set(names(old));
  const declared = (name: string) =>
    [old, now].some((schema) => isPlainObject(schema.properties) && Object.hasOwn(schema.properties, name));
  return [...new Set(names(now))]
    .filter((name) => !before.has(name))
    .map((name) => {
      const at = declared(name) ? { ...where, path: propertyPath(where.path, name) } : where;
      return changeAt(at, 'required', `${propertyPath(where.path, name)}: became required`, { new: name });
    });
}
