import { compileClientFieldPaths } from '../contract/client-field-paths.ts';
import type { Contract } from '../contract/contract-definition.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import {
  concat,
  eq,
  ident,
  isPlainFieldName,
  member,
  method,
  ne,
  not,
  optionalMember,
  or,
  str,
  type Cel,
} from './cel.ts';
import { wholeProblem } from './compile-unclassified.ts';
import { policyValidation, type PolicyValidation } from './policy-parts.ts';
import type { RuleCoverage } from './compile-policy.ts';

// A write in an older version that would change a field that version has no place for, which the stored object
// holds (the webhook's hidden-field-changes.ts, for the fields it can name without converting): the request's
// requestKind names the version the client wrote, and the policy, registered for the hub with matchPolicy
// Equivalent, gets both objects in the hub. What the webhook finds through the conversion itself (a value an
// older version's field cannot hold, a field inside a list) stays the webhook's: the policy refuses less, never more.

export interface CompiledHiddenFields {
  validations: PolicyValidation[];
  coverage: RuleCoverage[];
}

/** Why values an older version's fields cannot hold are the webhook's to find. */
export const hiddenValuesByWebhook =
  "a value an older version's field cannot hold (a spelling, a fraction) is found by converting, which a policy cannot";

export function compileHiddenFields(contract: Contract): CompiledHiddenFields {
  const compiled: CompiledHiddenFields = { validations: [], coverage: [] };
  if (contract.hiddenFieldChanges === 'warn') return compiled;
  const schemaOf = (name: string) => contract.versions.find((version) => version.name === name)!.schema;
  const hubSchema = schemaOf(contract.hub);
  const spokes = contract.versions.filter(
    (version) => version.served && version.name !== contract.hub && contract.conversions[version.name] !== undefined,
  );
  const pathsOf = new Map(
    spokes.map((version) => [
      version.name,
      compileClientFieldPaths({
        hubVersion: contract.hub,
        spokeVersion: version.name,
        hubSchema,
        spokeSchema: version.schema,
        ...(contract.conversions[version.name]!.hubToSpokePaths
          ? { declared: contract.conversions[version.name]!.hubToSpokePaths! }
          : {}),
      }),
    ]),
  );
  for (const spoke of spokes) {
    const paths = pathsOf.get(spoke.name)!;
    const fields: Array<{ path: string[]; schema: JSONSchemaProps }> = [];
    const unreachable: string[] = [];
    walk(
      hubSchema,
      [],
      (path, schema) => {
        if (paths.shows(path.join('.'))) return 'descend';
        fields.push({ path, schema });
        return 'stop';
      },
      (path) => {
        if (!paths.shows(path.join('.').replaceAll('.[*]', '[0]')))
          unreachable.push(path.join('.').replaceAll('.[*]', '[*]'));
      },
    );
    for (const { path, schema } of fields) {
      const field = path.join('.');
      const rule = `${field} written in ${spoke.name}`;
      const problem =
        wholeProblem(schema) ??
        (schema.format === 'quantity' ? 'two spellings of one quantity are one value to the webhook' : undefined);
      if (problem !== undefined) {
        compiled.coverage.push({ rule, enforcedBy: 'webhook', reason: problem });
        continue;
      }
      const shownIn = [
        ...spokes
          .filter((other) => other !== spoke && pathsOf.get(other.name)!.shows(field))
          .map((other) => other.name),
        contract.hub,
      ];
      compiled.validations.push(hiddenFieldValidation(contract, spoke.name, path, paths.field(field), shownIn));
      compiled.coverage.push({ rule, enforcedBy: 'policy' });
    }
    for (const field of unreachable)
      compiled.coverage.push({
        rule: `${field} written in ${spoke.name}`,
        enforcedBy: 'webhook',
        reason: 'a field inside a list or a map: the policy does not pair the items of the old and new object',
      });
  }
  return compiled;
}

/**
 * The hub schema's fields under its top-level fields other than metadata and status, through declared object
 * fields: `visit` says whether to go below one. The fields of a list's items (`[*]`) go to `inList`, which the
 * policy cannot compare item by item.
 */
function walk(
  schema: JSONSchemaProps,
  path: string[],
  visit: (path: string[], schema: JSONSchemaProps) => 'descend' | 'stop',
  inList: (path: string[]) => void,
): void {
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    if (path.length === 0 && ['apiVersion', 'kind', 'metadata', 'status'].includes(name)) continue;
    const at = [...path, name];
    if (!isPlainFieldName(name) || visit(at, child) === 'stop') continue;
    if (child.type === 'object' && child.properties !== undefined) walk(child, at, visit, inList);
    for (const itemField of Object.keys(child.type === 'array' ? (child.items?.properties ?? {}) : {}))
      inList([...at, '[*]', itemField]);
  }
}

function hiddenFieldValidation(
  contract: Contract,
  version: string,
  path: readonly string[],
  clientField: string,
  shownIn: readonly string[],
): PolicyValidation {
  const at = (root: string) => path.reduce<Cel>((base, name) => optionalMember(base, name), ident(root));
  const [old, now] = [at('oldObject'), at('object')];
  const clientVersion = member(member(ident('request'), 'requestKind'), 'version');
  const { kind, plural, group, scope } = contract.identity;
  const metadata = member(ident('oldObject'), 'metadata');
  const namespaceFlag = scope === 'Namespaced' ? [str(' -n '), member(metadata, 'namespace')] : [];
  const keep =
    contract.conversionAnnotation === undefined
      ? ''
      : `, or send the annotation ${contract.conversionAnnotation} back as ${version} reads it`;
  return policyValidation(
    or(ne(clientVersion, str(version)), not(method(old, 'hasValue')), eq(old, now)),
    concat(
      str(
        `${kind} ${clientField}: the stored object holds a value here, which ${version} cannot show, and this write ` +
          `would change it unseen: write it in ${shownIn.join(' or ')} (kubectl edit ${plural}.${shownIn.at(-1)}.${group} `,
      ),
      member(metadata, 'name'),
      ...namespaceFlag,
      str(`)${keep}`),
    ),
    `${kind} ${clientField}: a write in ${version} would change a field ${version} cannot show`,
  );
}
