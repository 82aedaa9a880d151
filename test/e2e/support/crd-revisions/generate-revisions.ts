import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import type { JSONSchemaProps, JSONValue } from '../../../../src/contract/schema/json-schema-props.ts';
import { minimalValue, type Json } from '../differential/schema-cases.ts';
import { storageVersionOf, type Crd, type CrdWithObjects } from './crd.ts';
import { allRevisionKinds, revisionKinds, type RevisionKind } from './revision-kinds.ts';
import { eachItem, nodeAt, pathOf, ruleTexts, schemaSites, type SchemaSite } from './schema-sites.ts';
import { seededRandom, seedOf, type SeededRandom } from './seeded-random.ts';

/** One generated revision: the CRD before and after, and the objects stored under the one before. */
export interface CrdRevision {
  /** `SOURCE KIND`: unique within a run, and the same on every run with the same seed. */
  id: string;
  source: string;
  /** The kind generated; `release` for a pair of a project's releases (release-pairs.ts). */
  kind: RevisionKind | 'release';
  /** What changed, where, from what to what: for a failure message. */
  change: string;
  old: Crd;
  new: Crd;
  /** The objects to store under `old`, in its storage version: the input's, plus any the kind needs (a null, a duplicate). */
  objects: KubeObject[];
}

/** A kind that this CRD and its objects offer no place for, and why: reported, so that a kind never silently vanishes. */
export interface KindWithoutSite {
  source: string;
  kind: RevisionKind;
  reason: string;
}

interface Made {
  change: string;
  old?: Crd;
  new: Crd;
  objects?: KubeObject[];
}

interface Context {
  crd: Crd;
  objects: readonly KubeObject[];
  sites: SchemaSite[];
  random: SeededRandom;
  /** Names any CEL rule or selectable field mentions: revisions that would break those rules leave them alone. */
  mentioned: (name: string) => boolean;
}

/**
 * Revisions of `input.crd` of each kind asked for (all by default), each at a place the seed chooses among those
 * where the objects hold something the change bites on. Deterministic: the same input and seed, the same revisions.
 */
export function generateRevisions(
  input: CrdWithObjects,
  { seed = 42, kinds = allRevisionKinds }: { seed?: number; kinds?: readonly RevisionKind[] } = {},
): { revisions: CrdRevision[]; withoutSite: KindWithoutSite[] } {
  const schema = storageVersionOf(input.crd).schema?.openAPIV3Schema ?? {};
  const texts = input.crd.spec.versions.flatMap((version) => [
    ...(version.schema ? ruleTexts(version.schema.openAPIV3Schema) : []),
    ...((version['selectableFields'] as Array<{ jsonPath: string }> | undefined) ?? []).map((field) => field.jsonPath),
  ]);
  const revisions: CrdRevision[] = [];
  const withoutSite: KindWithoutSite[] = [];
  for (const kind of kinds) {
    const context: Context = {
      crd: input.crd,
      objects: input.objects,
      sites: schemaSites(schema, input.objects),
      random: seededRandom(seedOf(seed, input.source, kind)),
      mentioned: (name) =>
        texts.some((text) => new RegExp(`\\b${name.replace(/[^A-Za-z0-9_]/g, '\\$&')}\\b`).test(text)),
    };
    // A change of meaning is made only where no default above the site would stop being valid.
    if (!revisionKinds[kind].safe) context.sites = context.sites.filter((site) => !underDefault(context, site));
    const made = makers[kind](context);
    if (typeof made === 'string') {
      withoutSite.push({ source: input.source, kind, reason: made });
      continue;
    }
    revisions.push({
      id: `${input.source} ${kind}`,
      source: input.source,
      kind,
      change: made.change,
      old: made.old ?? structuredClone(input.crd),
      new: made.new,
      objects: made.objects ?? structuredClone([...input.objects]),
    });
  }
  return { revisions, withoutSite };
}

type Maker = (context: Context) => Made | string;

const scalarTypes = new Set(['string', 'integer', 'number', 'boolean']);
const nameOf = (site: SchemaSite): string => site.steps.at(-1)!;
const isProperty = (site: SchemaSite): boolean => site.parent !== undefined;
const isOptional = (site: SchemaSite): boolean =>
  isProperty(site) && !(site.parent!.required ?? []).includes(nameOf(site));
