import { renderFieldPath, type PathSegment } from './field-path.ts';
import { describeValue } from './describe-value.ts';

// A contract is written in TypeScript, but crdgate is also handed contracts its types never saw: a user's module
// compiled by anything, a plain object given to contractTester, a definition missing an option. Each option's shape
// is therefore described as data and checked before any rule reads it, so a wrong or missing option is a sentence
// naming its path (`transitions.humanInterventionStates must be a list of state names, got undefined`), never a
// TypeError from deep inside crdgate.

/** What an option must be, and how an error names that (`a list of state names`). */
export type OptionShape =
  | { type: 'string' | 'boolean' | 'object' | 'anything'; what: string }
  /** A finite number, above `greaterThan` when given. */
  | { type: 'number'; what: string; greaterThan?: number }
  /** A safe integer, at least `min` when given. */
  | { type: 'integer'; what: string; min?: number }
  /** A function; `properties` for a function that carries data too (a deletion rule's form). */
  | { type: 'function'; what: string; properties?: ShapeFields }
  | { type: 'oneOf'; values: readonly (string | boolean | null)[]; what: string }
  | { type: 'list'; items: OptionShape; what: string }
  /** An object of any keys, each value of one shape (version names to conversions, states to rules). */
  | { type: 'record'; values: OptionShape; what: string }
  /**
   * An object of these fields. `others`: what its other keys may hold (by default anything): `'none'` for an
   * object rendered as it is into a Kubernetes object, which the API server would refuse an unknown field of.
   */
  | { type: 'fields'; fields: ShapeFields; what: string; others?: OptionShape | 'none' }
  /** Objects told apart by the value of one field (a classifier form's `classify`), each case its own fields. */
  | { type: 'cases'; by: string; cases: Readonly<Record<string, ShapeFields>>; what: string }
  /** A value of the first of these shapes whose type it has. */
  | { type: 'either'; shapes: readonly OptionShape[]; what: string }
  /** Left out, or of the shape; undefined counts as left out. */
  | { type: 'maybe'; shape: OptionShape }
  /** A shape that contains itself (a keyed list's item forms), named once it exists. */
  | { type: 'recursive'; shape: () => OptionShape };

export type ShapeFields = Readonly<Record<string, OptionShape>>;

export const text = (what = 'a string'): OptionShape => ({ type: 'string', what });
export const flag: OptionShape = { type: 'boolean', what: 'true or false' };
export const number = (what = 'a finite number', greaterThan?: number): OptionShape => ({
  type: 'number',
  what,
  ...(greaterThan === undefined ? {} : { greaterThan }),
});
export const integer = (what = 'an integer', min?: number): OptionShape => ({
  type: 'integer',
  what,
  ...(min === undefined ? {} : { min }),
});
export const anObject = (what: string): OptionShape => ({ type: 'object', what });
export const anything: OptionShape = { type: 'anything', what: 'anything' };
export const aFunction = (what: string, properties?: ShapeFields): OptionShape => ({
  type: 'function',
  what,
  ...(properties ? { properties } : {}),
});
export const listOf = (items: OptionShape, what: string): OptionShape => ({ type: 'list', items, what });
export const recordOf = (values: OptionShape, what: string): OptionShape => ({ type: 'record', values, what });
export const withFields = (what: string, fields: ShapeFields, others?: OptionShape | 'none'): OptionShape => ({
  type: 'fields',
  fields,
  what,
  ...(others === undefined ? {} : { others }),
});
export const cases = (by: string, what: string, byName: Readonly<Record<string, ShapeFields>>): OptionShape => ({
  type: 'cases',
  by,
  cases: byName,
  what,
});
export const either = (what: string, ...shapes: OptionShape[]): OptionShape => ({ type: 'either', shapes, what });
export const maybe = (shape: OptionShape): OptionShape => ({ type: 'maybe', shape });
/** Made once, when first walked into: `json`'s shape would otherwise be built anew at every value it checks. */
export const recursive = (shape: () => OptionShape): OptionShape => {
  let made: OptionShape | undefined;
  return { type: 'recursive', shape: () => (made ??= shape()) };
};

