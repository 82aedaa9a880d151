import { isPlainObject } from '../../src/contract/values/kube-object.ts';

// The revisions the comparison of CRD checkers applies (`npm run bench -- --crd-tools`): one edit of each kind a team
// makes to its CRD, aimed at a field the stored objects hold, so that what kube-apiserver then does to them can be
// seen. Each is a pure function of the CRD and the objects; a kind that finds no field to aim at is left out.

export const REVISION_KINDS = [
  'fieldRemoved',
  'enumNarrowed',
  'maximumLowered',
  'minimumRaised',
  'maxLengthLowered',
  'patternAdded',
  'requiredAdded',
  'typeChanged',
  'defaultAdded',
  'defaultChanged',
  'celRuleAdded',
  'versionUnserved',
  'storageVersionRemoved',
  'scopeChanged',
] as const;
export type RevisionKind = (typeof REVISION_KINDS)[number];

export interface Revision {
  kind: RevisionKind;
  /** The field it aims at (`spec.a.b`), or the version. */
  target: string;
  crd: Record<string, unknown>;
}

type Schema = Record<string, unknown>;

/** A scalar field the objects hold, reached through object properties only, with its schema and the values held. */
interface HeldField {
  path: string[];
  schema: Schema;
  parent: Schema;
  values: unknown[];
}

export function generateRevision(
  crd: Record<string, unknown>,
  objects: readonly Record<string, unknown>[],
  kind: RevisionKind,
): Revision | undefined {
  const next = structuredClone(crd);
  const spec = next.spec as Schema;
  const versions = (spec.versions as Schema[]).filter(isPlainObject);
  const storage = versions.find((version) => version.storage === true);
  const root =
    storage && isPlainObject(storage.schema) && isPlainObject(storage.schema.openAPIV3Schema)
      ? storage.schema.openAPIV3Schema
      : undefined;
  if (kind === 'versionUnserved') {
    const other = versions.find((version) => version !== storage && version.served === true);
    if (!other) return undefined;
    other.served = false;
    return { kind, target: String(other.name), crd: next };
  }
  if (kind === 'storageVersionRemoved') {
    const other = versions.find((version) => version !== storage && version.served === true);
    if (!other || !storage) return undefined;
    other.storage = true;
    spec.versions = versions.filter((version) => version !== storage);
    return { kind, target: String(storage.name), crd: next };
  }
  if (kind === 'scopeChanged') {
    spec.scope = spec.scope === 'Cluster' ? 'Namespaced' : 'Cluster';
    return { kind, target: String(spec.scope), crd: next };
  }
  if (!root) return undefined;
  const held = heldFields(
    root,
    objects.filter((object) => String(object.apiVersion).endsWith(`/${String(storage!.name)}`)),
  );
  const aim = (predicate: (field: HeldField) => boolean, edit: (field: HeldField) => boolean): Revision | undefined => {
    for (const field of held) {
      if (predicate(field) && edit(field)) return { kind, target: field.path.join('.'), crd: next };
    }
    return undefined;
  };
  const numbers = (field: HeldField) => field.values.filter((value): value is number => typeof value === 'number');
  const strings = (field: HeldField) => field.values.filter((value): value is string => typeof value === 'string');
  const isType = (field: HeldField, ...types: string[]) =>
    types.includes(String(field.schema.type)) && !field.schema['x-kubernetes-int-or-string'];
  switch (kind) {
    case 'fieldRemoved':
      return aim(
        () => true,
        (field) => {
          const name = field.path.at(-1)!;
          delete (field.parent.properties as Schema)[name];
          if (Array.isArray(field.parent.required))
            field.parent.required = field.parent.required.filter((required) => required !== name);
          if (Array.isArray(field.parent.required) && field.parent.required.length === 0) delete field.parent.required;
          return true;
        },
      );
    case 'enumNarrowed':
      return aim(
        (field) => Array.isArray(field.schema.enum) && field.schema.enum.length > 1,
        (field) => {
          const enumValues = field.schema.enum as unknown[];
          const narrowed = enumValues.filter((value) => !field.values.includes(value));
          if (narrowed.length === 0 || narrowed.length === enumValues.length) return false;
          field.schema.enum = narrowed;
          return true;
        },
      );
    case 'maximumLowered':
      return aim(
        (field) => isType(field, 'integer', 'number') && numbers(field).length > 0,
        (field) => {
          field.schema.maximum = Math.max(...numbers(field)) - 1;
          return true;
        },
      );
    case 'minimumRaised':
      return aim(
        (field) => isType(field, 'integer', 'number') && numbers(field).length > 0,
        (field) => {
          field.schema.minimum = Math.min(...numbers(field)) + 1;
          return true;
        },
      );
    case 'maxLengthLowered':
      return aim(
        (field) => isType(field, 'string') && !field.schema.enum && strings(field).some((value) => value.length > 0),
        (field) => {
          field.schema.maxLength = Math.max(...strings(field).map((value) => value.length)) - 1;
          return true;
        },
      );
    case 'patternAdded':
      // No value the objects hold is a run of digits alone (the kinds aimed at are names and words).
      return aim(
        (field) =>
          isType(field, 'string') &&
          !field.schema.pattern &&
          !field.schema.enum &&
          strings(field).some((value) => !/^[0-9]+$/.test(value)),
        (field) => {
          field.schema.pattern = '^[0-9]+$';
          return true;
        },
      );
    case 'typeChanged':
      return aim(
        (field) => isType(field, 'string', 'boolean', 'integer') && !field.schema.format && !field.schema.enum,
        (field) => {
          const to = field.schema.type === 'string' ? 'integer' : 'string';
          for (const key of [
            'pattern',
            'maxLength',
            'minLength',
            'maximum',
            'minimum',
            'default',
            'exclusiveMaximum',
            'exclusiveMinimum',
            'multipleOf',
          ])
            delete field.schema[key];
          field.schema.type = to;
          return true;
        },
      );
    case 'defaultChanged':
      return aim(
        (field) => field.schema.default !== undefined,
        (field) => {
          const changed = otherValidValue(field.schema, field.schema.default);
          if (changed === undefined) return false;
          field.schema.default = changed;
          return true;
        },
      );
    case 'celRuleAdded':
      return aim(
        () => true,
        (field) => {
          const rules = Array.isArray(field.parent['x-kubernetes-validations'])
            ? field.parent['x-kubernetes-validations']
            : [];
          field.parent['x-kubernetes-validations'] = [
            ...rules,
            { rule: `!has(self.${field.path.at(-1)!})`, message: `${field.path.at(-1)!} is no longer accepted` },
          ];
          return true;
        },
      );
    case 'requiredAdded':
    case 'defaultAdded':
      return absentPropertyRevision(kind, root, objects, next);
  }
}

