import type { ClassifierForm, ComparisonForm, ValueReading } from '../contract/fsa/classifier-form.ts';
import { changePlaceholders } from '../contract/fsa/evaluate/transition-messages.ts';
import { parseFieldPath } from '../contract/field-path.ts';
import { isCannotRead } from '../contract/fsa/value-readers.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { celLiteral, celString, isPlainFieldName, optionalField } from './cel.ts';

// Classifier forms as CEL: for every kind of change a classifier can report, how many such changes an update
// carries, and how the first of them reads in a message. The CEL mirrors fieldClassifier and keyedListClassifier
// exactly on every value both read; where the API server could read a value differently from crdgate (a quantity
// Kubernetes rounds, a release number past 2^53), the CEL treats it as unreadable, which is no change: the policy
// may then let through what the webhook refuses, never the other way round.

/** One place an update can carry changes of `kind`, as CEL. */
export interface ChangeSource {
  kind: string;
  /** CEL int: how many changes of the kind this place holds in the update. */
  count: string;
  /** CEL string for the first such change, `spec.storage.size: ` and then `description` with its values filled in. */
  message(description: string): string;
}

/** Kinds of change the policy does not see from one classifier, and why. */
export interface UncompiledKinds {
  kinds: readonly string[];
  reason: string;
}

export interface CompiledClassifiers {
  sources: ChangeSource[];
  uncompiled: UncompiledKinds[];
}

/** Where the compared values sit: CEL optionals for the old and new value, their schema, and how messages name them. */
export interface CompareSite {
  /** CEL optional of the old compared value: `oldObject.?spec`. */
  old: string;
  new: string;
  /** The schema of the compared value (the spec's, or a list item's). */
  schema: JSONSchemaProps | undefined;
  /** CEL string naming the compared value in messages: `'spec'`. */
  field: string;
  /** CEL string of the list item's name, when the values are a list item. */
  item?: string;
  /** Nesting depth of list comprehensions, which keeps their variable names apart. */
  depth: number;
  /**
   * Names an expression as a policy variable and returns the reference (`variables.x`); only outside list
   * comprehensions, whose expressions read the comprehension's own variables. A value read once per request
   * instead of at every use keeps the policy small: the API server compiles all of it on every apply.
   */
  define?: (hint: string, expression: string) => string;
}

/** `define` if the site has it, the expression itself otherwise. */
function named(site: CompareSite, hint: string, expression: string): string {
  return site.define ? site.define(hint, expression) : expression;
}

// Spellings of quantities that Kubernetes holds exactly (no rounding to nano units, no cap at 2^63-1) and
// crdgate reads the same way: up to six digits and three decimals, with a suffix up to T/Ti.
const exactQuantityPattern = '^[0-9]{1,6}([.][0-9]{1,3})?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$';
// Release numbers whose parts JavaScript holds exactly: at most 15 digits.
const releasePart = '(0|[1-9][0-9]{0,14})';

export function compileClassifier(form: ClassifierForm<string> | undefined, kinds: readonly string[], site: CompareSite): CompiledClassifiers {
  if (form === undefined) return notCompiled(kinds, 'the classifier is a function of its own');
  switch (form.classify) {
    case 'field':
      return compileField(form, kinds, site);
    case 'keyed-list':
      return compileKeyedList(form, site);
  }
}

function notCompiled(kinds: readonly string[], reason: string): CompiledClassifiers {
  return { sources: [], uncompiled: [{ kinds: [...new Set(kinds)], reason }] };
}

/** The schema at a path below `schema`, through object properties only. */
export function schemaAt(schema: JSONSchemaProps | undefined, segments: readonly string[]): JSONSchemaProps | undefined {
  return segments.reduce<JSONSchemaProps | undefined>((node, segment) => node?.properties?.[segment], schema);
}

function plainPath(path: string): string[] | undefined {
  const segments = parseFieldPath(path);
  return segments.every((segment): segment is string => typeof segment === 'string' && isPlainFieldName(segment)) ? segments : undefined;
}

