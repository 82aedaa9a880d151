import type { CelProtoJson } from '../api-server-engine/engine.ts';

// JSON objects as a ValidatingAdmissionPolicy sees them, for evaluating compiled CEL through the engine's evaluateCel.

/** A JSON value as cel.expr.Value, as kube-apiserver reads unstructured JSON: whole numbers are ints. */
export function celValue(value: unknown): CelProtoJson {
  if (value === null) return { nullValue: null };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'number')
    return Number.isInteger(value) ? { int64Value: BigInt(value).toString() } : { doubleValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(celValue) } };
  return {
    mapValue: {
      entries: Object.entries(value as object).map(([key, item]) => ({
        key: { stringValue: key },
        value: celValue(item),
      })),
    },
  };
}

/** A variable declared dyn: a policy sees a custom object as unstructured JSON, typed by its values. */
export const dyn = (name: string): CelProtoJson => ({ name, ident: { type: { dyn: {} } } });

/** The API server drops the nulls of fields that are not nullable before any policy sees the object. */
export function withoutNulls(value: unknown): Record<string, unknown> {
  const prune = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(prune);
    if (item === null || typeof item !== 'object') return item;
    return Object.fromEntries(
      Object.entries(item)
        .filter(([, field]) => field !== null)
        .map(([key, field]) => [key, prune(field)]),
    );
  };
  return prune(value) as Record<string, unknown>;
}

/** A cel.expr.Value of JSON's kinds as the JSON value it stands for: ints and doubles both as numbers. */
export function jsonOfCelValue(value: CelProtoJson): unknown {
  const [kind] = Object.keys(value);
  const content = value[kind!];
  switch (kind) {
    case 'nullValue':
      return null;
    case 'boolValue':
    case 'stringValue':
      return content;
    case 'int64Value':
    case 'uint64Value':
    case 'doubleValue':
      return Number(content);
    case 'listValue':
      return ((content as { values?: CelProtoJson[] }).values ?? []).map(jsonOfCelValue);
    case 'mapValue':
      return Object.fromEntries(
        ((content as { entries?: { key: CelProtoJson; value: CelProtoJson }[] }).entries ?? []).map((entry) => [
          jsonOfCelValue(entry.key),
          jsonOfCelValue(entry.value),
        ]),
      );
    default:
      throw new Error(`not a JSON value: ${JSON.stringify(value)}`);
  }
}