const isScalar = (site: SchemaSite): boolean =>
  scalarTypes.has(site.schema.type ?? '') && !site.schema['x-kubernetes-int-or-string'];
const held = (site: SchemaSite): boolean => site.holders.size > 0;
const distinct = (values: readonly Json[]): Json[] => [
  ...new Map(values.map((value) => [JSON.stringify(value), value])).values(),
];
const inList = (site: SchemaSite): boolean => site.steps.includes(eachItem);

/**
 * A default above the site (an object's or a list's) holds a value for it that the API server checks against the
 * new revision: a change of the site's values must not make that default invalid, or the revision is refused.
 */
function underDefault(context: Context, site: SchemaSite): boolean {
  const schema = storageVersionOf(context.crd).schema!.openAPIV3Schema;
  return site.steps
    .slice(0, -1)
    .some((_, index) => nodeAt(schema, site.steps.slice(0, index + 1))?.default !== undefined);
}

/** A list-map key of the list above, which the list's identity needs. */
function isMapKey(context: Context, site: SchemaSite): boolean {
  const steps = site.steps;
  if (steps.length < 2 || steps.at(-2) !== eachItem) return false;
  const list = nodeAt(storageVersionOf(context.crd).schema!.openAPIV3Schema, steps.slice(0, -2));
  return (list?.['x-kubernetes-list-map-keys'] ?? []).includes(nameOf(site));
}

/** A site a change of meaning can be made at without breaking a rule, a selectable field or a list's keys. */
const changeable =
  (context: Context) =>
  (site: SchemaSite): boolean =>
    !context.mentioned(nameOf(site)) && !isMapKey(context, site);

/** The CRD with `edit` applied to the node at `steps` of every version that has it. */
function edited(
  crd: Crd,
  steps: readonly string[],
  edit: (node: JSONSchemaProps, parent: JSONSchemaProps | undefined) => void,
): Crd {
  const copy = structuredClone(crd);
  for (const version of copy.spec.versions) {
    const schema = version.schema?.openAPIV3Schema;
    const node = schema && nodeAt(schema, steps);
    if (node)
      edit(node, steps.length > 0 && steps.at(-1) !== eachItem ? nodeAt(schema, steps.slice(0, -1)) : undefined);
  }
  return copy;
}

/** Sites held by objects come first; among equals, the seed chooses. */
function choose(context: Context, candidates: SchemaSite[]): SchemaSite | undefined {
  const preferred = candidates.filter((site) => !inList(site));
  return candidates.length === 0 ? undefined : context.random.pick(preferred.length > 0 ? preferred : candidates);
}

/** Copies of some objects with `value` set at a site outside lists (named `NAME-SUFFIX`), for kinds that need such objects stored. */
function variants(
  context: Context,
  site: SchemaSite,
  suffix: string,
  value: (current: Json | undefined) => Json | undefined,
): KubeObject[] {
  const made: KubeObject[] = [];
  for (const index of [...site.parentHolders].slice(0, 3)) {
    const copy = structuredClone(context.objects[index]!) as unknown as Record<string, Json>;
    let node = copy as Json;
    for (const step of site.steps.slice(0, -1)) node = (node as Record<string, Json>)[step]!;
    const parent = node as Record<string, Json>;
    const next = value(parent[nameOf(site)]);
    if (next === undefined) continue;
    parent[nameOf(site)] = next;
    (copy['metadata'] as Record<string, Json>)['name'] =
      `${String((copy['metadata'] as Record<string, Json>)['name'])}-${suffix}`;
    made.push(copy as unknown as KubeObject);
  }
  return made;
}

const show = (value: unknown): string => JSON.stringify(value);
const numbers = (site: SchemaSite): number[] =>
  site.held.filter((value): value is number => typeof value === 'number').sort((a, b) => a - b);
const validDefault = (site: SchemaSite, ok: (value: JSONValue) => boolean): boolean =>
  site.schema.default === undefined || ok(site.schema.default);

function newVersionName(crd: Crd): string {
  for (let index = 9; ; index += 1)
    if (!crd.spec.versions.some((version) => version.name === `v${index}alpha1`)) return `v${index}alpha1`;
}

/** The CRD itself if it serves a version besides its storage version, or the CRD with a copy of the storage version added. */
function twoVersions(crd: Crd): { old: Crd; other: string } {
  const other = crd.spec.versions.find((version) => !version.storage && version.served);
  if (other) return { old: structuredClone(crd), other: other.name };
  const old = structuredClone(crd);
  const name = newVersionName(crd);
  old.spec.versions.push({ ...structuredClone(storageVersionOf(crd)), name, storage: false, served: true });
  return { old, other: name };
}