interface Side {
  /** CEL bool: the field has a value on this side (absentMeans counts). */
  present: string;
  /** CEL value; only evaluated when present. */
  value: string;
}

/**
 * `zero` is a literal of the field's type. The value is read with orValue(zero) rather than value(), though only
 * ever used when present: kube-apiserver 1.36 fails `string(x.value())` of an integer field at run time (a
 * messageExpression then falls back to the plain message), and orValue reads the same present value.
 */
function side(site: CompareSite, which: 'old' | 'new', segments: readonly string[], absentMeans: string | undefined, zero: string): Side {
  const field = optionalField(site[which], segments);
  const hint = `${which}_${segments.join('_')}`;
  if (absentMeans !== undefined) return { present: 'true', value: named(site, hint, `${field}.orValue(${absentMeans})`) };
  const optional = named(site, hint, field);
  return { present: `${optional}.hasValue()`, value: `${optional}.orValue(${zero})` };
}

function compileField(form: Extract<ClassifierForm<string>, { classify: 'field' }>, kinds: readonly string[], site: CompareSite): CompiledClassifiers {
  const segments = plainPath(form.path);
  if (segments === undefined) return notCompiled(kinds, `the path "${form.path}" has a field name CEL cannot write plainly`);
  const schema = schemaAt(site.schema, segments);
  const problem = readingProblem(form.reading, schema, form.path) ?? comparisonProblem(form.reading, form.comparison);
  if (problem !== undefined) return notCompiled(kinds, problem);
  let absentMeans: string | undefined;
  if (isCannotRead(form.absentMeans)) {
    return notCompiled(kinds, `an absent "${form.path}" reads as cannotRead (${form.absentMeans.reason}): the policy does not compile readings that fail closed`);
  }
  if (form.absentMeans !== undefined) {
    absentMeans = literalOf(form.reading, form.absentMeans);
    if (absentMeans === undefined) return notCompiled(kinds, `its absentMeans ${JSON.stringify(form.absentMeans)} is not a value the field can hold`);
  }
  const reading = readingCel(form.reading, schema!);
  const zero = form.reading === 'integer' ? '0' : '""';
  const from = side(site, 'old', segments, absentMeans, zero);
  const to = side(site, 'new', segments, absentMeans, zero);
  const bothPresent = absentMeans === undefined ? `${from.present} && ${to.present}` : 'true';
  const differ = absentMeans === undefined ? `(${from.present} != ${to.present} || (${from.present} && ${from.value} != ${to.value}))` : `${from.value} != ${to.value}`;
  const readableSide = (value: Side) => {
    const readable = reading.readable(value.value);
    if (readable === 'true') return [];
    return [value.present === 'true' ? readable : `(!${value.present} || ${readable})`];
  };
  const readable = [...readableSide(from), ...readableSide(to)];
  const changed = [differ, ...readable].join(' && ');
  const field = concat(site.field, celString(`.${form.path}`));
  const shown = (value: Side) => (value.present === 'true' ? reading.display(value.value) : `(${value.present} ? ${reading.display(value.value)} : "(none)")`);
  const source = (kind: string, occurs: string): ChangeSource => ({
    kind,
    count: `((${occurs}) ? 1 : 0)`,
    message: (description) => concat(field, celString(': '), fill(description, { from: shown(from), to: shown(to), item: site.item })),
  });
  const comparison = form.comparison;
  if (comparison.compare === 'different') return { sources: [source(comparison.kind, changed)], uncompiled: [] };
  // Directions and release steps compare two present, readable values.
  const order = named(site, `order_${segments.join('_')}`, reading.order!(to.value, from.value));
  const ordered = `${bothPresent === 'true' ? '' : `${bothPresent} && `}${changed}`;
  switch (comparison.compare) {
    case 'direction': {
      if (comparison.increase === comparison.decrease) return { sources: [source(comparison.increase, `${ordered} && ${order} != 0`)], uncompiled: [] };
      return { sources: [source(comparison.increase, `${ordered} && ${order} > 0`), source(comparison.decrease, `${ordered} && ${order} < 0`)], uncompiled: [] };
    }
    case 'release-step': {
      const sameMajor = `${reading.part!(to.value, 0)} == ${reading.part!(from.value, 0)}`;
      return {
        sources: [
          source(comparison.upgrade, `${ordered} && ${order} > 0 && ${sameMajor}`),
          source(comparison.major, `${ordered} && ${order} > 0 && !(${sameMajor})`),
          source(comparison.downgrade, `${ordered} && ${order} < 0`),
        ],
        uncompiled: [],
      };
    }
  }
}

