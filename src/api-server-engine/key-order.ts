import { setOwn } from '../contract/values/kube-object.ts';

// The engine answers with JSON objects whose keys Go's encoder sorted; what crdgate prints keeps the user's order.

/** `value` with the keys of each object in the order `template` has them at the same place; new keys after them. */
export function inKeyOrderOf<T>(value: T, template: unknown): T {
  if (Array.isArray(value))
    return value.map((item, index) => inKeyOrderOf(item, Array.isArray(template) ? template[index] : undefined)) as T;
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const model =
    template !== null && typeof template === 'object' && !Array.isArray(template)
      ? (template as Record<string, unknown>)
      : {};
  const ordered: Record<string, unknown> = {};
  for (const key of Object.keys(model))
    if (Object.hasOwn(source, key)) setOwn(ordered, key, inKeyOrderOf(source[key], model[key]));
  for (const key of Object.keys(source))
    if (!Object.hasOwn(model, key)) setOwn(ordered, key, inKeyOrderOf(source[key], undefined));
  return ordered as T;
}
