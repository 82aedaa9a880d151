import type { FieldError } from '../contract/values/field-error.ts';
import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';
import type { JSONSchemaProps, JSONValue } from '../contract/schema/json-schema-props.ts';
import { compileGoRegexp } from '../contract/schema/structural/go-regexp.ts';
import { patternExamples } from './pattern-examples.ts';

// An example object for a kind crdgate knows only by its CRD: the fields the schema requires, each with a value its
// schema allows (its default, an enum value, one its pattern takes, one in its format, within its bounds), nested
// required objects and lists of their least length. Each field has a few candidate values, the simplest first; a
// judge (the API server engine, where it is built) answers each try, and a field it refuses moves to its next
// candidate, one it says is required is added, until it takes the object or the tries run out.

/** What a judge refuses in an object: nothing when it would store it. */
export type ExampleJudge = (object: KubeObject) => readonly FieldError[];

export interface ExampleSearch {
  /** The object the judge took; else the closest tried: the fewest refusals, the simplest of those. */
  object: KubeObject;
  /** The judge took it. */
  taken: boolean;
  /** What the judge refused in the last one tried; empty when taken. */
  refusal: readonly FieldError[];
  tries: number;
}

const maxTries = 40;
const maxDepth = 16;
const maxItems = 3;

/** The spec (or the whole object, for a kind without one) the hub schema requires at least, each field its first candidate. */
export function exampleSpec(schema: JSONSchemaProps): JSONValue | undefined {
  const spec = schema.properties?.['spec'];
  return spec === undefined ? undefined : new ExampleBuilder().build(spec, 'spec', 0);
}

/**
 * Searches for an object of the kind that `judge` takes: `base` (apiVersion, kind, metadata) with a spec made from
 * the hub schema's. Every try goes to the judge, at most 40.
 */
export function searchExample(base: KubeObject, schema: JSONSchemaProps, judge: ExampleJudge): ExampleSearch {
  const spec = schema.properties?.['spec'];
  const builder = new ExampleBuilder();
  const make = (): KubeObject =>
    spec === undefined ? structuredClone(base) : { ...structuredClone(base), spec: builder.build(spec, 'spec', 0) };
  let object = make();
  let refusal = judge(object);
  let tries = 1;
  // Where none is taken, the closest: the one with the fewest refusals, the earliest (simplest) of those.
  let closest = { object, refusal };
  while (refusal.length > 0 && tries < maxTries && spec !== undefined) {
    if (!refusal.some((error) => builder.tryAnother(error))) break;
    object = make();
    refusal = judge(object);
    tries++;
    if (refusal.length < closest.refusal.length) closest = { object, refusal };
  }
  return { ...closest, taken: closest.refusal.length === 0, tries };
}

/** The candidates chosen so far, by schema path (`spec.ports[*].port`), and the optional fields added. */
class ExampleBuilder {
  /** Which candidate each leaf takes (absent: the first). */
  private readonly choices = new Map<string, number>();
  /** How many candidates each leaf of the last build had. */
  private readonly candidateCounts = new Map<string, number>();
  /** The schema of every node of the last build, by path. */
  private readonly nodes = new Map<string, JSONSchemaProps>();
  /** Optional properties the judge asked for (a rule, a oneOf), by the path of the object that holds them. */
  private readonly added = new Map<string, Set<string>>();
  /** Values a rule the judge reported compares a leaf with (`self.kind == 'ImageCatalog'`), tried first. */
  private readonly ruleValues = new Map<string, JSONValue[]>();