function readingProblem(reading: ValueReading, schema: JSONSchemaProps | undefined, path: string): string | undefined {
  if (schema === undefined) return `the hub schema declares no field "${path}"`;
  const wanted = reading === 'integer' ? 'integer' : 'string';
  if (schema.type !== wanted) return `"${path}" is read as ${reading === 'integer' ? 'an integer' : `a ${reading}`} but the hub schema's type is ${schema.type ?? 'none'}`;
  if (wanted === 'string' && schema.maxLength === undefined && schema.enum === undefined) {
    return `"${path}" needs a maxLength (or an enum) in the hub schema, so the API server can bound the policy's cost`;
  }
  return undefined;
}

function comparisonProblem(reading: ValueReading, comparison: ComparisonForm<string>): string | undefined {
  if (comparison.compare === 'direction') {
    const expected = { integer: 'number', quantity: 'quantity', release: 'release', string: undefined }[reading];
    if (comparison.order !== expected) return `its ${reading} values are ordered by the ${comparison.order} comparator`;
  }
  if (comparison.compare === 'release-step' && reading !== 'release') return 'byReleaseStep compares values not read by parseVersion';
  return undefined;
}

function literalOf(reading: ValueReading, value: unknown): string | undefined {
  if (reading === 'integer' ? !Number.isSafeInteger(value) : typeof value !== 'string') return undefined;
  return celLiteral(value);
}

interface ReadingCel {
  /** CEL bool: the value reads as crdgate reads it and the API server reads it the same way. */
  readable(value: string): string;
  /** CEL string: the value as a message shows it. */
  display(value: string): string;
  /** CEL int, sign of the order of `a` against `b`, for ordered readings. */
  order?(a: string, b: string): string;
  /** CEL int: a release number's part. */
  part?(value: string, index: number): string;
}

/**
 * A value of another type than the schema's is unreadable, as crdgate's readers find it: the API server refuses
 * it on a new object, but an object stored before the schema changed may hold one, and comparing it would count a
 * change (a fraction against an int) or fail the policy, refusing what the webhook lets through. CEL's && is false
 * when either side is, so the comparisons after it are not reached.
 */
function isType(value: string, type: 'int' | 'string'): string {
  return `type(${value}) == ${type}`;
}