const makers: Record<RevisionKind, Maker> = {
  fieldRemoved: (context) => {
    const site = choose(
      context,
      context.sites.filter((site) => isOptional(site) && held(site) && changeable(context)(site)),
    );
    if (!site) return 'no optional field that objects hold and no rule names';
    return {
      change: `${pathOf(site.steps)} removed`,
      new: edited(context.crd, site.steps, (_node, parent) => delete parent!.properties![nameOf(site)]),
    };
  },
  enumNarrowed: (context) => {
    const withEnum = context.sites.filter(
      (site) =>
        held(site) &&
        (site.schema.enum?.length ?? 0) >= 2 &&
        site.held.some((value) => value !== site.schema.default && site.schema.enum!.includes(value as JSONValue)),
    );
    const site = choose(context, withEnum);
    if (site) {
      const dropped = site.held.find(
        (value) => value !== site.schema.default && site.schema.enum!.includes(value as JSONValue),
      )!;
      return {
        change: `${pathOf(site.steps)}: ${show(dropped)} taken out of the enum`,
        new: edited(context.crd, site.steps, (node) => (node.enum = node.enum!.filter((value) => value !== dropped))),
      };
    }
    const strings = context.sites.filter(
      (site) => site.schema.type === 'string' && !site.schema.enum && distinct(site.held).length >= 2,
    );
    const open = choose(context, strings);
    if (!open) return 'no enum or string field holding two values';
    const allowed: Json[] = distinct(open.held)
      .slice(1)
      .filter((value) => typeof value === 'string');
    if (open.schema.default !== undefined && !allowed.includes(open.schema.default as Json))
      allowed.push(open.schema.default as Json);
    return {
      change: `${pathOf(open.steps)}: enum ${show(allowed)} put on it`,
      new: edited(context.crd, open.steps, (node) => (node.enum = allowed as JSONValue[])),
    };
  },
  maximumLowered: (context) => {
    const site = choose(
      context,
      context.sites.filter(
        (site) => (site.schema.type === 'integer' || site.schema.type === 'number') && numbers(site).length > 0,
      ),
    );
    if (!site) return 'no number that objects hold';
    const values = numbers(site);
    const maximum = values[0] !== values.at(-1) ? values[0]! : values[0]! - 1;
    if (site.schema.minimum !== undefined && maximum < site.schema.minimum)
      return `${pathOf(site.steps)}: a lower maximum would be under its minimum`;
    if (!validDefault(site, (value) => (value as number) <= maximum))
      return `${pathOf(site.steps)}: its default is above any lower maximum`;
    return {
      change: `${pathOf(site.steps)}: maximum ${site.schema.maximum ?? 'none'} → ${maximum}`,
      new: edited(context.crd, site.steps, (node) => ((node.maximum = maximum), delete node.exclusiveMaximum)),
    };
  },
  minimumRaised: (context) => {
    const site = choose(
      context,
      context.sites.filter(
        (site) => (site.schema.type === 'integer' || site.schema.type === 'number') && numbers(site).length > 0,
      ),
    );
    if (!site) return 'no number that objects hold';
    const values = numbers(site);
    const minimum = values[0] !== values.at(-1) ? values.at(-1)! : values[0]! + 1;
    if (site.schema.maximum !== undefined && minimum > site.schema.maximum)
      return `${pathOf(site.steps)}: a higher minimum would be over its maximum`;
    if (!validDefault(site, (value) => (value as number) >= minimum))
      return `${pathOf(site.steps)}: its default is under any higher minimum`;
    return {
      change: `${pathOf(site.steps)}: minimum ${site.schema.minimum ?? 'none'} → ${minimum}`,
      new: edited(context.crd, site.steps, (node) => ((node.minimum = minimum), delete node.exclusiveMinimum)),
    };
  },
  maxLengthLowered: (context) => {
    const site = choose(
      context,
      context.sites.filter(
        (site) =>
          site.schema.type === 'string' &&
          !site.schema['x-kubernetes-int-or-string'] &&
          site.held.some((value) => typeof value === 'string' && value.length > (site.schema.minLength ?? 0)),
      ),
    );
    if (!site) return 'no string longer than its minLength that objects hold';
    const lengths = site.held
      .filter((value): value is string => typeof value === 'string')
      .map((value) => value.length)
      .sort((a, b) => a - b);
    const maxLength = Math.max(
      lengths[0] !== lengths.at(-1) ? lengths[0]! : lengths[0]! - 1,
      site.schema.minLength ?? 0,
    );
    if (!validDefault(site, (value) => String(value).length <= maxLength))
      return `${pathOf(site.steps)}: its default is longer than any lower maxLength`;
    return {
      change: `${pathOf(site.steps)}: maxLength ${site.schema.maxLength ?? 'none'} → ${maxLength}`,
      new: edited(context.crd, site.steps, (node) => (node.maxLength = maxLength)),
    };
  },
  maxItemsLowered: (context) => {
    const site = choose(
      context,
      context.sites.filter(
        (site) =>
          site.schema.type === 'array' &&
          site.held.some((value) => Array.isArray(value) && value.length > (site.schema.minItems ?? 0)),
      ),
    );
    if (!site) return 'no list longer than its minItems that objects hold';
    const lengths = site.held
      .filter(Array.isArray)
      .map((value) => value.length)
      .sort((a, b) => a - b);
    const maxItems = Math.max(lengths[0] !== lengths.at(-1) ? lengths[0]! : lengths[0]! - 1, site.schema.minItems ?? 0);
    if (!validDefault(site, (value) => Array.isArray(value) && value.length <= maxItems))
      return `${pathOf(site.steps)}: its default is longer than any lower maxItems`;
    return {
      change: `${pathOf(site.steps)}: maxItems ${site.schema.maxItems ?? 'none'} → ${maxItems}`,
      new: edited(context.crd, site.steps, (node) => (node.maxItems = maxItems)),
    };
  },
  patternAdded: (context) => {
    const site = choose(
      context,
      context.sites.filter(
        (site) =>
          site.schema.type === 'string' &&
          !site.schema.pattern &&
          !site.schema.enum &&
          !site.schema.format &&
          site.held.some((value) => typeof value === 'string'),
      ),
    );
    if (!site) return 'no string without a pattern, enum or format that objects hold';
    const value = context.random.pick(
      site.held.filter((candidate): candidate is string => typeof candidate === 'string'),
    );
    const pattern = `^${value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
    if (!validDefault(site, (candidate) => candidate === value))
      return `${pathOf(site.steps)}: its default would not match`;
    return {
      change: `${pathOf(site.steps)}: pattern ${pattern} added`,
      new: edited(context.crd, site.steps, (node) => (node.pattern = pattern)),
    };
  },
  requiredAdded: (context) => {
    const lacking = context.sites.filter(
      (site) => isOptional(site) && [...site.parentHolders].some((index) => !site.holders.has(index)),
    );
    const site = choose(
      context,
      lacking.length > 0 ? lacking : context.sites.filter((site) => isOptional(site) && site.parentHolders.size > 0),
    );
    if (!site) return 'no optional field whose parent objects hold';
    return {
      change: `${pathOf(site.steps)} made required`,
      new: edited(
        context.crd,
        site.steps,
        (_node, parent) => (parent!.required = [...(parent!.required ?? []), nameOf(site)]),
      ),
    };
  },
  typeChanged: (context) => {
    const site = choose(
      context,
      context.sites.filter((site) => isScalar(site) && held(site) && changeable(context)(site)),
    );
    if (!site) return 'no scalar field that objects hold and no rule names';
    const type = site.schema.type === 'string' ? 'integer' : 'string';
    return {
      change: `${pathOf(site.steps)}: type ${site.schema.type} → ${type}`,
      new: edited(context.crd, site.steps, (node) => {
        for (const key of Object.keys(node)) if (key !== 'description') delete (node as Record<string, unknown>)[key];
        node.type = type;
      }),
    };
  },
  defaultAdded: (context) => {
    const candidates = context.sites.filter(
      (site) => isOptional(site) && isScalar(site) && site.schema.default === undefined && held(site),
    );
    const lacking = candidates.filter((site) => [...site.parentHolders].some((index) => !site.holders.has(index)));
    const site = choose(context, lacking.length > 0 ? lacking : candidates);
    if (!site) return 'no optional scalar field without a default that objects hold';
    const value = site.held[0] as JSONValue;
    return {
      change: `${pathOf(site.steps)}: default ${show(value)} added`,
      new: edited(context.crd, site.steps, (node) => (node.default = value)),
    };
  },
  defaultChanged: (context) => {
    const defaulted = context.sites.filter(
      (site) =>
        isScalar(site) &&
        site.schema.default !== undefined &&
        distinct(site.held).some((value) => value !== site.schema.default),
    );
    const site = choose(context, defaulted);
    if (site) {
      const value = distinct(site.held).find((candidate) => candidate !== site.schema.default) as JSONValue;
      return {
        change: `${pathOf(site.steps)}: default ${show(site.schema.default)} → ${show(value)}`,
        new: edited(context.crd, site.steps, (node) => (node.default = value)),
      };
    }
    const open = choose(
      context,
      context.sites.filter(
        (site) =>
          isOptional(site) && isScalar(site) && site.schema.default === undefined && distinct(site.held).length >= 2,
      ),
    );
    if (!open) return 'no scalar field with a default, or holding two values to default to';
    const [before, after] = distinct(open.held) as JSONValue[];
    return {
      change: `${pathOf(open.steps)}: default ${show(before)} (set for this case) → ${show(after)}`,
      old: edited(context.crd, open.steps, (node) => (node.default = before!)),
      new: edited(context.crd, open.steps, (node) => (node.default = after!)),
    };
  },
  celRuleAdded: (context) => celRule(context, false),
  celTransitionRuleAdded: (context) => celRule(context, true),
  nullableRemoved: (context) => {
    const nullable = context.sites.filter(
      (site) => site.schema.nullable && isProperty(site) && !inList(site) && site.parentHolders.size > 0,
    );
    const site =
      choose(context, nullable) ??
      choose(
        context,
        context.sites.filter(
          (site) =>
            isOptional(site) &&
            isScalar(site) &&
            !inList(site) &&
            held(site) &&
            site.schema.default === undefined &&
            changeable(context)(site),
        ),
      );
    if (!site) return 'no field outside lists that could hold null';
    const old = site.schema.nullable
      ? structuredClone(context.crd)
      : edited(context.crd, site.steps, (node) => (node.nullable = true));
    return {
      change: `${pathOf(site.steps)}: nullable removed${site.schema.nullable ? '' : ' (set for this case)'}`,
      old,
      new: edited(context.crd, site.steps, (node) => delete node.nullable),
      objects: [...structuredClone([...context.objects]), ...variants(context, site, 'null', () => null)],
    };
  },
  preserveUnknownFieldsDropped: (context) => {
    const objectSite = (site: SchemaSite) =>
      site.schema.type === 'object' &&
      !inList(site) &&
      isProperty(site) &&
      !site.schema['x-kubernetes-embedded-resource'] &&
      site.parentHolders.size > 0;
    const preserving = context.sites.filter(
      (site) => objectSite(site) && site.schema['x-kubernetes-preserve-unknown-fields'],
    );
    const site =
      choose(context, preserving) ??
      choose(
        context,
        context.sites.filter(
          (site) =>
            objectSite(site) && held(site) && site.schema.properties !== undefined && !site.schema.maxProperties,
        ),
      );
    if (!site) return 'no object field outside lists';
    const old = site.schema['x-kubernetes-preserve-unknown-fields']
      ? structuredClone(context.crd)
      : edited(context.crd, site.steps, (node) => (node['x-kubernetes-preserve-unknown-fields'] = true));
    return {
      change: `${pathOf(site.steps)}: x-kubernetes-preserve-unknown-fields dropped${site.schema['x-kubernetes-preserve-unknown-fields'] ? '' : ' (set for this case)'}`,
      old,
      new: edited(context.crd, site.steps, (node) => delete node['x-kubernetes-preserve-unknown-fields']),
      objects: [
        ...structuredClone([...context.objects]),
        ...variants(context, site, 'unknown', (current) =>
          current !== null && typeof current === 'object' && !Array.isArray(current)
            ? { ...current, unknownToTheSchema: 'kept until now' }
            : undefined,
        ),
      ],
    };
  },
  listTypeChanged: (context) => {
    const scalarLists = context.sites.filter(
      (site) =>
        site.schema.type === 'array' &&
        !inList(site) &&
        isProperty(site) &&
        scalarTypes.has(site.schema.items?.type ?? '') &&
        (site.schema['x-kubernetes-list-type'] ?? 'atomic') === 'atomic' &&
        site.held.some(
          (value) => Array.isArray(value) && value.length > 0 && value.length < (site.schema.maxItems ?? Infinity),
        ),
    );
    const site = choose(context, scalarLists);
    if (site) {
      return {
        change: `${pathOf(site.steps)}: x-kubernetes-list-type atomic → set`,
        new: edited(context.crd, site.steps, (node) => (node['x-kubernetes-list-type'] = 'set')),
        objects: [
          ...structuredClone([...context.objects]),
          ...variants(context, site, 'duplicate', (current) =>
            Array.isArray(current) && current.length > 0 ? [...current, current[0]!] : undefined,
          ),
        ],
      };
    }
    const maps = context.sites.filter((site) => site.schema['x-kubernetes-list-type'] === 'map' && held(site));
    const map = choose(context, maps);
    if (!map) return 'no list of scalars outside lists, and no list map, that objects hold';
    return {
      change: `${pathOf(map.steps)}: x-kubernetes-list-type map → atomic`,
      new: edited(
        context.crd,
        map.steps,
        (node) => ((node['x-kubernetes-list-type'] = 'atomic'), delete node['x-kubernetes-list-map-keys']),
      ),
    };
  },
  versionUnserved: (context) => {
    const { old, other } = twoVersions(context.crd);
    const revised = structuredClone(old);
    revised.spec.versions.find((version) => version.name === other)!.served = false;
    return {
      change: `version ${other}${old.spec.versions.length > context.crd.spec.versions.length ? ' (added for this case)' : ''} no longer served`,
      old,
      new: revised,
    };
  },
  versionRemoved: (context) => {
    const { old, other } = twoVersions(context.crd);
    const revised = structuredClone(old);
    revised.spec.versions = revised.spec.versions.filter((version) => version.name !== other);
    return {
      change: `version ${other}${old.spec.versions.length > context.crd.spec.versions.length ? ' (added for this case)' : ''} removed`,
      old,
      new: revised,
    };
  },
  storageVersionMoved: (context) => {
    const { old, other } = twoVersions(context.crd);
    const revised = structuredClone(old);
    for (const version of revised.spec.versions) version.storage = version.name === other;
    return {
      change: `storage version ${storageVersionOf(old).name} → ${other}${old.spec.versions.length > context.crd.spec.versions.length ? ' (added for this case)' : ''}`,
      old,
      new: revised,
    };
  },
  statusEnumNarrowed: (context) => statusRevision(context, 'enum', 'atomic'),
  statusEnumNarrowedInListMap: (context) => statusRevision(context, 'enum', 'map'),
  statusRequiredAdded: (context) => statusRevision(context, 'required', 'atomic'),
  optionalFieldAdded: (context) => {
    const spec = context.sites.find(
      (site) => site.steps.join('.') === 'spec' && site.schema.type === 'object' && site.schema.properties,
    );
    const steps = spec ? spec.steps : [];
    return {
      change: `${spec ? 'spec.' : ''}addedByRevision (an optional string) added`,
      new: edited(
        context.crd,
        steps,
        (node) => (node.properties = { ...(node.properties ?? {}), addedByRevision: { type: 'string' } }),
      ),
    };
  },
  boundLoosened: (context) => {
    const bounded = context.sites.filter(
      (site) =>
        site.schema.maximum !== undefined ||
        site.schema.maxLength !== undefined ||
        site.schema.maxItems !== undefined ||
        (site.schema.minimum ?? 0) > 0 ||
        (site.schema.minLength ?? 0) > 0,
    );
    const site = choose(context, bounded.filter(held)) ?? choose(context, bounded);
    if (!site) return 'no bound to loosen';
    const { maximum, maxLength, maxItems, minimum, minLength } = site.schema;
    const [keyword, before, after] =
      maximum !== undefined
        ? ['maximum', maximum, maximum + 10]
        : maxLength !== undefined
          ? ['maxLength', maxLength, maxLength + 10]
          : maxItems !== undefined
            ? ['maxItems', maxItems, maxItems + 10]
            : minimum !== undefined && minimum > 0
              ? ['minimum', minimum, minimum - 1]
              : ['minLength', minLength!, minLength! - 1];
    return {
      change: `${pathOf(site.steps)}: ${keyword} ${before} → ${after}`,
      new: edited(context.crd, site.steps, (node) => ((node as Record<string, unknown>)[keyword] = after)),
    };
  },
};

/**
 * What an operator writes into the status, added to every version's schema (with a status subresource) for a
 * revision of the status: conditions whose type is an enum, in an atomic list or a list map keyed by type, and a
 * reason. Every object gets a status there (its old status schema's minimal value, and a Pending condition), which
 * the observer writes through the status subresource. The revision takes Pending out of the enum, or makes the
 * reason required: the stored statuses no longer satisfy it, and only writes that change them meet it.
 */
function statusRevision(context: Context, change: 'enum' | 'required', listType: 'atomic' | 'map'): Made | string {
  const schema = storageVersionOf(context.crd).schema?.openAPIV3Schema;
  if (!schema) return 'no schema';
  if (schema['x-kubernetes-preserve-unknown-fields'] && !schema.properties) return 'a schema that declares nothing';
  const conditions = (types: string[]): JSONSchemaProps => ({
    type: 'array',
    ...(listType === 'map' ? { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] } : {}),
    items: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: types }, message: { type: 'string' } },
    },
  });
  const withStatus = (types: string[], required: string[]): Crd => {
    const copy = structuredClone(context.crd);
    for (const version of copy.spec.versions) {
      const root = version.schema?.openAPIV3Schema;
      if (!root) continue;
      const status: JSONSchemaProps = root.properties?.['status'] ?? { type: 'object' };
      root.properties = {
        ...(root.properties ?? {}),
        status: {
          ...status,
          type: 'object',
          ...(required.length > 0 ? { required: [...(status.required ?? []), ...required] } : {}),
          properties: {
            ...(status.properties ?? {}),
            revisionConditions: conditions(types),
            revisionReason: { type: 'string' },
          },
        },
      };
      version['subresources'] = { ...((version['subresources'] as object | undefined) ?? {}), status: {} };
    }
    return copy;
  };
  const old = withStatus(['Pending', 'Ready'], []);
  const oldStatus = storageVersionOf(old).schema!.openAPIV3Schema.properties!['status']!;
  const base = minimalValue({ ...oldStatus, properties: { ...oldStatus.properties } }) ?? {};
  if (base === null || typeof base !== 'object' || Array.isArray(base))
    return 'a status whose minimal value is no object';
  const objects = context.objects.map((object) => ({
    ...structuredClone(object),
    status: { ...base, revisionConditions: [{ type: 'Pending', message: 'waiting for a node' }] },
  })) as KubeObject[];
  return change === 'enum'
    ? {
        change: `status.revisionConditions[].type: "Pending" taken out of the enum (${listType} list)`,
        old,
        new: withStatus(['Ready', 'Failed'], []),
        objects,
      }
    : {
        change: 'status.revisionReason made required (objects hold a status without it)',
        old,
        new: withStatus(['Pending', 'Ready'], ['revisionReason']),
        objects,
      };
}

function celRule(context: Context, transition: boolean): Made | string {
  const scalars = context.sites.filter(
    (site) =>
      isScalar(site) && held(site) && site.held.some((value) => value !== null && value !== site.schema.default),
  );
  // A string compare costs its length: outside lists, or bounded, it stays under the CRD's CEL cost budget.
  const cheap = scalars.filter(
    (site) => !inList(site) || site.schema.type !== 'string' || site.schema.maxLength !== undefined,
  );
  const site = choose(context, cheap);
  if (!site) return 'no scalar field that objects hold';
  const value = context.random.pick(
    site.held.filter((candidate) => candidate !== null && candidate !== site.schema.default),
  );
  // A number field is a double in CEL, and a double is never equal to an int literal there: 5.0, not 5.
  const literal =
    site.schema.type === 'number' && Number.isInteger(value) ? `${String(value)}.0` : JSON.stringify(value);
  const predicate = `self != ${literal}`;
  const rule = transition ? `self == oldSelf && ${predicate}` : predicate;
  const message = transition ? 'transition rule added by the revision' : 'rule added by the revision';
  return {
    change: `${pathOf(site.steps)}: ${transition ? 'transition ' : ''}rule \`${rule}\` added`,
    new: edited(
      context.crd,
      site.steps,
      (node) => (node['x-kubernetes-validations'] = [...(node['x-kubernetes-validations'] ?? []), { rule, message }]),
    ),
  };
}
