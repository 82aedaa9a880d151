import type { ClassifierForm, ComparisonForm, ValueReading } from '../contract/fsa/classifier-form.ts';
import { changePlaceholders } from '../contract/fsa/machine.ts';
import { parseFieldPath } from '../contract/values/field-path.ts';
import { absentValue } from '../contract/values/describe-value.ts';
import { schemaAtPath } from '../contract/fsa/classifier-reach.ts';
import { isCannotRead } from '../contract/fsa/value-readers.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import {
  and,
  call,
  concat,
  cond,
  eq,
  ge,
  gt,
  ident,
  index,
  hasType,
  int,
  isPlainFieldName,
  le,
  list,
  literal,
  lt,
  member,
  method,
  ne,
  not,
  optionalField,
  or,
  str,
  type Cel,
} from './cel.ts';

// Classifier forms as CEL: for every kind of change a classifier can report, how many such changes an update
// carries, and how the first of them reads in a message. The CEL mirrors fieldClassifier and keyedListClassifier
// exactly on every value both read; where the API server could read a value differently from crdgate (a quantity
// Kubernetes rounds, a release number past 2^53), the CEL treats it as unreadable, which is no change: the policy
// may then let through what the webhook refuses, never the other way round.

/** One place an update can carry changes of `kind`, as CEL. */
export interface ChangeSource {
  kind: string;
  /** CEL int: how many changes of the kind this place holds in the update. */
  count: Cel;
  /** CEL string for the first such change, `spec.storage.size: ` and then `description` with its values filled in. */
  message(description: string): Cel;
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
  old: Cel;
  new: Cel;
  /** The schema of the compared value (the spec's, or a list item's). */
  schema: JSONSchemaProps | undefined;
  /** CEL string naming the compared value in messages: `'spec'`. */
  field: Cel;
  /** CEL string of the list item's name, when the values are a list item. */
  item?: Cel;
  /** Nesting depth of list comprehensions, which keeps their variable names apart. */
  depth: number;
  /**
   * Names an expression as a policy variable and returns the reference (`variables.x`); only outside list
   * comprehensions, whose expressions read the comprehension's own variables. A value read once per request
   * instead of at every use keeps the policy small: the API server compiles all of it on every apply.
   */
  define?: (hint: string, expression: Cel) => Cel;
}

/** `define` if the site has it, the expression itself otherwise. */
function named(site: CompareSite, hint: string, expression: Cel): Cel {
  return site.define ? site.define(hint, expression) : expression;
}

// Spellings of quantities that Kubernetes holds exactly (no rounding to nano units, no cap at 2^63-1) and
// crdgate reads the same way: up to six digits and three decimals, with a suffix up to T/Ti.
const exactQuantityPattern = '^[0-9]{1,6}([.][0-9]{1,3})?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$';
// Release numbers whose parts JavaScript holds exactly: at most 15 digits.
const releasePart = '(0|[1-9][0-9]{0,14})';
// JavaScript holds integers exactly up to 2^53-1; crdgate reads a larger one as unreadable.
const largestExactInteger = Number.MAX_SAFE_INTEGER;