function readingCel(reading: ValueReading, schema: JSONSchemaProps): ReadingCel {
  switch (reading) {
    case 'integer':
      return {
        // JavaScript holds integers exactly up to 2^53-1; crdgate reads a larger one as unreadable.
        readable: (value) => `(${isType(value, 'int')} && ${value} >= -9007199254740991 && ${value} <= 9007199254740991)`,
        display: (value) => `string(${value})`,
        order: (a, b) => `(${a} > ${b} ? 1 : (${a} < ${b} ? -1 : 0))`,
      };
    case 'string':
      return { readable: (value) => isType(value, 'string'), display: (value) => value };
    case 'quantity':
      return {
        readable: (value) => `(${isType(value, 'string')} && ${value}.matches(${celString(exactQuantityPattern)}))`,
        display: (value) => value,
        order: (a, b) => `quantity(${a}).compareTo(quantity(${b}))`,
      };
    case 'release': {
      // A release of at most n characters (maxLength, or the longest enum value) has at most (n + 1) / 2 parts;
      // missing parts are 0.
      const longest = schema.maxLength ?? Math.max(1, ...(schema.enum ?? []).map((value) => String(value).length));
      const parts = Math.max(1, Math.floor((longest + 1) / 2));
      const pattern = `^${releasePart}([.]${releasePart}){0,${parts - 1}}$`;
      const part = (value: string, index: number) => `(size(${value}.split(".")) > ${index} ? int(${value}.split(".")[${index}]) : 0)`;
      const partOf = (split: string, index: number) => `(size(${split}) > ${index} ? int(${split}[${index}]) : 0)`;
      return {
        readable: (value) => `(${isType(value, 'string')} && ${value}.matches(${celString(pattern)}))`,
        display: (value) => value,
        part,
        // Each side is split once: `[x].map(name, ...)[0]` binds x to a name, as CEL has no let.
        order: (a, b) => {
          const compare = Array.from({ length: parts }, (_, index) => index)
            .reverse()
            .reduce((rest, index) => {
              const [x, y] = [partOf('pa', index), partOf('pb', index)];
              return `(${x} != ${y} ? (${x} > ${y} ? 1 : -1) : ${rest})`;
            }, '0');
          return `[${a}.split(".")].map(pa, [${b}.split(".")].map(pb, ${compare})[0])[0]`;
        },
      };
    }
  }
}

function compileKeyedList(form: Extract<ClassifierForm<string>, { classify: 'keyed-list' }>, site: CompareSite): CompiledClassifiers {
  const allKinds = [form.added, form.removed, ...form.items.flatMap((item) => item.kinds)];
  const segments = plainPath(form.path);
  if (segments === undefined) return notCompiled(allKinds, `the path "${form.path}" has a field name CEL cannot write plainly`);
  const schema = schemaAt(site.schema, segments);
  const problem = listProblem(schema, form.path, form.key);
  if (problem !== undefined) return notCompiled(allKinds, problem);
  const absentMeans = form.absentMeans === undefined ? undefined : celLiteral(form.absentMeans);
  if (form.absentMeans !== undefined && (absentMeans === undefined || form.absentMeans.length > 0)) {
    return notCompiled(allKinds, `its absentMeans ${JSON.stringify(form.absentMeans)} is not compiled; only [] is`);
  }
  const from = side(site, 'old', segments, absentMeans, '[]');
  const to = side(site, 'new', segments, absentMeans, '[]');
  const bothPresent = absentMeans === undefined ? `${from.present} && ${to.present}` : undefined;
  const guarded = (count: string) => (bothPresent === undefined ? count : `(${bothPresent} ? ${count} : 0)`);
  const [before, after] = [from.value, to.value];
  const [o, n] = [`o${site.depth}`, `n${site.depth}`];
  const key = form.key;
  const listField = concat(site.field, celString(`.${form.path}`));
  const itemName = (item: string) => `${item}.${key}`;
  const at = (list: string, item: string) => concat(listField, celString('['), `string(${list}.indexOf(${item}))`, celString(']'));

  const listHint = segments.join('_');
  // Counted by the validations, the first one read by a failing validation's message.
  const added = named(site, `added_${listHint}`, `${after}.filter(${n}, !${before}.exists(${o}, ${o}.${key} == ${n}.${key}))`);
  const removed = named(site, `removed_${listHint}`, `${before}.filter(${o}, !${after}.exists(${n}, ${n}.${key} == ${o}.${key}))`);
  const sources: ChangeSource[] = [
    {
      kind: form.added,
      count: guarded(`${added}.size()`),
      message: (description) => concat(at(after, `${added}[0]`), celString(': '), fill(description, { item: itemName(`${added}[0]`) })),
    },
    {
      kind: form.removed,
      count: guarded(`${removed}.size()`),
      message: (description) => concat(listField, celString(': '), fill(description, { item: itemName(`${removed}[0]`) })),
    },
  ];
  const uncompiled: UncompiledKinds[] = [];
  const itemSchema = schema!.items;
  // The items both lists hold, paired by key once per request ([old, new]), for every item classifier to read.
  const p = `p${site.depth}`;
  const pairs = named(
    site,
    `pairs_${listHint}`,
    `${after}.filter(${n}, ${before}.exists(${o}, ${o}.${key} == ${n}.${key})).map(${n}, [${before}.filter(${o}, ${o}.${key} == ${n}.${key})[0], ${n}])`,
  );
  form.items.forEach(({ kinds, form: item }) => {
    if (item === undefined) {
      uncompiled.push({ kinds, reason: `an item classifier of "${form.path}" is a function of its own` });
      return;
    }
    if (item.classify !== 'field') {
      uncompiled.push({ kinds, reason: `a keyed list inside the items of "${form.path}" is not compiled` });
      return;
    }
    // Counted over the pairs of items with the same key; the message takes the first pair with such a change.
    const pairSite = (pair: string): CompareSite => ({
      old: `optional.of(${pair}[0])`,
      new: `optional.of(${pair}[1])`,
      schema: itemSchema,
      field: at(after, `${pair}[1]`),
      item: itemName(`${pair}[1]`),
      depth: site.depth + 1,
    });
    const inPair = compileField(item, kinds, pairSite(p));
    uncompiled.push(...inPair.uncompiled);
    inPair.sources.forEach((pairSource, sourceIndex) => {
      const withChange = named(site, `${pairSource.kind}_${listHint}`, `${pairs}.filter(${p}, ${pairSource.count} > 0)`);
      const forMessage = compileField(item, kinds, pairSite(`${withChange}[0]`)).sources[sourceIndex]!;
      sources.push({ kind: pairSource.kind, count: guarded(`${withChange}.size()`), message: forMessage.message });
    });
  });
  return { sources, uncompiled };
}

