import type { JSONSchemaProps } from '../../../../src/contract/schema/json-schema-props.ts';
import type { DifferentialCase, Json } from './schema-cases.ts';
import { fullValue, getAt, isRecord, matchesPattern, minimalValue } from './schema-cases.ts';

type Steps = string[];

// Values the CEL rules of real CRDs turn on: empty and short strings, case and spacing, separators, URLs of both
// schemes, IPs of both families, CIDRs of several widths, versions, durations, quantities, percentages, timestamps
// on both sides of a date, times of day, dotted keys; small, equal, ordered and unordered numbers.
const strings = [
  '',
  'a',
  'A',
  'abc',
  'a-b',
  'a1',
  'abc-0',
  'abc-7',
  ' a',
  'a,b,c,d',
  'a,b',
  'https://a.example.com',
  'http://a.example.com',
  '10.0.0.1',
  '2001:db8::1',
  '10.0.0.0/8',
  '10.0.0.0/24',
  '1.2.3',
  '0.1.0',
  'v1',
  '1h',
  '2000h',
  '1Gi',
  '512Mi',
  '2Gi',
  '10%',
  '3',
  'app.a',
  'admin',
  'read',
  'write',
  'gold',
  'silver',
  '2019-06-01T00:00:00Z',
  '2024-06-01T00:00:00Z',
  'x'.repeat(30),
  '02:00',
  '23:30',
  '00:00',
];
// Spread first: a property gets four of them, and `min <= max` rules need a large one.
const integers = [0, 20000, 1, 100, 2, 3, 5, -1];
const numberLists: Json[] = [[1, 2], [2, 1], [60, 50], [10, 20, 30], [5]];
const stringLists: Json[] = [['read'], ['admin'], ['admin', 'read'], ['write', 'read'], ['x']];
const mapKeys = ['app.a', 'b', 'app.long', 'not a key!'];
const formats: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
  date: /^\d{4}-\d\d-\d\d$/,
  duration: /^\d+[hms]$/,
};
const maxVariants = 24;
const maxObjectVariants = 48;
const maxOldsPerSite = 6;
const maxUpdatesPerOld = 6;
const maxObjectUpdatesPerSite = 60;

export interface RuleSite {
  steps: Steps;
  schema: JSONSchemaProps;
  /** Whether a rule here compares with the old object, so that updates are what turns it. */
  transition: boolean;
}

/** The places whose schema carries rules (for a rule on a list's or map's values, the list or map), by property. */
export function ruleSites(schema: JSONSchemaProps, steps: Steps = []): RuleSite[] {
  const rules = [
    ...(schema['x-kubernetes-validations'] ?? []),
    ...(schema.items?.['x-kubernetes-validations'] ?? []),
    ...(typeof schema.additionalProperties === 'object'
      ? (schema.additionalProperties['x-kubernetes-validations'] ?? [])
      : []),
  ];
  const here: RuleSite[] =
    rules.length > 0 ? [{ steps, schema, transition: rules.some((rule) => /\boldSelf\b/.test(rule.rule)) }] : [];
  const below = Object.entries(schema.properties ?? {}).flatMap(([name, child]) =>
    name === 'metadata' && steps.length === 0 ? [] : ruleSites(child, [...steps, name]),
  );
  return [...here, ...below];
}

/** Values for one place, each valid for its schema where the pools allow, so that the outcome turns on the rules. */
export function variantsOf(schema: JSONSchemaProps, current: Json | undefined): Json[] {
  const candidates = candidatesOf(schema, current).filter((value) => fitsSchema(schema, value));
  const unique = [...new Map(candidates.map((value) => [JSON.stringify(value), value])).values()];
  return unique
    .filter((value) => JSON.stringify(value) !== JSON.stringify(current))
    .slice(0, schema.type === 'object' ? maxObjectVariants : maxVariants);
}

function candidatesOf(schema: JSONSchemaProps, current: Json | undefined): Json[] {
  if (schema.enum) return schema.enum as Json[];
  if (schema['x-kubernetes-int-or-string']) return [...integers, ...strings];
  switch (schema.type) {
    case 'string': {
      // A value of another format is refused by the schema before any rule runs: those that fit first.
      const format = schema.format ? formats[schema.format] : undefined;
      return format
        ? [...strings.filter((value) => format.test(value)), '2020-01-01T00:00:00Z', '2019-12-31T23:59:59Z'].filter(
            (value) => format.test(value),
          )
        : strings;
    }
    case 'integer':
      return integers;
    case 'number':
      return [...integers, 0.5];
    case 'boolean':
      return [true, false];
    case 'array':
      return listCandidates(schema);
    case 'object':
      return typeof schema.additionalProperties === 'object'
        ? mapCandidates(schema.additionalProperties)
        : objectCandidates(schema, current);
    default:
      return [];
  }
}

