import type { HubToSpokePaths } from './contract-definition.ts';
import { fieldNameSource, fieldPathSteps, type FieldPathStep, type PathSegment } from './values/field-path.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';

/**
 * Rules run on the hub, so the paths in their errors are hub paths. A client of an older version must read its
 * denial in its own words: this turns hub paths back into the spoke's, through the paths its conversion declares.
 */
export interface ClientFieldPaths {
  /** A hub field path (`spec.caches[1].memory`) as the spoke spells it, or the hub path marked as the hub's. */
  field(hubPath: string): string;
  /** A sentence with every hub field path in it (`... (spec.readReplicas)`) spelled as the spoke spells it. */
  text(sentence: string): string;
  /** Whether the spoke has the hub field at all: false where `field` names it as the hub's. */
  shows(hubPath: string): boolean;
}

export interface ClientFieldPathsInput {
  hubVersion: string;
  spokeVersion: string;
  hubSchema: JSONSchemaProps;
  spokeSchema: JSONSchemaProps;
  /** The conversion's declaration; without one, a field keeps its path if the spoke's schema has it. */
  declared?: HubToSpokePaths;
}

/** Stands for any list index in a declared path: `spec.caches[*].memory`. */
const anyIndex = Symbol('any index');
type PatternStep = PathSegment | typeof anyIndex;
type Step = PathSegment;

interface Rule {
  from: PatternStep[];
  /** The spoke path, with `[*]` for each index taken from the hub path in order; null: no spoke equivalent. */
  to: string | null;
}

// A declared path: plain field names, list indexes and `[*]`, as contracts write them (no map keys: a map's keys
// are data, and the same in every version).
const declaredPathSyntax = new RegExp(`^${fieldNameSource}(?:\\.${fieldNameSource}|\\[(?:\\d+|\\*)\\])*$`);

/** Why a declared path or its target is not one crdgate can use, or undefined when both are fine. */
export function declaredPathProblem(from: string, to: string | null): string | undefined {
  if (!declaredPathSyntax.test(from)) return `"${from}" is not a field path like spec.items[*].name`;
  if (to === null) return undefined;
  if (!declaredPathSyntax.test(to))
    return `the target of ${from}, "${to}", is not a field path like spec.items[*].name`;
  // Each `[*]` of the target is filled with an index of the hub path; there must be one to fill it with.
  if (wildcards(to) > wildcards(from)) return `${to} has more [*] than ${from}, so an index would be missing`;
  return undefined;
}

/** Declared hub paths the hub's schema lacks, and targets the spoke's schema lacks: typos, caught at start-up. */
export function undeclarablePaths(input: ClientFieldPathsInput): string[] {
  const problems: string[] = [];
  for (const [from, to] of Object.entries(input.declared ?? {})) {
    if (!inSchema(input.hubSchema, patternSteps(from).map(asStep)))
      problems.push(`${from} is not a field of ${input.hubVersion}`);
    if (to !== null && !inSchema(input.spokeSchema, patternSteps(to).map(asStep))) {
      problems.push(`${to} (for ${from}) is not a field of ${input.spokeVersion}`);
    }
  }
  return problems;
}

