import type { CoverageNode, SpecCoverage } from '../contract/fsa/spec-coverage.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { cond, ident, isPlainFieldName, method, ne, optionalMember, str, type Cel } from './cel.ts';

// The spec changes no classifier names, as CEL: the old and the new spec compared field by field along the hub
// schema's properties, the covered paths skipped, as findUnclassifiedChanges compares them. A field no classifier
// looks into is compared whole (CEL equality of JSON values is JSON equality, and the API server has dropped the
// nulls of fields that are not nullable, so absent and null are alike there too); one some classifier looks into is
// empty when absent, and its fields are compared one by one. What CEL cannot compare as the webhook does, or at a
// cost the API server can bound, is left to the webhook and named: the policy then refuses less, never more.

/** A field whose changes only the webhook finds, and why. */
export interface WebhookOnlyField {
  field: string;
  reason: string;
}

export interface CompiledUnclassified {
  /** CEL string: the first compiled field that differs (`spec.paused`), or "" when none does; absent when none compiles. */
  changedField?: Cel;
  webhookOnly: WebhookOnlyField[];
}

/** Why nothing compiles when some classifier has no target: only the update tells which fields it covers. */
export const untargetedNotCompiled =
  'a classifier without a target (written as a function of its own) covers the fields of the changes it reports, which only the webhook sees';

interface Part {
  field: string;
  changed: Cel;
}

interface Site {
  /** CEL optionals of the old and the new value. */
  old: Cel;
  new: Cel;
  path: readonly string[];
}

export function compileUnclassified(
  specSchema: JSONSchemaProps | undefined,
  coverage: SpecCoverage,
): CompiledUnclassified {
  if (coverage.untargeted) return { webhookOnly: [{ field: 'spec', reason: untargetedNotCompiled }] };
  if (specSchema === undefined)
    return { webhookOnly: [{ field: 'spec', reason: 'the hub schema does not describe spec' }] };
  const parts: Part[] = [];
  const webhookOnly: WebhookOnlyField[] = [];
  const compiler = { parts, webhookOnly };
  // The spec itself has no presence to compare: an absent spec has no fields, as for the webhook.
  const site = {
    old: optionalMember(ident('oldObject'), 'spec'),
    new: optionalMember(ident('object'), 'spec'),
    path: [],
  };
  if (!coverage.root.covered) comparePartly(compiler, specSchema, coverage.root, site);
  if (parts.length === 0) return { webhookOnly };
  const changedField = parts.reduceRight<Cel>((rest, part) => cond(part.changed, str(part.field), rest), str(''));
  return { changedField, webhookOnly };
}

interface Compiler {
  parts: Part[];
  webhookOnly: WebhookOnlyField[];
}

const fieldOf = (path: readonly string[]) => ['spec', ...path].join('.');

function compare(compiler: Compiler, schema: JSONSchemaProps, coverage: CoverageNode | undefined, site: Site): void {
  if (coverage?.covered) return;
  if (coverage?.keyedList) {
    if (!fullyCovered(schema, coverage)) {
      compiler.webhookOnly.push({
        field: fieldOf(site.path),
        reason:
          'the items of this keyed list are covered in part: the policy does not pair the old and new items by their keys',
      });
    }
    return;
  }
  if (coverage !== undefined && coverage.children.size > 0) return comparePartly(compiler, schema, coverage, site);
  compareWhole(compiler, schema, site);
}

/** A value some classifier looks into: empty when absent, each field compared on its own. */
function comparePartly(compiler: Compiler, schema: JSONSchemaProps, coverage: CoverageNode, site: Site): void {
  const problem = schema.nullable ? nullableProblem : objectProblem(schema);
  if (problem !== undefined) {
    compiler.webhookOnly.push({ field: fieldOf(site.path), reason: problem });
    return;
  }
  forEachProperty(compiler, schema, site, (child, childSite, name) =>
    compare(compiler, child, coverage.children.get(name), childSite),
  );
}