  build(schema: JSONSchemaProps, path: string, depth: number, offset = 0): JSONValue {
    this.nodes.set(path, schema);
    const fromRules = this.ruleValues.get(path) ?? [];
    const own = leafCandidates(schema);
    const candidates = own === undefined ? undefined : unique([...fromRules, ...own]);
    if (candidates !== undefined) {
      this.candidateCounts.set(path, candidates.length);
      const choice = (this.choices.get(path) ?? 0) + offset;
      return structuredClone(candidates[Math.min(choice, candidates.length - 1)]!);
    }
    if (schema.type === 'array') {
      const items = schema.items;
      if (items === undefined || depth >= maxDepth) return [];
      const wanted = Math.max(schema.minItems ?? 0, this.added.get(path)?.has('[*]') ? 1 : 0);
      const count = Math.min(wanted, maxItems);
      // Items that must differ (a set, a map's keys) take successive candidates.
      return Array.from({ length: count }, (_, index) => this.build(items, `${path}[*]`, depth + 1, index));
    }
    // Its default first, with the fields it lacks added; an embedded resource is an object of its own, which the API
    // server holds to an apiVersion and a kind.
    const object: Record<string, JSONValue> = isPlainObject(schema.default)
      ? (structuredClone(schema.default) as Record<string, JSONValue>)
      : schema['x-kubernetes-embedded-resource']
        ? { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'example' } }
        : {};
    if (depth >= maxDepth) return object;
    const names = [...(schema.required ?? []), ...(this.added.get(path) ?? [])];
    for (const name of names) {
      const property = schema.properties?.[name] ?? additionalSchema(schema);
      if (property === undefined) continue;
      const given = object[name];
      // An object the default gives is built on, so that what its own schema requires is there too.
      if (Object.hasOwn(object, name) && !isPlainObject(given)) continue;
      const schemaHere = isPlainObject(given) ? { ...property, default: given as JSONValue } : property;
      object[name] = this.build(schemaHere, `${path}.${name}`, depth + 1, offset);
    }
    // A map (additionalProperties) with a least size gets that many keys.
    const extra = additionalSchema(schema);
    for (let index = Object.keys(object).length; extra !== undefined && index < (schema.minProperties ?? 0); index++)
      object[`key${index + 1}`] = this.build(extra, `${path}.*`, depth + 1, index);
    return object;
  }

  /** Changes the next build where `error` points; false when nothing is left to try there. */
  tryAnother(error: FieldError): boolean {
    const path = schemaPath(error.field);
    if (error.type === 'FieldValueRequired') {
      const parent = path.includes('.') ? path.slice(0, path.lastIndexOf('.')) : '';
      const name = path.slice(path.lastIndexOf('.') + 1);
      const holder = this.nodes.get(parent);
      if (holder !== undefined && (holder.properties?.[name] !== undefined || additionalSchema(holder))) {
        const names = this.added.get(parent) ?? new Set<string>();
        if (names.has(name)) return this.nextCandidate(path, error.message);
        this.added.set(parent, names.add(name));
        return true;
      }
      // A list that must not be empty.
      if (this.nodes.get(path)?.type === 'array') return this.addOnce(path, '[*]');
    }
    return this.nextCandidate(path, error.message);
  }

  /** The next candidate of the leaf at `path` or the deepest leaf above it; else a change of the object there. */
  private nextCandidate(path: string, message: string): boolean {
    for (let at = path; at !== ''; at = parentPath(at)) {
      if (this.candidateCounts.has(at)) return this.advance(at);
      const node = this.nodes.get(at);
      if (node !== undefined) return this.changeObject(at, node, message);
    }
    return false;
  }

  /**
   * An object refused as a whole (a rule across its fields). Where the refusal is one of its CEL rules (by its
   * message, or its text in `failed rule: ...`), the fields the rule names (`self.x`): the first absent one added,
   * else the next combination of their candidates. Otherwise one more of its optional fields, in schema order;
   * once all are there, the next candidate of the first of its fields that has one.
   */
  private changeObject(path: string, node: JSONSchemaProps, message: string): boolean {
    const present = [...(node.required ?? []), ...(this.added.get(path) ?? [])];
    const rules = reportedRules(node, message);
    const named = ruleFields(rules).filter((name) => node.properties?.[name] !== undefined);
    // A value the rule compares a field with is the likeliest one it takes: tried first, once.
    const learnt = named.filter((name) => {
      const values = ruleLiterals(rules, name);
      const field = `${path}.${name}`;
      if (values.every((value) => this.ruleValues.get(field)?.some((known) => known === value))) return false;
      this.ruleValues.set(field, unique([...values, ...(this.ruleValues.get(field) ?? [])]));
      this.choices.set(field, 0);
      return true;
    });
    if (learnt.length > 0) {
      for (const name of learnt) if (!present.includes(name)) this.addOnce(path, name);
      return true;
    }
    const absent = named.find((name) => !present.includes(name));
    if (absent !== undefined) return this.addOnce(path, absent);
    if (named.length > 0) return this.odometer(named.map((name) => `${path}.${name}`));
    const next = Object.keys(node.properties ?? {}).find((name) => !present.includes(name));
    if (next !== undefined) return this.addOnce(path, next);
    return present.some((name) => this.advance(`${path}.${name}`));
  }

  /**
   * The next combination of the leaves' candidates, as an odometer turns (the last leaf fastest, each carried into
   * the one before it): a rule across fields (`self.from < self.to`, or `>`) holds for some pair, not for one field
   * turned alone. False once every combination was had.
   */
  private odometer(paths: readonly string[]): boolean {
    for (const path of [...paths].reverse()) {
      if (this.advance(path)) return true;
      if (this.candidateCounts.has(path)) this.choices.set(path, 0);
    }
    return false;
  }

  /** The next candidate of the leaf at `path`; false when it has none left (or is no leaf). */
  private advance(path: string): boolean {
    const count = this.candidateCounts.get(path);
    const choice = this.choices.get(path) ?? 0;
    if (count === undefined || choice + 1 >= count) return false;
    this.choices.set(path, choice + 1);
    return true;
  }

  private addOnce(path: string, name: string): boolean {
    const names = this.added.get(path) ?? new Set<string>();
    if (names.has(name)) return false;
    this.added.set(path, names.add(name));
    return true;
  }
}