/** One of these values, named as they are written in TypeScript: `'Namespaced' or 'Cluster'`. */
export function oneOf(values: readonly (string | boolean | null)[]): Extract<OptionShape, { type: 'oneOf' }> {
  const written = values.map((value) => (typeof value === 'string' ? `'${value}'` : String(value)));
  return {
    type: 'oneOf',
    values,
    what: written.length > 1 ? `${written.slice(0, -1).join(', ')} or ${written.at(-1)}` : written.join(''),
  };
}

/** What JSON can hold, so what can be rendered into a Kubernetes object: no function, undefined, NaN or Infinity. */
export const json: OptionShape = recursive(() =>
  either('a JSON value', text(), number(), flag, oneOf([null]), listOf(json, 'a list'), recordOf(json, 'an object')),
);

/** Where a value sits: the path of an option, and what to call the value itself (`the contract`) at the root. */
export interface OptionPlace {
  path: readonly PathSegment[];
  whole: string;
}

/**
 * Every place where `value` is not of `shape`, one sentence each; empty when it is. Nothing below a value of the
 * wrong type is looked at: the one sentence says what it must be.
 */
export function shapeProblems(value: unknown, shape: OptionShape, place: OptionPlace): string[] {
  const walker = new ShapeWalker(place);
  walker.walk(value, shape);
  return walker.problems;
}

/**
 * The fields of a `fields` shape in their order, and those that must be given: a schema node has forty keywords
 * and uses three, so the walker looks at what a value holds rather than at every field it could hold.
 */
interface FieldOrder {
  names: readonly string[];
  position: ReadonlyMap<string, number>;
  required: readonly string[];
}

const fieldOrders = new WeakMap<ShapeFields, FieldOrder>();
const noFields: ShapeFields = {};

function fieldOrderOf(fields: ShapeFields): FieldOrder {
  let order = fieldOrders.get(fields);
  if (order === undefined) {
    const names = Object.keys(fields);
    order = {
      names,
      position: new Map(names.map((name, index) => [name, index])),
      required: names.filter((name) => fields[name]!.type !== 'maybe'),
    };
    fieldOrders.set(fields, order);
  }
  return order;
}

class ShapeWalker {
  readonly problems: string[] = [];
  private readonly whole: string;
  /** Where the value being walked is: the segments are pushed on the way down and popped on the way up. */
  private readonly path: PathSegment[];
  /** The objects on the way down: a value that contains itself has no end to walk, and no option can. */
  private readonly ancestors = new Set<object>();

  constructor(place: OptionPlace) {
    this.whole = place.whole;
    this.path = [...place.path];
  }

  walk(value: unknown, shape: OptionShape): void {
    // An operator's CRD given as ownerCrd is megabytes of JSON: walked without a path per value, and again (to say
    // where) only when something in it is not JSON.
    if (shape === json && isJsonTree(value, this.ancestors)) return;
    if (shape.type === 'recursive') return this.walk(value, shape.shape());
    if (shape.type === 'maybe') return value === undefined ? undefined : this.walk(value, shape.shape);
    if (shape.type === 'either') {
      const matching = shape.shapes.find((candidate) => hasType(value, candidate));
      return matching === undefined
        ? this.problem(`must be ${shape.what}, got ${describeOption(value)}`)
        : this.walk(value, matching);
    }
    if (!hasType(value, shape)) return this.problem(`must be ${shape.what}, got ${describeOption(value)}`);
    if (typeof value !== 'object' && typeof value !== 'function') return;
    const container = value as Record<string, unknown>;
    if (this.ancestors.has(container)) return this.problem('contains itself');
    this.ancestors.add(container);
    switch (shape.type) {
      case 'list':
        (value as unknown[]).forEach((item, index) => this.walkAt(index, item, shape.items));
        break;
      case 'record':
        for (const key of Object.keys(container)) this.walkAt(key, container[key], shape.values);
        break;
      case 'fields':
        this.walkFields(container, shape.fields);
        if (shape.others !== undefined) this.walkOthers(container, shape.fields, shape.others);
        break;
      case 'function':
        this.walkFields(container, shape.properties ?? noFields);
        break;
      case 'cases': {
        const name = container[shape.by];
        const fields = typeof name === 'string' && Object.hasOwn(shape.cases, name) ? shape.cases[name] : undefined;
        if (fields === undefined)
          this.problemAt(shape.by, `must be ${oneOf(Object.keys(shape.cases)).what}, got ${describeOption(name)}`);
        else this.walkFields(container, fields);
        break;
      }
    }
    this.ancestors.delete(container);
  }