function listCandidates(schema: JSONSchemaProps): Json[] {
  const items = schema.items;
  if (!items) return [];
  if (items.type === 'integer' || items.type === 'number') return [[], ...numberLists];
  if (items.type === 'string') return [[], ...stringLists, ...strings.slice(1, 8).map((value) => [value])];
  const item = fullValue(items, 2);
  if (item === undefined) return [[]];
  const second = renamed(item, 1);
  const both = (change: (value: Json, index: number) => Json) => [change(item, 0), change(second, 1)];
  return [
    [],
    [item],
    [item, second],
    [second],
    // Every boolean of both items true, then every number of both raised: "at most one primary", "numbers under N".
    both((value) => withLeaves(value, (leaf) => (typeof leaf === 'boolean' ? true : leaf))),
    both((value, index) => withLeaves(value, (leaf) => (typeof leaf === 'number' ? 20000 + index : leaf))),
  ];
}

function mapCandidates(values: JSONSchemaProps): Json[] {
  const value = values.type === 'string' ? 'v' : (fullValue(values, 2) ?? null);
  return [
    {},
    ...mapKeys.map((key) => ({ [key]: value })),
    { 'app.a': values.type === 'string' ? 'x'.repeat(30) : value },
  ];
}

/** The object with each optional property left out or added, and each scalar property set to each pool value. */
function objectCandidates(schema: JSONSchemaProps, current: Json | undefined): Json[] {
  const base = (isRecord(current) ? current : (minimalValue(schema) ?? {})) as Record<string, Json>;
  if (!isRecord(base)) return [];
  // Every property left out or added first, then the scalar ones set to pool values: each property gets its turn.
  const presence: Json[] = [];
  const values: Json[][] = [];
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (name in base && !schema.required?.includes(name))
      presence.push(Object.fromEntries(Object.entries(base).filter(([key]) => key !== name)));
    if (!(name in base)) {
      const added = fullValue(property, 2);
      if (added !== undefined) presence.push({ ...base, [name]: added });
    }
    if (['string', 'integer', 'boolean'].includes(String(property.type)) || property['x-kubernetes-int-or-string']) {
      values.push(
        candidatesOf(property, base[name])
          .filter((candidate) => fitsSchema(property, candidate))
          .slice(0, 4)
          .map((value) => ({ ...base, [name]: value })),
      );
    }
  }
  const interleaved = Array.from({ length: Math.max(0, ...values.map((list) => list.length)) }, (_, index) =>
    values.flatMap((list) => (index < list.length ? [list[index]!] : [])),
  );
  // And every property at once: "a and b are mutually exclusive" turns only when both are there.
  const everything = fullValue(schema, 2);
  return [...(everything === undefined ? [] : [everything]), ...presence, ...interleaved.flat()];
}

/** Whether a value meets the keywords a rule cannot see past: type, enum, bounds, length, pattern. */
function fitsSchema(schema: JSONSchemaProps, value: Json): boolean {
  if (schema.enum && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) return false;
  if (typeof value === 'string') {
    if (schema.type !== 'string' && !schema['x-kubernetes-int-or-string']) return false;
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return false;
    if (schema.minLength !== undefined && value.length < schema.minLength) return false;
    if (!matchesPattern(schema, value)) return false;
    return true;
  }
  if (typeof value === 'number') {
    if (schema.type !== 'integer' && schema.type !== 'number' && !schema['x-kubernetes-int-or-string']) return false;
    return (
      (schema.minimum === undefined || value >= schema.minimum) &&
      (schema.maximum === undefined || value <= schema.maximum)
    );
  }
  if (Array.isArray(value))
    return (
      schema.type === 'array' &&
      (schema.maxItems === undefined || value.length <= schema.maxItems) &&
      value.length >= (schema.minItems ?? 0)
    );
  if (typeof value === 'boolean') return schema.type === 'boolean';
  return schema.type === 'object';
}

function withLeaves(value: Json, change: (leaf: Json) => Json): Json {
  if (Array.isArray(value)) return value.map((item) => withLeaves(item, change));
  if (isRecord(value))
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withLeaves(child, change)]));
  return change(value);
}

