import type { JSONSchemaProps } from '../../../../src/contract/schema/json-schema-props.ts';
import type { Json } from '../differential/schema-cases.ts';

/** `[]` is "every item of the list"; any other step a property name. */
export type SiteStep = string;
export const eachItem = '[]';

/** A place the schema describes, and what the stored objects hold there. */
export interface SchemaSite {
  steps: SiteStep[];
  schema: JSONSchemaProps;
  /** The object schema that declares it as a property (absent for list items). */
  parent?: JSONSchemaProps;
  /** The values objects hold here (every item of a list counts), and which objects (by index) hold one. */
  held: Json[];
  holders: Set<number>;
  /** Objects in which the parent object is there, so a default or a required field applies to them. */
  parentHolders: Set<number>;
  /** Some list is above it: a CEL rule here runs once per item, and costs the budget accordingly. */
  underList: boolean;
}

const maxDepth = 10;

/**
 * Every place in the schema below the root's spec-like fields (not metadata, apiVersion, kind or status, which the
 * revisions leave alone; not inside embedded resources or int-or-string values), with what `objects` hold there.
 * Sorted by path, so that a seeded choice among them is the same on every run.
 */
export function schemaSites(schema: JSONSchemaProps, objects: readonly unknown[]): SchemaSite[] {
  const sites = new Map<string, SchemaSite>();
  const visit = (
    node: JSONSchemaProps,
    steps: SiteStep[],
    parent: JSONSchemaProps | undefined,
    underList: boolean,
  ): void => {
    if (steps.length > maxDepth) return;
    if (steps.length > 0)
      sites.set(steps.join('.'), {
        steps,
        schema: node,
        ...(parent ? { parent } : {}),
        held: [],
        holders: new Set(),
        parentHolders: new Set(),
        underList,
      });
    if (node['x-kubernetes-embedded-resource'] || node['x-kubernetes-int-or-string']) return;
    for (const [name, child] of Object.entries(node.properties ?? {})) {
      if (steps.length === 0 && ['metadata', 'apiVersion', 'kind', 'status'].includes(name)) continue;
      visit(child, [...steps, name], node, underList);
    }
    if (node.type === 'array' && node.items) visit(node.items, [...steps, eachItem], undefined, true);
  };
  visit(schema, [], undefined, false);
  objects.forEach((object, index) => {
    const walk = (value: Json, steps: SiteStep[]): void => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const [name, child] of Object.entries(value)) {
          const childSteps = [...steps, name];
          const site = sites.get(childSteps.join('.'));
          if (!site) continue;
          site.parentHolders.add(index);
          site.holders.add(index);
          site.held.push(child);
          walk(child, childSteps);
        }
        // Sites whose parent is here but which the object lacks.
        for (const site of sites.values())
          if (site.steps.length === steps.length + 1 && site.steps.slice(0, -1).join('.') === steps.join('.'))
            site.parentHolders.add(index);
      } else if (Array.isArray(value)) {
        const itemSteps = [...steps, eachItem];
        const site = sites.get(itemSteps.join('.'));
        if (!site) return;
        for (const item of value) {
          site.holders.add(index);
          site.parentHolders.add(index);
          site.held.push(item);
          walk(item, itemSteps);
        }
      }
    };
    walk(object as Json, []);
  });
  return [...sites.values()].sort((a, b) => a.steps.join('.').localeCompare(b.steps.join('.')));
}

/** The schema node at `steps` in another version's schema, when it has one. */
export function nodeAt(schema: JSONSchemaProps, steps: readonly SiteStep[]): JSONSchemaProps | undefined {
  let node: JSONSchemaProps | undefined = schema;
  for (const step of steps) node = step === eachItem ? node?.items : node?.properties?.[step];
  return node;
}

/** `spec.ports[].name`, for a revision's description. */
export function pathOf(steps: readonly SiteStep[]): string {
  return steps.join('.').replaceAll(`.${eachItem}`, '[]');
}

/** Every CEL rule and message expression in a schema, as text: a field they name is left alone by revisions that would break them. */
export function ruleTexts(schema: JSONSchemaProps): string[] {
  const texts: string[] = [];
  const visit = (node: JSONSchemaProps): void => {
    for (const rule of node['x-kubernetes-validations'] ?? [])
      texts.push(rule.rule, rule.messageExpression ?? '', rule.fieldPath ?? '');
    for (const child of Object.values(node.properties ?? {})) visit(child);
    if (node.items) visit(node.items);
    if (typeof node.additionalProperties === 'object') visit(node.additionalProperties);
  };
  visit(schema);
  return texts;
}