/**
 * requiredAdded and defaultAdded aim at a scalar property of spec that some objects lack: the objects that lack it
 * are the ones a required field refuses and a default fills in.
 */
function absentPropertyRevision(
  kind: 'requiredAdded' | 'defaultAdded',
  root: Schema,
  objects: readonly Record<string, unknown>[],
  next: Record<string, unknown>,
): Revision | undefined {
  const specSchema =
    isPlainObject(root.properties) && isPlainObject(root.properties.spec) ? root.properties.spec : undefined;
  if (!specSchema || !isPlainObject(specSchema.properties)) return undefined;
  const required = Array.isArray(specSchema.required) ? specSchema.required : [];
  for (const name of Object.keys(specSchema.properties).sort()) {
    const property = specSchema.properties[name];
    if (!isPlainObject(property) || required.includes(name)) continue;
    const lacking = objects.filter((object) => isPlainObject(object.spec) && !(name in object.spec));
    if (lacking.length === 0) continue;
    if (kind === 'requiredAdded') {
      specSchema.required = [...required, name];
      return { kind, target: `spec.${name}`, crd: next };
    }
    if (property.default !== undefined) continue;
    const value = otherValidValue(property, undefined);
    if (value === undefined) continue;
    property.default = value;
    return { kind, target: `spec.${name}`, crd: next };
  }
  return undefined;
}

/** A value of the schema's type that its enum and bounds allow and that differs from `than`; undefined if none is safe. */
function otherValidValue(schema: Schema, than: unknown): unknown {
  if (Array.isArray(schema.enum)) return schema.enum.find((value) => value !== than);
  if (schema.type === 'boolean') return than !== true;
  if (schema.type === 'integer' || schema.type === 'number') {
    const minimum = typeof schema.minimum === 'number' ? schema.minimum : 0;
    const maximum = typeof schema.maximum === 'number' ? schema.maximum : Number.MAX_SAFE_INTEGER;
    const candidate = typeof than === 'number' && than + 1 <= maximum ? than + 1 : minimum;
    return candidate === than || candidate > maximum ? undefined : candidate;
  }
  return undefined;
}

/**
 * Every scalar field under spec that the objects hold, reached through properties only (not into lists or maps),
 * the most widely held first: a revision aimed at it touches as many objects as it can.
 */
function heldFields(root: Schema, objects: readonly Record<string, unknown>[]): HeldField[] {
  const found = new Map<string, HeldField>();
  const walk = (schema: Schema, value: unknown, path: string[]): void => {
    if (!isPlainObject(value) || !isPlainObject(schema.properties)) return;
    for (const [name, child] of Object.entries(value)) {
      const childSchema = schema.properties[name];
      if (!isPlainObject(childSchema)) continue;
      const childPath = [...path, name];
      if (child !== null && typeof child !== 'object') {
        const key = childPath.join('.');
        const entry = found.get(key) ?? { path: childPath, schema: childSchema, parent: schema, values: [] };
        entry.values.push(child);
        found.set(key, entry);
      } else {
        walk(childSchema, child, childPath);
      }
    }
  };
  const specSchema =
    isPlainObject(root.properties) && isPlainObject(root.properties.spec) ? root.properties.spec : undefined;
  if (!specSchema) return [];
  for (const object of objects) walk(specSchema, object.spec, ['spec']);
  return [...found.values()].sort(
    (a, b) => b.values.length - a.values.length || a.path.join('.').localeCompare(b.path.join('.')),
  );
}