/**
 * The object's CEL rules that `message` reports: a rule whose own message it carries, or whose text it quotes
 * (`failed rule: self.from < self.to`).
 */
function reportedRules(node: JSONSchemaProps, message: string): string[] {
  return (node['x-kubernetes-validations'] ?? [])
    .filter((rule) => (rule.message !== undefined && message.includes(rule.message)) || message.includes(rule.rule))
    .map((rule) => rule.rule);
}

/** The fields the rules name (`self.name`), in order. */
function ruleFields(rules: readonly string[]): string[] {
  return [
    ...new Set(rules.flatMap((rule) => [...rule.matchAll(/\bself\.([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!))),
  ];
}

/** The string literals the rules compare field `name` with for equality: `self.kind == 'ImageCatalog'`, `in [...]`. */
function ruleLiterals(rules: readonly string[], name: string): string[] {
  const literal = `'([^'\\\\]*)'|"([^"\\\\]*)"`;
  const field = `self\\.${name}\\b`;
  const patterns = [
    new RegExp(`${field}\\s*==\\s*(?:${literal})`, 'g'),
    new RegExp(`(?:${literal})\\s*==\\s*${field}`, 'g'),
  ];
  const values = rules.flatMap((rule) =>
    patterns.flatMap((pattern) => [...rule.matchAll(pattern)].map((m) => m[1] ?? m[2] ?? '')),
  );
  const lists = rules.flatMap((rule) =>
    [...rule.matchAll(new RegExp(`${field}\\s+in\\s*\\[([^\\]]*)\\]`, 'g'))].flatMap((m) =>
      [...m[1]!.matchAll(new RegExp(literal, 'g'))].map((item) => item[1] ?? item[2] ?? ''),
    ),
  );
  return [...new Set([...values, ...lists])];
}

/** `spec.ports[0].port` → `spec.ports[*].port`, `spec.labels[team]` → `spec.labels.*`: where the schema says. */
function schemaPath(field: string): string {
  return field.replace(/\[\d+\]/g, '[*]').replace(/\[[^\]*]*\]/g, '.*');
}

function parentPath(path: string): string {
  if (path.endsWith('[*]')) return path.slice(0, -3);
  const dot = path.lastIndexOf('.');
  return dot < 0 ? '' : path.slice(0, dot);
}

function additionalSchema(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  return typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
}

const formatExamples: Readonly<Record<string, readonly string[]>> = {
  'date-time': ['2024-05-01T12:00:00Z'],
  datetime: ['2024-05-01T12:00:00Z'],
  date: ['2024-05-01'],
  duration: ['1h', '30s'],
  byte: ['ZXhhbXBsZQ=='],
  hostname: ['example.com'],
  ipv4: ['192.0.2.1'],
  ipv6: ['2001:db8::1'],
  cidr: ['192.0.2.0/24'],
  mac: ['00:00:5e:00:53:01'],
  uuid: ['00000000-0000-0000-0000-000000000000'],
  uuid3: ['a3bb189e-8bf9-3888-9912-ace4e6543002'],
  uuid4: ['f47ac10b-58cc-4372-a567-0e02b2c3d479'],
  uuid5: ['886313e1-3b8a-5372-9b90-0c9aee199e5d'],
  uri: ['https://example.com'],
  email: ['user@example.com'],
  hexcolor: ['#ffffff'],
  quantity: ['1', '1Gi'],
  'dns1123-label': ['example'],
  'dns1123-subdomain': ['example.com'],
};

/**
 * The values a leaf may take, the likeliest first: its default, its enum, then by type. Undefined for an object or a
 * list without a default or enum, which are built from their fields and items.
 */
function leafCandidates(schema: JSONSchemaProps): JSONValue[] | undefined {
  const given = [...(schema.default !== undefined ? [schema.default] : []), ...(schema.enum ?? []).slice(0, 8)];
  if (schema.enum !== undefined && schema.enum.length > 0) return unique(given);
  let typed: JSONValue[] | undefined;
  if (schema['x-kubernetes-int-or-string']) typed = [...numberCandidates(schema, true), '1', '1Gi', '50%', '100m'];
  else if (schema.type === 'integer' || schema.type === 'number')
    typed = numberCandidates(schema, schema.type === 'integer');
  else if (schema.type === 'boolean') typed = [false, true];
  else if (schema.type === 'string') typed = stringCandidates(schema);
  else if (schema.type === undefined && schema.properties === undefined && schema.items === undefined) typed = [{}]; // x-kubernetes-preserve-unknown-fields without a type: anything, the least of it
  // An object is built from its fields, on its default where it has one (build): a field the default lacks may be
  // required, or asked for by a rule.
  if (typed === undefined)
    return schema.type === 'object' || schema.properties !== undefined || given.length === 0
      ? undefined
      : unique(given);
  const candidates = unique([...given, ...typed]);
  return candidates.length > 0 ? candidates : undefined;
}

function numberCandidates(schema: JSONSchemaProps, integer: boolean): number[] {
  const step = integer ? 1 : 0.5;
  const low =
    schema.minimum === undefined ? -Infinity : schema.exclusiveMinimum ? schema.minimum + step : schema.minimum;
  const high =
    schema.maximum === undefined ? Infinity : schema.exclusiveMaximum ? schema.maximum - step : schema.maximum;
  const multiple = schema.multipleOf;
  const fits = (value: number) =>
    value >= low &&
    value <= high &&
    (!integer || Number.isInteger(value)) &&
    (multiple === undefined || multiple === 0 || Number.isInteger(value / multiple));
  const near = (value: number) => (multiple ? Math.ceil(value / multiple) * multiple : value);
  const within = (value: number) => Math.max(low, Math.min(high, value));
  // Both ends and a few between, so that a rule across fields (one below another) finds a pair.
  const middle =
    Number.isFinite(low) && Number.isFinite(high) ? (integer ? Math.floor((low + high) / 2) : (low + high) / 2) : 10;
  return unique(
    [
      within(1),
      near(within(1)),
      low,
      near(low),
      low + step,
      middle,
      high - step,
      high,
      0,
      2,
      10,
      100,
      multiple ?? 1,
    ].filter((value) => Number.isFinite(value) && fits(value)),
  ) as number[];
}

function stringCandidates(schema: JSONSchemaProps): string[] {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Infinity;
  const sized = (text: string) => text.padEnd(min, 'x').slice(0, Math.max(max === Infinity ? text.length : max, min));
  const byFormat = schema.format === undefined ? [] : (formatExamples[schema.format] ?? []);
  const byPattern = schema.pattern === undefined ? [] : patternExamples(schema.pattern);
  return unique([
    ...byFormat,
    ...typicalValuesTaken(schema.pattern),
    ...byPattern,
    ...byPattern.map(sized),
    ...['example', 'example-1', 'a', 'example.com'].map(sized),
    'x'.repeat(Math.max(min, 1)),
  ]) as string[];
}

// What a person writes in a field of these shapes (a size, a count, a duration, a name), tried before the reader's
// guesses where the pattern takes them: a volume of "1Gi" reads better in an example than the pattern's first "0e0".
const typicalValues = ['1Gi', '10Gi', '100m', '1', '10', '30s', '5m', '1h', 'example', 'example.com'];

function typicalValuesTaken(pattern: string | undefined): string[] {
  if (pattern === undefined) return [];
  let regexp;
  try {
    regexp = compileGoRegexp(pattern);
  } catch {
    return [];
  }
  return typicalValues.filter((value) => regexp.test(value)).slice(0, 2);
}

function unique(values: readonly JSONValue[]): JSONValue[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = JSON.stringify(value);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