export function compileClassifier(
  form: ClassifierForm<string> | undefined,
  kinds: readonly string[],
  site: CompareSite,
): CompiledClassifiers {
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
export function propertySchemaAt(
  schema: JSONSchemaProps | undefined,
  segments: readonly string[],
): JSONSchemaProps | undefined {
  return segments.reduce<JSONSchemaProps | undefined>((node, segment) => node?.properties?.[segment], schema);
}

function plainPath(path: string): string[] | undefined {
  const segments = parseFieldPath(path);
  return segments.every((segment): segment is string => typeof segment === 'string' && isPlainFieldName(segment))
    ? segments
    : undefined;
}

interface Side {
  /** CEL bool: the field has a value on this side; absent when absentMeans stands in for a missing one. */
  present?: Cel;
  /** CEL value; only evaluated when present. */
  value: Cel;
}

/**
 * `zero` is a literal of the field's type. The value is read with orValue(zero) rather than value(), though only
 * ever used when present: kube-apiserver 1.36 fails `string(x.value())` of an integer field at run time (a
 * messageExpression then falls back to the plain message), and orValue reads the same present value.
 */
function side(
  site: CompareSite,
  which: 'old' | 'new',
  segments: readonly string[],
  absentMeans: Cel | undefined,
  zero: Cel,
): Side {
  const field = optionalField(site[which], segments);
  const hint = `${which}_${segments.join('_')}`;
  if (absentMeans !== undefined) return { value: named(site, hint, method(field, 'orValue', absentMeans)) };
  const optional = named(site, hint, field);
  return { present: method(optional, 'hasValue'), value: method(optional, 'orValue', zero) };
}

type FieldForm = Extract<ClassifierForm<string>, { classify: 'field' }>;

/** Why the policy finds no field at `path` through declared properties: there is none, or it is behind a map or unknown fields. */
function undeclaredProblem(schema: JSONSchemaProps | undefined, segments: readonly string[], path: string): string {
  const reach = schema === undefined ? undefined : schemaAtPath(schema, segments, '');
  if (reach !== undefined && 'schema' in reach)
    return `"${path}" is reached through a map (additionalProperties), which the policy does not compile`;
  if (reach !== undefined && 'anything' in reach)
    return `"${path}" is below fields the hub schema keeps unknown, which the policy does not compile`;
  return `the hub schema declares no field "${path}"`;
}

/** Why a field classifier's form does not compile, or its absentMeans as CEL (undefined: none). */
function fieldProblem(
  form: FieldForm,
  schema: JSONSchemaProps,
): { problem: string } | { absentMeans: Cel | undefined } {
  const problem = readingProblem(form.reading, schema, form.path) ?? comparisonProblem(form.reading, form.comparison);
  if (problem !== undefined) return { problem };
  if (isCannotRead(form.absentMeans)) {
    return {
      problem: `an absent "${form.path}" reads as cannotRead (${form.absentMeans.reason}): the policy does not compile readings that fail closed`,
    };
  }
  if (form.absentMeans === undefined) return { absentMeans: undefined };
  const absentMeans = literalOf(form.reading, form.absentMeans);
  return absentMeans === undefined
    ? { problem: `its absentMeans ${JSON.stringify(form.absentMeans)} is not a value the field can hold` }
    : { absentMeans };
}

function compileField(form: FieldForm, kinds: readonly string[], site: CompareSite): CompiledClassifiers {
  const segments = plainPath(form.path);
  if (segments === undefined)
    return notCompiled(kinds, `the path "${form.path}" has a field name CEL cannot write plainly`);
  const schema = propertySchemaAt(site.schema, segments);
  if (schema === undefined) return notCompiled(kinds, undeclaredProblem(site.schema, segments, form.path));
  const checked = fieldProblem(form, schema);
  if ('problem' in checked) return notCompiled(kinds, checked.problem);
  const reading = readingCel(form.reading, schema);
  const zero = form.reading === 'integer' ? int(0) : str('');
  const from = side(site, 'old', segments, checked.absentMeans, zero);
  const to = side(site, 'new', segments, checked.absentMeans, zero);
  // Unreadable on a side where the field is present: no change (crdgate leaves it to the schema).
  const readable = (value: Side): Cel[] => {
    if (reading.readable === undefined) return [];
    return [
      value.present === undefined
        ? reading.readable(value.value)
        : or(not(value.present), reading.readable(value.value)),
    ];
  };
  const differ =
    from.present === undefined || to.present === undefined
      ? ne(from.value, to.value)
      : or(ne(from.present, to.present), and(from.present, ne(from.value, to.value)));
  const changed = and(differ, ...readable(from), ...readable(to));
  const field = concat(site.field, str(`.${form.path}`));
  const shown = (value: Side) =>
    value.present === undefined
      ? reading.display(value.value)
      : cond(value.present, reading.display(value.value), str(absentValue));
  const source = (kind: string, occurs: Cel): ChangeSource => ({
    kind,
    count: cond(occurs, int(1), int(0)),
    message: (description) =>
      concat(
        field,
        str(': '),
        fill(description, { from: shown(from), to: shown(to), ...(site.item ? { item: site.item } : {}) }),
      ),
  });
  const comparison = form.comparison;
  if (comparison.compare === 'different') return { sources: [source(comparison.kind, changed)], uncompiled: [] };
  // Directions and release steps compare two present, readable values.
  const order = named(site, `order_${segments.join('_')}`, reading.order!(to.value, from.value));
  const ordered = (...more: Cel[]) =>
    and(...[from.present, to.present].filter((present) => present !== undefined), changed, ...more);
  switch (comparison.compare) {
    case 'direction': {
      if (comparison.increase === comparison.decrease)
        return { sources: [source(comparison.increase, ordered(ne(order, int(0))))], uncompiled: [] };
      return {
        sources: [
          source(comparison.increase, ordered(gt(order, int(0)))),
          source(comparison.decrease, ordered(lt(order, int(0)))),
        ],
        uncompiled: [],
      };
    }
    case 'release-step': {
      const sameMajor = eq(reading.part!(to.value, 0), reading.part!(from.value, 0));
      return {
        sources: [
          source(comparison.upgrade, ordered(gt(order, int(0)), sameMajor)),
          source(comparison.major, ordered(gt(order, int(0)), not(sameMajor))),
          source(comparison.downgrade, ordered(lt(order, int(0)))),
        ],
        uncompiled: [],
      };
    }
  }
}

function readingProblem(reading: ValueReading, schema: JSONSchemaProps, path: string): string | undefined {
  if (schema['x-kubernetes-int-or-string'])
    return `"${path}" holds integers and strings (int-or-string): the policy does not compile readings of such a field`;
  const wanted = reading === 'integer' ? 'integer' : 'string';
  if (schema.type !== wanted)
    return `"${path}" is read as ${reading === 'integer' ? 'an integer' : `a ${reading}`} but the hub schema's type is ${schema.type ?? 'none'}`;
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
  if (comparison.compare === 'release-step' && reading !== 'release')
    return 'byReleaseStep compares values not read by parseVersion';
  return undefined;
}

function literalOf(reading: ValueReading, value: unknown): Cel | undefined {
  if (reading === 'integer' ? !Number.isSafeInteger(value) : typeof value !== 'string') return undefined;
  return literal(value);
}

interface ReadingCel {
  /** CEL bool: the value reads as crdgate reads it and the API server reads it the same way; absent: every value does. */
  readable?(value: Cel): Cel;
  /** CEL string: the value as a message shows it. */
  display(value: Cel): Cel;
  /** CEL int, sign of the order of `a` against `b`, for ordered readings. */
  order?(a: Cel, b: Cel): Cel;
  /** CEL int: a release number's part. */
  part?(value: Cel, position: number): Cel;
}

// hasType ahead of each reading: an object stored before its schema changed may hold a value of another type, which
// crdgate's readers find unreadable, and which the CEL must not compare (a fraction against an int counts a change)
// nor read (a number has no matches(), and a failing policy refuses). `&&` is false when either side is, so the
// readings after it never meet such a value.

/** `(a > b ? 1 : (a < b ? -1 : 0))`: the sign of a's order against b. */
function sign(a: Cel, b: Cel): Cel {
  return cond(gt(a, b), int(1), cond(lt(a, b), int(-1), int(0)));
}

function readingCel(reading: ValueReading, schema: JSONSchemaProps): ReadingCel {
  switch (reading) {
    case 'integer':
      return {
        readable: (value) =>
          and(hasType(value, 'int'), ge(value, int(-largestExactInteger)), le(value, int(largestExactInteger))),
        display: (value) => call('string', [value]),
        order: sign,
      };
    case 'string':
      // As displayValue: the empty string quoted, so that no message shows a blank where a value is.
      return {
        readable: (value) => hasType(value, 'string'),
        display: (value) => cond(eq(value, str('')), str('""'), value),
      };
    case 'quantity':
      return {
        readable: (value) => and(hasType(value, 'string'), method(value, 'matches', str(exactQuantityPattern))),
        display: (value) => value,
        order: (a, b) => method(call('quantity', [a]), 'compareTo', call('quantity', [b])),
      };
    case 'release':
      return releaseCel(schema);
  }
}

function releaseCel(schema: JSONSchemaProps): ReadingCel {
  // A release of at most n characters (maxLength, or the longest enum value) has at most (n + 1) / 2 parts;
  // missing parts are 0.
  const longest = schema.maxLength ?? Math.max(1, ...(schema.enum ?? []).map((value) => String(value).length));
  const parts = Math.max(1, Math.floor((longest + 1) / 2));
  const pattern = `^${releasePart}([.]${releasePart}){0,${parts - 1}}$`;
  const split = (value: Cel) => method(value, 'split', str('.'));
  const partOf = (pieces: Cel, position: number) =>
    cond(gt(call('size', [pieces]), int(position)), call('int', [index(pieces, int(position))]), int(0));
  const [pa, pb] = [ident('pa'), ident('pb')];
  return {
    readable: (value) => and(hasType(value, 'string'), method(value, 'matches', str(pattern))),
    display: (value) => value,
    part: (value, position) => partOf(split(value), position),
    // Each side is split once: `[x].map(name, ...)[0]` binds x to a name, as CEL has no let.
    order: (a, b) => {
      const compare = Array.from({ length: parts }, (_, position) => position)
        .reverse()
        .reduce<Cel>((rest, position) => {
          const [x, y] = [partOf(pa, position), partOf(pb, position)];
          return cond(ne(x, y), cond(gt(x, y), int(1), int(-1)), rest);
        }, int(0));
      const inB = index(method(list([split(b)]), 'map', pb, compare), int(0));
      return index(method(list([split(a)]), 'map', pa, inB), int(0));
    },
  };
}

type KeyedListForm = Extract<ClassifierForm<string>, { classify: 'keyed-list' }>;

function compileKeyedList(form: KeyedListForm, site: CompareSite): CompiledClassifiers {
  const allKinds = [form.added, form.removed, ...form.items.flatMap((item) => item.kinds)];
  const segments = plainPath(form.path);
  if (segments === undefined)
    return notCompiled(allKinds, `the path "${form.path}" has a field name CEL cannot write plainly`);
  const schema = propertySchemaAt(site.schema, segments);
  if (schema === undefined) return notCompiled(allKinds, undeclaredProblem(site.schema, segments, form.path));
  const checked = listProblem(schema, form.path, form.keys);
  if ('problem' in checked) return notCompiled(allKinds, checked.problem);
  const absentMeans = form.absentMeans === undefined ? undefined : literal(form.absentMeans);
  if (form.absentMeans !== undefined && (absentMeans === undefined || form.absentMeans.length > 0)) {
    return notCompiled(allKinds, `its absentMeans ${JSON.stringify(form.absentMeans)} is not compiled; only [] is`);
  }
  const from = side(site, 'old', segments, absentMeans, list([]));
  const to = side(site, 'new', segments, absentMeans, list([]));
  const items = keyedList(form, checked.keyTypes, site, segments, from.value, to.value);
  // Counted only where the webhook tells the items apart: both lists there, and every key one it reads exactly.
  const readable = [from.present, to.present, items.keysReadable].filter((part) => part !== undefined);
  const guarded = (count: Cel) => (readable.length === 0 ? count : cond(and(...readable), count, int(0)));
  const sources: ChangeSource[] = [
    { kind: form.added, count: guarded(method(items.added, 'size')), message: items.addedMessage },
    { kind: form.removed, count: guarded(method(items.removed, 'size')), message: items.removedMessage },
  ];
  const uncompiled: UncompiledKinds[] = [];
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
    const inPair = compileField(item, kinds, items.pairSite(items.pair));
    uncompiled.push(...inPair.uncompiled);
    inPair.sources.forEach((pairSource, sourceIndex) => {
      const withChange = named(
        site,
        `${pairSource.kind}_${segments.join('_')}`,
        method(items.pairs, 'filter', items.pair, gt(pairSource.count, int(0))),
      );
      const forMessage = compileField(item, kinds, items.pairSite(index(withChange, int(0)))).sources[sourceIndex]!;
      sources.push({ kind: pairSource.kind, count: guarded(method(withChange, 'size')), message: forMessage.message });
    });
  });
  return { sources, uncompiled };
}