function listProblem(schema: JSONSchemaProps | undefined, path: string, key: string): string | undefined {
  if (schema === undefined) return `the hub schema declares no field "${path}"`;
  if (schema.type !== 'array') return `"${path}" is not a list in the hub schema`;
  const mapKeys = schema['x-kubernetes-list-map-keys'];
  if (schema['x-kubernetes-list-type'] !== 'map' || mapKeys?.length !== 1 || mapKeys[0] !== key) {
    return `"${path}" must be a map list keyed by ${key} (x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [${key}]) in the hub schema`;
  }
  if (schema.maxItems === undefined) return `"${path}" needs a maxItems in the hub schema, so the API server can bound the policy's cost`;
  if (!isPlainFieldName(key) || schema.items?.properties?.[key]?.type !== 'string') return `the key ${key} of "${path}" must be a string field`;
  return undefined;
}

type Placeholder = (typeof changePlaceholders)[number];
const placeholder = new RegExp(`(\\{(?:${changePlaceholders.join('|')})\\})`);

/** Fills the placeholders of a description (as describeChange does) with CEL strings; a missing one reads "(none)". */
function fill(description: string, values: Partial<Record<Placeholder, string>>): string {
  const parts = description.split(placeholder).filter((part) => part !== '');
  return concat(
    ...parts.map((part) => {
      const name = changePlaceholders.find((candidate) => part === `{${candidate}}`);
      return name === undefined ? celString(part) : (values[name] ?? celString('(none)'));
    }),
  );
}

/** CEL string concatenation, joining adjacent literals. */
export function concat(...parts: string[]): string {
  const merged: string[] = [];
  for (const part of parts) {
    const previous = merged.at(-1);
    if (previous !== undefined && isStringLiteral(previous) && isStringLiteral(part)) {
      merged[merged.length - 1] = celString((JSON.parse(previous) as string) + (JSON.parse(part) as string));
    } else merged.push(part);
  }
  return merged.length === 0 ? '""' : merged.join(' + ');
}

function isStringLiteral(text: string): boolean {
  if (!text.startsWith('"') || !text.endsWith('"')) return false;
  try {
    return typeof JSON.parse(text) === 'string';
  } catch {
    return false;
  }
}