/** Compiled once per spoke version at start-up; a request only pays for it when its version is not the hub. */
export function compileClientFieldPaths(input: ClientFieldPathsInput): ClientFieldPaths {
  const { hubVersion, spokeVersion, hubSchema, spokeSchema } = input;
  // The most specific declaration wins: the longest, and of two as long, the one with fewer `[*]`.
  const rules: Rule[] = Object.entries(input.declared ?? {})
    .map(([from, to]) => ({ from: patternSteps(from), to }))
    .sort((a, b) => b.from.length - a.from.length || wildcardSteps(a.from) - wildcardSteps(b.from));
  const noEquivalent = (path: string) => `${path} (${hubVersion} field; no ${spokeVersion} equivalent)`;
  const notInSpoke = (path: string) => `${path} (${hubVersion} field; not in ${spokeVersion})`;

  /** The spoke's path for a hub path, or why it has none: no equivalent declared, or not in its schema. */
  const spokePath = (hubPath: string): string | 'no equivalent' | 'not in spoke' => {
    const steps = fieldPathSteps(hubPath);
    for (const rule of rules) {
      const indexes = matchPrefix(rule.from, steps);
      if (indexes === undefined) continue;
      if (rule.to === null) return 'no equivalent';
      return joinPath(fillIndexes(rule.to, indexes), hubPath.slice(steps[rule.from.length - 1]!.end));
    }
    // Undeclared: the same path in both versions, unless the spoke's schema has no such field while the hub's has.
    // (Paths in neither, such as an unknown field's, stay as they are: they are not the hub's either.)
    const values = steps.map((step) => step.value);
    if (
      steps.length === 0 ||
      sharedRoots.has(String(values[0])) ||
      inSchema(spokeSchema, values) ||
      !inSchema(hubSchema, values)
    ) {
      return hubPath;
    }
    return 'not in spoke';
  };
  const field = (hubPath: string): string => {
    const path = spokePath(hubPath);
    return path === 'no equivalent' ? noEquivalent(hubPath) : path === 'not in spoke' ? notInSpoke(hubPath) : path;
  };
  // A field shows when it has a place in the spoke, or some field below it has (a declared path under it).
  const shows = (hubPath: string): boolean => {
    if (!['no equivalent', 'not in spoke'].includes(spokePath(hubPath))) return true;
    const steps = fieldPathSteps(hubPath).map((step) => step.value);
    return rules.some(
      (rule) =>
        rule.to !== null &&
        rule.from.length > steps.length &&
        steps.every((step, at) => rule.from[at] === step || (rule.from[at] === anyIndex && typeof step === 'number')),
    );
  };

  const roots = new Set([...Object.keys(hubSchema.properties ?? {}), ...rules.map((rule) => String(rule.from[0]))]);
  for (const root of sharedRoots) roots.delete(root);
  const pathsInText = roots.size === 0 ? undefined : pathInTextPattern([...roots]);
  const text = (sentence: string): string =>
    // A root alone ("the spec") is a word, not a path: only paths with at least one step below the root are read.
    pathsInText === undefined
      ? sentence
      : sentence.replace(pathsInText, (path) => (fieldPathSteps(path).length > 1 ? field(path) : path));

  return { field, text, shows };
}

// Kubernetes owns these: the same in every version of every kind.
const sharedRoots = new Set(['apiVersion', 'kind', 'metadata']);

function pathInTextPattern(roots: string[]): RegExp {
  const alternatives = roots.map((root) => root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  // Not inside a longer name or path: nothing that could continue one may stand right before it.
  return new RegExp(`(?<![\\w$.\\]\\[-])(?:${alternatives})(?:\\.${fieldNameSource}|\\[[^\\]]*\\])*`, 'g');
}

function patternSteps(pattern: string): PatternStep[] {
  return fieldPathSteps(pattern).map(({ value }, index, all) => {
    // `[*]` parses as the key "*"; in a declaration (whose syntax has no map keys) it is the wildcard.
    const bracketed = typeof value === 'string' && pattern.slice(0, all[index]!.end).endsWith('[*]');
    return bracketed ? anyIndex : value;
  });
}

const asStep = (step: PatternStep): Step => (step === anyIndex ? 0 : step);

function wildcards(pattern: string): number {
  return pattern.split('[*]').length - 1;
}

function wildcardSteps(steps: PatternStep[]): number {
  return steps.filter((step) => step === anyIndex).length;
}

/** The indexes `[*]` stood for when the pattern matches the start of the path; undefined when it does not. */
function matchPrefix(pattern: PatternStep[], steps: FieldPathStep[]): number[] | undefined {
  if (pattern.length > steps.length) return undefined;
  const indexes: number[] = [];
  for (const [at, expected] of pattern.entries()) {
    const actual = steps[at]!.value;
    if (expected === anyIndex) {
      if (typeof actual !== 'number') return undefined;
      indexes.push(actual);
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return indexes;
}

function fillIndexes(target: string, indexes: number[]): string {
  let next = 0;
  return target.replaceAll('[*]', () => `[${indexes[next++]}]`);
}

function joinPath(prefix: string, rest: string): string {
  if (prefix === '') return rest.startsWith('.') ? rest.slice(1) : rest;
  return prefix + rest;
}

/** Whether a structural schema has a field at these steps (anything goes below x-kubernetes-preserve-unknown-fields). */
function inSchema(schema: JSONSchemaProps, steps: readonly Step[]): boolean {
  let node: JSONSchemaProps | undefined = schema;
  for (const step of steps) {
    if (node === undefined) return false;
    if (node['x-kubernetes-preserve-unknown-fields'] && node.properties?.[String(step)] === undefined) return true;
    if (typeof step === 'number') {
      node = node.items;
    } else if (node.properties && Object.hasOwn(node.properties, step)) {
      node = node.properties[step];
    } else if (node.additionalProperties !== undefined && node.additionalProperties !== false) {
      if (node.additionalProperties === true) return true;
      node = node.additionalProperties;
    } else {
      return false;
    }
  }
  return node !== undefined;
}
