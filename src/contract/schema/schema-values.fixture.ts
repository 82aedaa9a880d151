import fc from 'fast-check';
import { createSchemaCompiler } from './compile-schema.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

// Values a structural schema accepts, as fast-check arbitraries, for property tests of what reads them: every type
// and its bounds, formats crdgate checks, patterns, int-or-string and controller-gen's quantities, nullable fields,
// map and set lists (unique as the API server wants them), maps and embedded resources. Keys of map lists come from
// small domains, so that two lists generated apart share items. Values are filtered through crdgate's own schema
// validation (which checks formats too), so every one is valid; the CRD's CEL rules are not checked.

/** Integers JavaScript holds only approximately, which the API server takes in an int64 field. */
const largeIntegers = [2 ** 53, 2 ** 60, -(2 ** 60)];

const formatValues: Readonly<Record<string, fc.Arbitrary<string>>> = {
  quantity: fc
    .tuple(
      fc.constantFrom('', '-', '+'),
      fc.nat(4096),
      fc.constantFrom('', '.5', '.25'),
      fc.constantFrom('', 'm', 'k', 'M', 'G', 'T', 'Ki', 'Mi', 'Gi', 'Ti', 'e3', 'E-2'),
    )
    .map(([sign, whole, fraction, suffix]) => `${sign}${whole}${fraction}${suffix}`),
  'date-time': fc.constantFrom('2024-05-01T10:00:00Z', '2025-12-31T23:59:59+01:00'),
  date: fc.constantFrom('2024-05-01', '1999-12-31'),
  uuid: fc.uuid(),
  'dns1123-label': fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?$/),
  'dns1123-subdomain': fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?)?$/),
  hostname: fc.constantFrom('db.example.com', 'localhost'),
  ipv4: fc.ipV4(),
  ipv6: fc.constantFrom('2001:db8::1', '::1'),
  byte: fc.constantFrom('aGVsbG8=', ''),
  int32: fc.integer({ min: -99, max: 99 }).map(String),
  int64: fc.integer({ min: -99, max: 99 }).map(String),
};

/** Strings that readers tell apart or fail on, tried before arbitrary text: quantities, releases, numbers, nothing. */
const telling = [
  '',
  '1',
  '1024',
  '1Gi',
  '2048Mi',
  '500m',
  '1e3',
  '16.4',
  '16.10',
  '3',
  'a',
  'b',
  'v16',
  'latest',
  '25%',
];

export interface SchemaValueOptions {
  /** Levels of objects and lists below which only what is required is generated. */
  maxDepth?: number;
}

/** Valid values of `schema`: every one passes crdgate's validation of it. */
export function schemaValues(schema: JSONSchemaProps, options: SchemaValueOptions = {}): fc.Arbitrary<unknown> {
  const validate = createSchemaCompiler().compile(schema, { rootPath: 'value' });
  return valuesOf(schema, options.maxDepth ?? 4, false).filter((value) => validate(value).length === 0);
}

function valuesOf(schema: JSONSchemaProps, depth: number, asKey: boolean): fc.Arbitrary<unknown> {
  const values = nonNullValues(schema, depth, asKey);
  return schema.nullable
    ? fc.oneof({ weight: 5, arbitrary: values }, { weight: 1, arbitrary: fc.constant(null) })
    : values;
}