/** A value no classifier looks into: compared whole where CEL can, else its presence and then each field. */
function compareWhole(compiler: Compiler, schema: JSONSchemaProps, site: Site): void {
  const field = fieldOf(site.path);
  const problem = wholeProblem(schema);
  if (problem === undefined) {
    compiler.parts.push({ field, changed: ne(site.old, site.new) });
    return;
  }
  if (schema.nullable || objectProblem(schema) !== undefined) {
    compiler.webhookOnly.push({ field, reason: problem });
    return;
  }
  // As the webhook: a value that appears or goes is a change; present on both sides, each field is compared.
  compiler.parts.push({ field, changed: ne(method(site.old, 'hasValue'), method(site.new, 'hasValue')) });
  forEachProperty(compiler, schema, site, (child, childSite) => compareWhole(compiler, child, childSite));
}

function forEachProperty(
  compiler: Compiler,
  schema: JSONSchemaProps,
  site: Site,
  each: (child: JSONSchemaProps, site: Site, name: string) => void,
): void {
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const path = [...site.path, name];
    if (!isPlainFieldName(name))
      compiler.webhookOnly.push({ field: fieldOf(path), reason: 'its name cannot be written plainly in CEL' });
    else each(child, { old: optionalMember(site.old, name), new: optionalMember(site.new, name), path }, name);
  }
}

const nullableProblem = 'it is nullable: the webhook reads null as absent, and CEL does not';

/** Why a schema is not an object of declared fields, which the policy walks field by field. */
function objectProblem(schema: JSONSchemaProps): string | undefined {
  if (schema['x-kubernetes-preserve-unknown-fields'])
    return 'it keeps fields the schema does not declare (x-kubernetes-preserve-unknown-fields)';
  if (schema.type !== 'object' || schema.additionalProperties !== undefined)
    return 'a classifier looks into it by a path the policy cannot follow (only declared object fields)';
  return undefined;
}

/** Why CEL equality of the whole value is not the webhook's comparison, or has no cost the API server can bound. */
export function wholeProblem(schema: JSONSchemaProps): string | undefined {
  if (schema.nullable) return nullableProblem;
  if (schema['x-kubernetes-preserve-unknown-fields'])
    return 'it keeps fields the schema does not declare (x-kubernetes-preserve-unknown-fields), which may hold null';
  if (schema['x-kubernetes-int-or-string'] || schema.type === 'string') {
    return schema.maxLength === undefined && schema.enum === undefined
      ? "it needs a maxLength (or an enum) in the hub schema, so the API server can bound the policy's cost"
      : undefined;
  }
  switch (schema.type) {
    case 'integer':
    case 'number':
    case 'boolean':
      return undefined;
    case 'array':
      if (schema.maxItems === undefined)
        return "it needs a maxItems in the hub schema, so the API server can bound the policy's cost";
      return schema.items === undefined ? undefined : wholeProblem(schema.items);
    case 'object': {
      if (schema.additionalProperties === true)
        return 'it keeps fields the schema does not declare (additionalProperties: true)';
      if (typeof schema.additionalProperties === 'object') {
        if (schema.maxProperties === undefined)
          return "it needs a maxProperties in the hub schema, so the API server can bound the policy's cost";
        return wholeProblem(schema.additionalProperties);
      }
      for (const child of Object.values(schema.properties ?? {})) {
        const problem = wholeProblem(child);
        if (problem !== undefined) return problem;
      }
      return undefined;
    }
    default:
      return 'its schema has no type the policy compares';
  }
}

/** Whether every field a schema declares is covered: a keyed list then holds nothing the policy must compare. */
function fullyCovered(schema: JSONSchemaProps | undefined, coverage: CoverageNode | undefined): boolean {
  if (coverage?.covered) return true;
  if (schema === undefined || coverage === undefined) return false;
  if (coverage.keyedList) return schema.type === 'array' && fullyCovered(schema.items, coverage.keyedList.item);
  if (objectProblem(schema) !== undefined || schema.nullable) return false;
  return Object.entries(schema.properties ?? {}).every(([name, child]) =>
    fullyCovered(child, coverage.children.get(name)),
  );
}