/** A copy whose strings differ, so that a second list item keeps a list-map key of its own. */
function renamed(value: Json, index: number): Json {
  return withLeaves(value, (leaf) => (typeof leaf === 'string' ? `${leaf}${index}` : leaf));
}

/** The object with the value at `steps`, parents made (each as its schema's minimal value) where absent. */
function withValueAndParentsAt(
  object: Record<string, unknown>,
  schema: JSONSchemaProps,
  steps: Steps,
  value: Json,
): Record<string, unknown> {
  const copy = structuredClone(object) as { [key: string]: Json };
  let node = copy;
  let nodeSchema = schema;
  for (const step of steps.slice(0, -1)) {
    nodeSchema = nodeSchema.properties![step]!;
    if (!isRecord(node[step])) node[step] = (minimalValue(nodeSchema) ?? {}) as Json;
    node = node[step] as { [key: string]: Json };
  }
  node[steps.at(-1)!] = value;
  return copy;
}

/** CREATEs of `base` with each place that carries rules set to each of its variants. */
export function ruleCreateCases(schema: JSONSchemaProps, base: Record<string, unknown>): DifferentialCase[] {
  return ruleSites(schema)
    .filter((site) => site.steps.length > 0)
    .flatMap((site) =>
      variantsOf(site.schema, getAt(base as Json, site.steps)).map((value) => ({
        name: `rule site ${site.steps.join('.')} = ${JSON.stringify(value)}`,
        mutation: 'value for a rule',
        object: withValueAndParentsAt(base, schema, site.steps, value),
      })),
    );
}

/**
 * UPDATEs where transition rules judge: at each place with a rule on oldSelf, from an object the API server stored
 * (a create it allowed) to the other values of that place.
 */
export function ruleUpdateCases(
  schema: JSONSchemaProps,
  base: Record<string, unknown>,
  allowedCreates: readonly DifferentialCase[],
): DifferentialCase[] {
  const cases: DifferentialCase[] = [];
  for (const site of ruleSites(schema).filter((candidate) => candidate.transition && candidate.steps.length > 0)) {
    const prefix = `rule site ${site.steps.join('.')} = `;
    const stored = allowedCreates.filter((testCase) => testCase.name.startsWith(prefix));
    for (const { old, value } of site.schema.type === 'object'
      ? objectUpdates(site, stored, base)
      : valueUpdates(site, stored)) {
      cases.push({
        name: `${old.name} -> ${JSON.stringify(value)} (update)`,
        mutation: 'value for a rule (update)',
        object: withValueAndParentsAt(old.object, schema, site.steps, value),
        oldObject: old.object,
      });
    }
  }
  return cases;
}

/** A value's rule: from values spread over those stored, a few others each. */
function valueUpdates(
  site: RuleSite,
  stored: readonly DifferentialCase[],
): Array<{ old: DifferentialCase; value: Json }> {
  const olds = stored
    .filter((_, index) => index % Math.max(1, Math.floor(stored.length / maxOldsPerSite)) === 0)
    .slice(0, maxOldsPerSite);
  return olds.flatMap((old) =>
    variantsOf(site.schema, getAt(old.object as Json, site.steps))
      .slice(0, maxUpdatesPerOld)
      .map((value) => ({ old, value })),
  );
}

/**
 * An object's rule compares its properties with the old ones ("immutable once set"): from each stored object that
 * set a property the base does not have (or set it otherwise), that property changed to other values, and removed.
 */
function objectUpdates(
  site: RuleSite,
  stored: readonly DifferentialCase[],
  base: Record<string, unknown>,
): Array<{ old: DifferentialCase; value: Json }> {
  const baseValue = getAt(base as Json, site.steps);
  const updates: Array<{ old: DifferentialCase; value: Json }> = [];
  for (const old of stored) {
    const oldValue = getAt(old.object as Json, site.steps);
    if (!isRecord(oldValue)) continue;
    const changed = Object.keys(oldValue).filter(
      (key) => JSON.stringify(oldValue[key]) !== JSON.stringify(isRecord(baseValue) ? baseValue[key] : undefined),
    );
    for (const key of changed) {
      const property = site.schema.properties?.[key];
      if (!property) continue;
      const others = variantsOf(property, oldValue[key])
        .slice(0, 3)
        .map((value): Json => ({ ...oldValue, [key]: value }));
      const removed = Object.fromEntries(Object.entries(oldValue).filter(([name]) => name !== key));
      for (const value of [...others, removed]) updates.push({ old, value });
    }
  }
  return updates.slice(0, maxObjectUpdatesPerSite);
}