function nonNullValues(schema: JSONSchemaProps, depth: number, asKey: boolean): fc.Arbitrary<unknown> {
  if (schema.enum !== undefined && schema.enum.length > 0) return fc.constantFrom(...schema.enum);
  if (schema['x-kubernetes-int-or-string']) return fc.oneof(integers(schema, asKey), strings(schema, asKey));
  switch (schema.type) {
    case 'string':
      return strings(schema, asKey);
    case 'integer':
      return integers(schema, asKey);
    case 'number':
      return fc.oneof(
        integers(schema, asKey),
        fc.double({ noNaN: true, noDefaultInfinity: true, min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 }),
      );
    case 'boolean':
      return fc.boolean();
    case 'array':
      return lists(schema, depth);
    case 'object':
      return objects(schema, depth);
    default:
      // x-kubernetes-preserve-unknown-fields without a type: anything.
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function strings(schema: JSONSchemaProps, asKey: boolean): fc.Arbitrary<string> {
  const format = schema.format === undefined ? undefined : formatValues[schema.format];
  let pattern: fc.Arbitrary<string> | undefined;
  if (schema.pattern !== undefined) {
    // fast-check generates from ECMAScript's reading of the pattern; Go's (crdgate's validation) filters below.
    try {
      pattern = fc.stringMatching(new RegExp(schema.pattern));
    } catch {
      pattern = undefined; // Go's syntax alone: the candidates below, filtered by validation
    }
  }
  const fits = (text: string) =>
    text.length >= (schema.minLength ?? 0) && text.length <= (schema.maxLength ?? Infinity);
  const chosen = asKey
    ? fc.constantFrom('a', 'b', 'c', '1')
    : fc.oneof(fc.constantFrom(...telling), fc.string({ maxLength: 12 }));
  const candidates = format ?? (asKey || pattern === undefined ? chosen : fc.oneof(pattern, chosen));
  return candidates.filter(fits);
}

function integers(schema: JSONSchemaProps, asKey: boolean): fc.Arbitrary<number> {
  const int32 = schema.format === 'int32';
  const min = Math.ceil(
    (schema.minimum ?? (int32 ? -(2 ** 31) : -Number.MAX_SAFE_INTEGER)) + (schema.exclusiveMinimum ? 1 : 0),
  );
  const max = Math.floor(
    (schema.maximum ?? (int32 ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER)) - (schema.exclusiveMaximum ? 1 : 0),
  );
  const within = (value: number) => value >= min && value <= max;
  if (asKey) return fc.integer({ min: Math.max(min, 0), max: Math.min(max, Math.max(min, 0) + 3) });
  const large = int32 || schema.minimum !== undefined || schema.maximum !== undefined ? [] : largeIntegers;
  const small = [0, 1, 2, 3, 1024, -1].filter(within);
  return fc.oneof(
    { weight: 4, arbitrary: small.length > 0 ? fc.constantFrom(...small) : fc.integer({ min, max }) },
    { weight: 4, arbitrary: fc.integer({ min, max }) },
    {
      weight: large.length > 0 ? 1 : 0,
      arbitrary: large.length > 0 ? fc.constantFrom(...large) : fc.integer({ min, max }),
    },
  );
}

function lists(schema: JSONSchemaProps, depth: number): fc.Arbitrary<unknown[]> {
  const items = schema.items;
  if (items === undefined) return fc.constant([]);
  const mapKeys = schema['x-kubernetes-list-type'] === 'map' ? (schema['x-kubernetes-list-map-keys'] ?? []) : [];
  const size = {
    minLength: schema.minItems ?? 0,
    maxLength: Math.min(schema.maxItems ?? 4, depth > 0 ? 4 : (schema.minItems ?? 0)),
  };
  const item = mapKeys.length > 0 ? objects(items, depth - 1, mapKeys) : valuesOf(items, depth - 1, false);
  if (mapKeys.length > 0) {
    return fc.uniqueArray(item, {
      ...size,
      selector: (value) => JSON.stringify(mapKeys.map((key) => (value as Record<string, unknown>)[key] ?? null)),
    });
  }
  if (schema['x-kubernetes-list-type'] === 'set')
    return fc.uniqueArray(item, { ...size, selector: (value) => JSON.stringify(value) });
  return fc.array(item, size);
}

function objects(
  schema: JSONSchemaProps,
  depth: number,
  keys: readonly string[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  const embedded = schema['x-kubernetes-embedded-resource'] ? { apiVersion: 'v1', kind: 'ConfigMap' } : {};
  const properties = schema.properties ?? {};
  // A field the API server defaults is never absent from what it stores, nor is a key of a map list.
  const always = new Set([
    ...(schema.required ?? []),
    ...keys,
    ...Object.keys(properties).filter((name) => properties[name]!.default !== undefined),
  ]);
  const shown = Object.keys(properties).filter((name) => always.has(name) || depth > 0);
  const record = fc.record(
    Object.fromEntries(shown.map((name) => [name, valuesOf(properties[name]!, depth - 1, keys.includes(name))])),
    {
      requiredKeys: shown.filter((name) => always.has(name)),
    },
  );
  const additional = schema.additionalProperties;
  const extra =
    typeof additional === 'object' && depth > 0
      ? fc.dictionary(fc.constantFrom('a', 'b', 'team'), valuesOf(additional, depth - 1, false), { maxKeys: 2 })
      : fc.constant({});
  return fc.tuple(record, extra).map(([declared, more]) => ({ ...embedded, ...more, ...declared }));
}