/** A keyed list's items added, removed and kept (paired old with new by key), and how messages name them. */
interface KeyedListCel {
  added: Cel;
  removed: Cel;
  addedMessage(description: string): Cel;
  removedMessage(description: string): Cel;
  /** The list of [old, new] pairs of items with the same key, read once per request. */
  pairs: Cel;
  /** The comprehension variable one pair is read through. */
  pair: Cel;
  /** The site of one pair's item classifiers. */
  pairSite(pair: Cel): CompareSite;
  /** CEL bool: every integer key on both sides is one crdgate holds exactly; absent when no key is an integer. */
  keysReadable?: Cel;
}

/** The types of key the policy compiles: compared with ==, and shown by string() as crdgate shows them. */
type KeyType = 'string' | 'integer' | 'boolean';

function keyedList(
  form: KeyedListForm,
  keyTypes: readonly KeyType[],
  site: CompareSite,
  segments: readonly string[],
  before: Cel,
  after: Cel,
): KeyedListCel {
  const [o, n, p] = [ident(`o${site.depth}`), ident(`n${site.depth}`), ident(`p${site.depth}`)];
  const sameKey = and(...form.keys.map((key) => eq(member(o, key), member(n, key))));
  // How a message names an item: its key's value, or `key=value` pairs, as keyedListClassifier names it.
  const shownKey = (item: Cel, position: number) =>
    keyTypes[position] === 'string'
      ? cond(eq(member(item, form.keys[position]!), str('')), str('""'), member(item, form.keys[position]!))
      : call('string', [member(item, form.keys[position]!)]);
  const itemName = (item: Cel) =>
    form.keys.length === 1
      ? shownKey(item, 0)
      : concat(
          ...form.keys.flatMap((key, position) => [
            str(`${position === 0 ? '' : ', '}${key}=`),
            shownKey(item, position),
          ]),
        );
  const listField = concat(site.field, str(`.${form.path}`));
  const at = (items: Cel, item: Cel) =>
    concat(listField, str('['), call('string', [method(items, 'indexOf', item)]), str(']'));
  const listHint = segments.join('_');
  // Counted by the validations, the first one read by a failing validation's message.
  const added = named(site, `added_${listHint}`, method(after, 'filter', n, not(method(before, 'exists', o, sameKey))));
  const removed = named(
    site,
    `removed_${listHint}`,
    method(before, 'filter', o, not(method(after, 'exists', n, sameKey))),
  );
  const [firstAdded, firstRemoved] = [index(added, int(0)), index(removed, int(0))];
  // The items both lists hold, paired by key once per request ([old, new]), for every item classifier to read.
  const kept = method(after, 'filter', n, method(before, 'exists', o, sameKey));
  const pairs = named(
    site,
    `pairs_${listHint}`,
    method(kept, 'map', n, list([index(method(before, 'filter', o, sameKey), int(0)), n])),
  );
  const integerKeys = form.keys.filter((_, position) => keyTypes[position] === 'integer');
  const exact = (item: Cel) =>
    and(
      ...integerKeys.flatMap((key) => [
        ge(member(item, key), int(-largestExactInteger)),
        le(member(item, key), int(largestExactInteger)),
      ]),
    );
  const keysReadable =
    integerKeys.length === 0
      ? undefined
      : named(site, `keys_${listHint}`, and(method(before, 'all', o, exact(o)), method(after, 'all', n, exact(n))));
  return {
    added,
    removed,
    addedMessage: (description) =>
      concat(at(after, firstAdded), str(': '), fill(description, { item: itemName(firstAdded) })),
    removedMessage: (description) => concat(listField, str(': '), fill(description, { item: itemName(firstRemoved) })),
    pairs,
    pair: p,
    pairSite: (pair) => ({
      old: call('optional.of', [index(pair, int(0))]),
      new: call('optional.of', [index(pair, int(1))]),
      schema: propertySchemaAt(site.schema, segments)!.items,
      field: at(after, index(pair, int(1))),
      item: itemName(index(pair, int(1))),
      depth: site.depth + 1,
    }),
    ...(keysReadable === undefined ? {} : { keysReadable }),
  };
}

