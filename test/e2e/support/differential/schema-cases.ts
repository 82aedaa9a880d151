import type { JSONSchemaProps } from '../../../../src/contract/schema/json-schema-props.ts';
import { compileGoRegexp } from '../../../../src/contract/schema/structural/go-regexp.ts';

/** One object to put to both judges, and what it was made to test. */
export interface DifferentialCase {
  /** `mutation at path`, for a failure message and for the tally by mutation. */
  name: string;
  mutation: string;
  object: Record<string, unknown>;
  /** Present for an UPDATE: the object as stored before. */
  oldObject?: Record<string, unknown>;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const maxCasesPerMutation = 40;
const maxDepth = 8;

/**
 * A valid instance of `schema` with only what is required (and what list-map keys need), as small as the schema
 * allows: the first enum value, the minimum, the minimum length, a value of each format. Undefined where no value
 * can be made (a pattern that no candidate meets): the caller leaves that field out.
 */
export function minimalValue(schema: JSONSchemaProps, depth = 0): Json | undefined {
  if (schema.default !== undefined) return schema.default as Json;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0] as Json;
  if (schema['x-kubernetes-int-or-string']) return matchesPattern(schema, '1') ? 1 : stringValue(schema);
  if (schema['x-kubernetes-preserve-unknown-fields'] && schema.type === undefined) return {};
  switch (schema.type) {
    case 'object': {
      if (depth > maxDepth) return undefined;
      const value: Record<string, Json> = {};
      if (schema['x-kubernetes-embedded-resource']) Object.assign(value, { apiVersion: 'v1', kind: 'ConfigMap' });
      for (const name of schema.required ?? []) {
        const property = schema.properties?.[name];
        if (!property) continue;
        const child = minimalValue(property, depth + 1);
        if (child === undefined) return undefined;
        value[name] = child;
      }
      return value;
    }
    case 'array': {
      const count = schema.minItems ?? 0;
      if (count === 0) return [];
      const items = Array.from({ length: count }, (_, index) => distinctItem(schema.items!, index, depth));
      return items.some((item) => item === undefined) ? undefined : (items as Json[]);
    }
    case 'string':
      return stringValue(schema);
    case 'integer':
      return schema.minimum !== undefined ? Math.ceil(schema.minimum + (schema.exclusiveMinimum ? 1 : 0)) : 0;
    case 'number':
      // Not a whole number: kube-apiserver reads a fractional multipleOf as 0 when the value is whole (a mutation).
      return (schema.minimum ?? 0) + (schema.multipleOf ?? 0.5);
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}

/**
 * A valid instance of `schema` with every property it declares down to `fullDepth` levels (one item per list, one
 * entry per map), so that mutations reach every kind of field; below that, what is required. Optional fields that
 * no value can be made for are left out.
 */
export function fullValue(schema: JSONSchemaProps, fullDepth: number, depth = 0): Json | undefined {
  if (depth >= fullDepth || schema.enum || schema['x-kubernetes-int-or-string']) return minimalValue(schema, depth);
  if (schema.type === 'object' && schema.properties) {
    const value = minimalValue(schema, depth);
    if (!isRecord(value ?? null)) return value;
    const object = value as { [key: string]: Json };
    for (const [name, property] of Object.entries(schema.properties)) {
      const child = fullValue(property, fullDepth, depth + 1);
      if (child !== undefined) object[name] = child;
      else if (schema.required?.includes(name)) return undefined;
    }
    if (schema.maxProperties !== undefined && Object.keys(object).length > schema.maxProperties)
      return minimalValue(schema, depth);
    return object;
  }
  if (schema.type === 'object' && typeof schema.additionalProperties === 'object') {
    const child = fullValue(schema.additionalProperties, fullDepth, depth + 1);
    return child === undefined ? {} : { key1: child };
  }
  if (schema.type === 'array' && schema.items) {
    const count = Math.max(schema.minItems ?? 0, 1);
    if (schema.maxItems !== undefined && schema.maxItems < count) return minimalValue(schema, depth);
    const items = Array.from({ length: count }, (_, index) => {
      const item = fullValue(schema.items!, fullDepth, depth + 1);
      return index === 0 ? item : distinctCopy(item as Json, index);
    });
    return items.some((item) => item === undefined) ? minimalValue(schema, depth) : (items as Json[]);
  }
  return minimalValue(schema, depth);
}

function distinctItem(schema: JSONSchemaProps, index: number, depth: number): Json | undefined {
  const base = minimalValue(schema, depth + 1);
  if (typeof base === 'string') return `${base}${index === 0 ? '' : index}`;
  if (typeof base === 'number') return base + index;
  return base;
}

const formatValues: Record<string, string> = {
  'date-time': '2024-05-01T10:00:00Z',
  date: '2024-05-01',
  byte: 'aGVsbG8=',
  uuid: '0f8e3c1a-7d2b-4c5e-9a1f-2b3c4d5e6f70',
  ipv4: '192.0.2.10',
  ipv6: '2001:db8::1',
  cidr: '192.0.2.0/24',
  email: 'dba@example.com',
  hostname: 'db.example.com',
  uri: 'https://example.com/x',
  duration: '5m',
  int32: '1',
  int64: '1',
};

const stringCandidates = [
  'a',
  'abc',
  'a1',
  'TCP',
  'Retain',
  '10%',
  '1',
  '1Gi',
  'example.com',
  'a-b',
  'A',
  'abc123',
  '5m',
  'v1',
  '02:00',
];

function stringValue(schema: JSONSchemaProps): string | undefined {
  const format = schema.format ? formatValues[schema.format] : undefined;
  const candidates = [...(format ? [format] : []), ...stringCandidates];
  const min = schema.minLength ?? 0;
  return candidates
    .map((candidate) => candidate.padEnd(min, 'a'))
    .find(
      (candidate) =>
        matchesPattern(schema, candidate) && (schema.maxLength === undefined || candidate.length <= schema.maxLength),
    );
}

/** Whether a value meets the schema's pattern as the API server reads it (Go's regexp); a pattern it refuses, never. */
export function matchesPattern(schema: JSONSchemaProps, value: string): boolean {
  if (!schema.pattern) return true;
  try {
    return compileGoRegexp(schema.pattern).test(value);
  } catch {
    return false;
  }
}

interface SchemaSite {
  /** Steps from the object's root (`['spec', 'ports', 0, 'name']`). */
  steps: Array<string | number>;
  schema: JSONSchemaProps;
  parent?: JSONSchemaProps;
}

/** Every place in `object` that `schema` describes, parents before children (depth-bounded). */
function sites(
  schema: JSONSchemaProps,
  object: Json,
  steps: Array<string | number> = [],
  parent?: JSONSchemaProps,
): SchemaSite[] {
  const found: SchemaSite[] = [{ steps, schema, ...(parent ? { parent } : {}) }];
  if (steps.length > maxDepth || object === null || typeof object !== 'object') return found;
  if (Array.isArray(object)) {
    if (schema.items)
      object.forEach((item, index) => found.push(...sites(schema.items!, item, [...steps, index], schema)));
    return found;
  }
  for (const [name, value] of Object.entries(object)) {
    const child =
      schema.properties?.[name] ??
      (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    if (child) found.push(...sites(child, value, [...steps, name], schema));
  }
  return found;
}

const pathOf = (steps: Array<string | number>) =>
  steps
    .map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`))
    .join('')
    .replace(/^\./, '');

function setAt(object: Json, steps: Array<string | number>, value: Json | undefined): Json {
  const copy = structuredClone(object);
  let node: any = copy;
  for (const step of steps.slice(0, -1)) node = node[step];
  const last = steps.at(-1)!;
  if (value === undefined) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

export function getAt(object: Json, steps: Array<string | number>): Json {
  let node: any = object;
  for (const step of steps) node = node?.[step];
  return node as Json;
}

type Mutate = (site: SchemaSite, value: Json) => Json | undefined | typeof remove;
const remove = Symbol('remove');

/** The single mutations, each applied where it means something: named so that a tally shows what was covered. */
const mutations: Record<string, Mutate> = {
  // Valid for the schema, different from the base: what transition rules (oldSelf) and CEL rules judge.
  'another valid value': ({ schema }, value) => {
    if (schema.enum) return schema.enum.find((option) => option !== value) as Json | undefined;
    if (schema.type === 'string' && typeof value === 'string') {
      const format = schema.format ? formatValues[schema.format] : undefined;
      return [...(format ? [] : stringCandidates), 'zz', 'b2']
        .map((candidate) => candidate.padEnd(schema.minLength ?? 0, 'b'))
        .find(
          (candidate) =>
            candidate !== value &&
            matchesPattern(schema, candidate) &&
            (schema.maxLength === undefined || candidate.length <= schema.maxLength),
        );
    }
    if (schema.type === 'integer' && typeof value === 'number') {
      const next = value + 1;
      return schema.maximum === undefined || next <= schema.maximum
        ? next
        : value - 1 >= (schema.minimum ?? -Infinity)
          ? value - 1
          : undefined;
    }
    if (schema.type === 'boolean' && typeof value === 'boolean') return !value;
    return undefined;
  },
  'wrong type': ({ schema }) => {
    if (schema['x-kubernetes-int-or-string']) return true;
    switch (schema.type) {
      case 'string':
        return 12;
      case 'integer':
      case 'number':
        return 'twelve';
      case 'boolean':
        return 'yes';
      case 'object':
        return 'an object';
      case 'array':
        return 'a list';
      default:
        return undefined;
    }
  },
  null: ({ steps }) => (steps.length > 1 ? null : undefined),
  'unknown field': ({ schema }, value) =>
    schema.type === 'object' && schema.properties && !schema['x-kubernetes-preserve-unknown-fields'] && isRecord(value)
      ? { ...value, zzUnknownField: 'x' }
      : undefined,
  'below minimum': ({ schema }) =>
    schema.minimum !== undefined ? schema.minimum - (schema.type === 'integer' ? 1 : 0.5) : undefined,
  'above maximum': ({ schema }) =>
    schema.maximum !== undefined ? schema.maximum + (schema.type === 'integer' ? 1 : 0.5) : undefined,
  'not a multiple': ({ schema }) =>
    schema.multipleOf !== undefined ? schema.multipleOf * 1.5 + (schema.minimum ?? 0) : undefined,
  'whole number for a fractional multipleOf': ({ schema }) =>
    schema.multipleOf !== undefined && !Number.isInteger(schema.multipleOf)
      ? Math.ceil((schema.minimum ?? 0) + 1)
      : undefined,
  'too long': ({ schema }, value) =>
    schema.maxLength !== undefined && typeof value === 'string' ? value.padEnd(schema.maxLength + 1, 'a') : undefined,
  'too short': ({ schema }) => (schema.minLength !== undefined && schema.minLength > 0 ? '' : undefined),
  'not in enum': ({ schema }) =>
    schema.enum ? (typeof schema.enum[0] === 'number' ? 987654 : 'NotInTheEnum') : undefined,
  'pattern broken': ({ schema }) => (schema.pattern ? '!! not matching !!' : undefined),
  'format broken': ({ schema }) =>
    schema.format && schema.type === 'string' && schema.format !== 'byte' ? 'not-of-its-format' : undefined,
  'byte as array': ({ schema }) => (schema.format === 'byte' ? [1, 2] : undefined),
  'int-or-string fraction': ({ schema }) => (schema['x-kubernetes-int-or-string'] ? 1.5 : undefined),
  'required removed': ({ parent, steps }) => (parent?.required?.includes(String(steps.at(-1))) ? remove : undefined),
  'too many items': ({ schema }, value) =>
    schema.maxItems !== undefined && Array.isArray(value) && value.length > 0
      ? Array.from({ length: schema.maxItems + 1 }, (_, i) => distinctCopy(value[0]!, i))
      : undefined,
  'too few items': ({ schema }, value) =>
    schema.minItems !== undefined && schema.minItems > 0 && Array.isArray(value) ? [] : undefined,
  'duplicate in set': ({ schema }, value) =>
    schema['x-kubernetes-list-type'] === 'set' && Array.isArray(value) && value.length > 0
      ? [...value, value[0]!]
      : undefined,
  'duplicate map key': ({ schema }, value) =>
    schema['x-kubernetes-list-type'] === 'map' && Array.isArray(value) && value.length > 0
      ? [...value, structuredClone(value[0]!)]
      : undefined,
  'too many properties': ({ schema }, value) =>
    schema.maxProperties !== undefined && isRecord(value)
      ? Object.fromEntries(
          Array.from({ length: schema.maxProperties + 1 }, (_, i) => [`key${i}`, Object.values(value)[0] ?? 'v']),
        )
      : undefined,
  'embedded metadata unknown field': ({ schema }, value) =>
    schema['x-kubernetes-embedded-resource'] && isRecord(value)
      ? { ...value, metadata: { name: 'x', zzUnknown: 1 } }
      : undefined,
  'embedded metadata bad label': ({ schema }, value) =>
    schema['x-kubernetes-embedded-resource'] && isRecord(value)
      ? { ...value, metadata: { name: 'x', labels: { 'bad label!': 'v' } } }
      : undefined,
  'embedded without kind': ({ schema }, value) =>
    schema['x-kubernetes-embedded-resource'] && isRecord(value) ? { metadata: { name: 'x' } } : undefined,
};

export function isRecord(value: Json | undefined): value is { [key: string]: Json } {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

function distinctCopy(item: Json, index: number): Json {
  if (typeof item === 'string') return `${item}${index}`;
  if (typeof item === 'number') return item + index;
  if (isRecord(item))
    return Object.fromEntries(
      Object.entries(item).map(([key, value]) => [
        key,
        typeof value === 'string' ? `${value}${index}` : typeof value === 'number' ? value + index : value,
      ]),
    );
  return item;
}

/**
 * Single mutations of each base object at every place its schema describes (bounded per mutation), as CREATEs; and
 * the same mutations as UPDATEs of a base the API server stores (nothing to ratchet: the old object is valid), where
 * transition rules judge the change.
 */
export function differentialCases(
  schema: JSONSchemaProps,
  bases: ReadonlyArray<{ name: string; object: Record<string, unknown>; storable: boolean }>,
): DifferentialCase[] {
  const cases: DifferentialCase[] = [];
  const perMutation = new Map<string, number>();
  for (const base of bases) {
    cases.push({ name: `${base.name} as it is`, mutation: 'none', object: base.object });
    for (const site of sites(schema, base.object as Json)) {
      if (
        site.steps.length === 0 ||
        site.steps[0] === 'metadata' ||
        site.steps[0] === 'apiVersion' ||
        site.steps[0] === 'kind'
      )
        continue;
      const value = getAt(base.object as Json, site.steps);
      for (const [mutation, mutate] of Object.entries(mutations)) {
        const replacement = mutate(site, value);
        if (replacement === undefined) continue;
        if ((perMutation.get(mutation) ?? 0) >= maxCasesPerMutation) continue;
        perMutation.set(mutation, (perMutation.get(mutation) ?? 0) + 1);
        const object = setAt(
          base.object as Json,
          site.steps,
          replacement === remove ? undefined : (replacement as Json),
        ) as Record<string, unknown>;
        const name = `${base.name}: ${mutation} at ${pathOf(site.steps)}`;
        cases.push({ name, mutation, object });
        // An update needs its old object stored: a base the API server refuses makes CREATEs only.
        if (base.storable)
          cases.push({ name: `${name} (update)`, mutation: `${mutation} (update)`, object, oldObject: base.object });
      }
    }
  }
  return cases;
}