  private walkAt(segment: PathSegment, value: unknown, shape: OptionShape): void {
    this.path.push(segment);
    this.walk(value, shape);
    this.path.pop();
  }

  /**
   * The fields in the shape's order: those the object has as its own (an option named like one of
   * Object.prototype's must not be read from it), and those it must have; a field that may be left out and is
   * left out has nothing to walk.
   */
  private walkFields(container: Record<string, unknown>, fields: ShapeFields): void {
    const { names, position, required } = fieldOrderOf(fields);
    const present: number[] = [];
    for (const key of Object.getOwnPropertyNames(container)) {
      const at = position.get(key);
      if (at !== undefined) present.push(at);
    }
    for (const key of required) if (!Object.hasOwn(container, key)) present.push(position.get(key)!);
    if (present.length > 1) present.sort((a, b) => a - b);
    for (const at of present) {
      const key = names[at]!;
      this.walkAt(key, Object.hasOwn(container, key) ? container[key] : undefined, fields[key]!);
    }
  }

  private walkOthers(container: Record<string, unknown>, fields: ShapeFields, others: OptionShape | 'none'): void {
    for (const key of Object.keys(container)) {
      if (Object.hasOwn(fields, key)) continue;
      if (others !== 'none') this.walkAt(key, container[key], others);
      else this.problemAt(key, `is not a field it can have (${Object.keys(fields).join(', ') || 'none'})`);
    }
  }

  private problemAt(segment: PathSegment, sentence: string): void {
    this.path.push(segment);
    this.problem(sentence);
    this.path.pop();
  }

  private problem(sentence: string): void {
    this.problems.push(`${this.path.length === 0 ? this.whole : renderFieldPath('', this.path)} ${sentence}`);
  }
}

/**
 * Whether `value` is what {@link json} takes, throughout: the walker's verdict on it, without its paths. `ancestors`
 * (the objects above it) is left as it was found.
 */
function isJsonTree(value: unknown, ancestors: Set<object>): boolean {
  if (typeof value !== 'object')
    return (
      typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))
    );
  if (value === null) return true;
  if (ancestors.has(value)) return false;
  ancestors.add(value);
  let isJson = true;
  if (Array.isArray(value)) {
    // A hole is not undefined to the walker (forEach skips it), so an array with one is left to the walker.
    for (let index = 0; index < value.length && isJson; index += 1)
      isJson = Object.hasOwn(value, index) && isJsonTree(value[index], ancestors);
  } else {
    const object = value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      if (!isJsonTree(object[key], ancestors)) {
        isJson = false;
        break;
      }
    }
  }
  ancestors.delete(value);
  return isJson;
}

type CheckedShape = Exclude<OptionShape, { type: 'recursive' | 'maybe' | 'either' }>;

function hasType(value: unknown, shape: OptionShape): boolean {
  switch (shape.type) {
    case 'recursive':
      return hasType(value, shape.shape());
    case 'maybe':
      return value === undefined || hasType(value, shape.shape);
    case 'either':
      return shape.shapes.some((candidate) => hasType(value, candidate));
    default:
      return hasOwnType(value, shape);
  }
}

function hasOwnType(value: unknown, shape: CheckedShape): boolean {
  switch (shape.type) {
    case 'anything':
      return true;
    case 'number':
      return (
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (shape.greaterThan === undefined || value > shape.greaterThan)
      );
    case 'string':
    case 'boolean':
    case 'function':
      return typeof value === shape.type;
    case 'integer':
      return (
        typeof value === 'number' && Number.isSafeInteger(value) && (shape.min === undefined || value >= shape.min)
      );
    case 'oneOf':
      return (shape.values as readonly unknown[]).includes(value);
    case 'list':
      return Array.isArray(value);
    case 'object':
    case 'record':
    case 'fields':
    case 'cases':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/** A value as an error shows it: JSON for a scalar, shortened; a word for a container or what JSON cannot show. */
export function describeOption(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'symbol' || typeof value === 'bigint') return `a ${typeof value}`;
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value); // JSON would write null
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : 'a list';
  if (typeof value === 'object' && value !== null) return 'an object';
  return describeValue(value);
}
