import { fieldPathSteps, renderFieldPath } from '../../contract/values/field-path.ts';
import { isPlainObject } from '../../contract/values/kube-object.ts';

// Paths into a schema, written as Kubernetes writes field paths in errors (`spec.caches[*].memory`), `[*]` standing
// for any list item or map value, as contracts' declared paths write it.

/** Stands for any list item or any map value. */
export const anyElement = '[*]';

/** The path of a property of the field at `path`. */
export function propertyPath(path: string, name: string): string {
  return renderFieldPath(path, [name]);
}

/** The path of the items of a list, or of the values of a map, at `path`. */
export function elementPath(path: string): string {
  return `${path}${anyElement}`;
}

/**
 * The schemas a path reaches in a structural schema ('' is the root). A `[*]` step reaches list items and map
 * values, and a property named `*` (written the same way). Empty when the schema has no such field.
 */
export function schemasAtPath(root: unknown, path: string): Record<string, unknown>[] {
  let nodes = isPlainObject(root) ? [root] : [];
  for (const { value } of fieldPathSteps(path)) {
    const name = String(value);
    nodes = nodes.flatMap((node) => {
      const found: unknown[] = [];
      if (isPlainObject(node.properties) && Object.hasOwn(node.properties, name)) found.push(node.properties[name]);
      // additionalProperties: true declares a map of any values: they have no schema, and are there all the same.
      if (name === '*') found.push(node.items, node.additionalProperties === true ? {} : node.additionalProperties);
      return found.filter(isPlainObject);
    });
  }
  return nodes;
}

/**
 * An object's field path as a schema path: every index and map key (`spec.ports[0]`, `spec.labels[app]`) as `[*]`,
 * so that what happens to one object's field can be matched with the rule about that field.
 */
export function asSchemaPath(fieldPath: string): string {
  return fieldPath.replace(/\[[^\]]*\]/g, anyElement);
}

/** Whether the field at `path` is the one at `ancestor` or below it ('' is the root, above everything). */
export function isAtOrUnder(path: string, ancestor: string): boolean {
  return ancestor === '' || path === ancestor || path.startsWith(`${ancestor}.`) || path.startsWith(`${ancestor}[`);
}

/** Whether one of two schema paths is at or below the other: a finding about one is about the other. */
export function pathsMeet(a: string, b: string): boolean {
  return isAtOrUnder(a, b) || isAtOrUnder(b, a);
}