/** Why a keyed list's form does not compile, or the types of its keys. */
function listProblem(
  schema: JSONSchemaProps,
  path: string,
  keys: readonly string[],
): { problem: string } | { keyTypes: KeyType[] } {
  if (schema.type !== 'array') return { problem: `"${path}" is not a list in the hub schema` };
  const mapKeys = schema['x-kubernetes-list-map-keys'] ?? [];
  if (
    schema['x-kubernetes-list-type'] !== 'map' ||
    mapKeys.length !== keys.length ||
    !keys.every((key) => mapKeys.includes(key))
  ) {
    return {
      problem: `"${path}" must be a map list keyed by ${keys.join(', ')} (x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [${keys.join(', ')}]) in the hub schema`,
    };
  }
  if (schema.maxItems === undefined)
    return { problem: `"${path}" needs a maxItems in the hub schema, so the API server can bound the policy's cost` };
  const keyTypes: KeyType[] = [];
  for (const key of keys) {
    if (!isPlainFieldName(key))
      return { problem: `the key "${key}" of "${path}" is a field name CEL cannot write plainly` };
    const type = schema.items?.properties?.[key]?.type;
    if (type !== 'string' && type !== 'integer' && type !== 'boolean') {
      return {
        problem: `the key ${key} of "${path}" must be a string, integer or boolean field (the policy does not compile ${type ?? 'int-or-string'} keys)`,
      };
    }
    keyTypes.push(type);
  }
  return { keyTypes };
}

type Placeholder = (typeof changePlaceholders)[number];
const placeholder = new RegExp(`(\\{(?:${changePlaceholders.join('|')})\\})`);

/** Fills the placeholders of a description (as describeChange does) with CEL strings; a missing one reads "(none)". */
function fill(description: string, values: Partial<Record<Placeholder, Cel>>): Cel {
  const parts = description.split(placeholder).filter((part) => part !== '');
  return concat(
    ...parts.map((part) => {
      const name = changePlaceholders.find((candidate) => part === `{${candidate}}`);
      return name === undefined ? str(part) : (values[name] ?? str(absentValue));
    }),
  );
}
