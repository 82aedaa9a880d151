import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Yaml from 'yaml';
import {
  type ContractIdentity,
  type PrinterColumn,
  type SelectableField,
  type Subresources,
  type VersionDefinition,
} from './contract-definition.ts';
import { readBlockYaml } from './block-yaml.ts';
import { ContractDefinitionError } from './define-contract.ts';
import { isPlainObject } from './values/kube-object.ts';
import { compareVersionAge } from './values/version-age.ts';
import {
  printerColumnsAsRead,
  schemaAsRead,
  selectableFieldsAsRead,
  subresourcesAsRead,
} from './read-as-api-server.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';

/**
 * What a CRD already says of a contract: its identity, versions (schemas, subresources, printer columns, selectable
 * fields, deprecation), the CRD's annotations, and as the hub its storage version. Spread it into
 * `defineContract` and add what crdgate adds: defaults, invariants, transitions and, with several versions, a
 * conversion per version other than the hub (`conversions` is empty here, which is all a single version needs).
 */
export interface CrdContractParts {
  identity: ContractIdentity;
  versions: VersionDefinition[];
  /**
   * The CRD's storage version (for a CRD someone else owns whose storage version is not served, the served version
   * the API server prefers); override it to write the rules against another version.
   */
  hub: string;
  conversions: Record<string, never>;
  crdAnnotations?: Record<string, string>;
  /** With `{ crdOwner: 'external' }`: the CRD belongs to its owner (an operator's chart, OLM), not to crdgate. */
  crdOwner?: 'external';
  /** With `{ crdOwner: 'external' }`: the CRD itself, as its owner installs it, for the local loop to apply. */
  ownerCrd?: Record<string, unknown>;
}

export interface FromCrdOptions {
  /**
   * `'external'`: the contract guards a CRD someone else installs (an operator's Helm chart, OLM). crdgate then renders
   * no CRD, conversion or storage migration for it, and the versions other than the hub need no conversion.
   */
  crdOwner?: 'crdgate' | 'external';
}

/**
 * CRD annotations a contract does not take over: kubectl's record of the last apply (a copy of the whole CRD), and
 * cert-manager's CA injection, which crdgate's own cert-manager overlay sets for the webhook it serves.
 */
const droppedAnnotations = [
  /^kubectl\.kubernetes\.io\/last-applied-configuration$/,
  /^cert-manager\.io\/inject-ca-from/,
];

/**
 * The parts of a contract an `apiextensions.k8s.io/v1` CustomResourceDefinition already holds, so that a contract
 * starts from the CRD a project has (controller-gen's output, a Helm chart's `crds/`) instead of restating it:
 *
 * ```ts
 * const crd = readCrdFile(new URL('../crds/queue.yaml', import.meta.url));
 * export default () => defineContract<QueueSpec>({ ...fromCrd(crd), invariants: [sizeFitsTier] });
 * ```
 *
 * The schemas are taken as written (defineContract then holds them to the API server's rules). What crdgate renders
 * itself is not taken: the conversion strategy and webhook (crdgate converts through its own with several
 * versions), status, and the CRD's labels. Throws a ContractDefinitionError naming what is wrong when the object is
 * not a v1 CRD with at least one version, exactly one of them the storage version, each with a schema.
 */
export function fromCrd(crd: unknown, options: FromCrdOptions = {}): CrdContractParts {
  const fail = (problem: string): never => {
    throw new ContractDefinitionError(`fromCrd: ${problem}`);
  };
  if (!isPlainObject(crd))
    return fail(
      `expected a CustomResourceDefinition object, got ${crd === null ? 'null' : Array.isArray(crd) ? 'an array' : typeof crd}`,
    );
  const name = isPlainObject(crd.metadata) && typeof crd.metadata.name === 'string' ? ` ${crd.metadata.name}` : '';
  if (crd.kind !== 'CustomResourceDefinition') {
    return fail(
      `expected a CustomResourceDefinition, got ${typeof crd.kind === 'string' ? `a ${crd.kind}` : 'an object without a kind'}${name}`,
    );
  }
  if (crd.apiVersion !== 'apiextensions.k8s.io/v1') {
    return fail(
      `the CustomResourceDefinition${name} is ${JSON.stringify(crd.apiVersion)}, not apiextensions.k8s.io/v1 ` +
        '(v1beta1 CRDs are not served since Kubernetes 1.22: convert it, or regenerate it with crd:crdVersions=v1)',
    );
  }
  const where = `the CustomResourceDefinition${name}`;
  const spec = crd.spec;
  if (!isPlainObject(spec)) return fail(`${where} has no spec`);
  const names = isPlainObject(spec.names) ? spec.names : fail(`${where} has no spec.names`);
  // An empty name is the API server's to refuse (Required value), with the other names' problems, in its words.
  const text = (value: unknown, field: string): string =>
    typeof value === 'string' ? value : fail(`${where} has no ${field}`);
  const list = (value: unknown, field: string): string[] | undefined => {
    if (value === undefined || value === null) return undefined;
    if (!Array.isArray(value) || !value.every((entry) => typeof entry === 'string'))
      return fail(`${where}: ${field} must be a list of strings`);
    return value;
  };
  const scope = spec.scope;
  if (scope !== 'Namespaced' && scope !== 'Cluster')
    return fail(`${where}: spec.scope must be Namespaced or Cluster, got ${JSON.stringify(scope)}`);
  const identity: ContractIdentity = {
    group: text(spec.group, 'spec.group'),
    kind: text(names.kind, 'spec.names.kind'),
    plural: text(names.plural, 'spec.names.plural'),
    singular:
      typeof names.singular === 'string' && names.singular !== ''
        ? names.singular
        : text(names.kind, 'spec.names.kind').toLowerCase(),
    scope,
  };
  if (typeof names.listKind === 'string' && names.listKind !== '') identity.listKind = names.listKind;
  const shortNames = list(names.shortNames, 'spec.names.shortNames');
  if (shortNames?.length) identity.shortNames = [...shortNames];
  const categories = list(names.categories, 'spec.names.categories');
  if (categories?.length) identity.categories = [...categories];

  if (spec.preserveUnknownFields === true)
    return fail(
      `${where} sets spec.preserveUnknownFields, which apiextensions.k8s.io/v1 refuses: use x-kubernetes-preserve-unknown-fields in the schema`,
    );
  if (!Array.isArray(spec.versions) || spec.versions.length === 0)
    return fail(`${where} has no versions (spec.versions is empty)`);
  const versions = spec.versions.map((version: unknown, index: number) =>
    versionFrom(version, `${where}: spec.versions[${index}]`, fail),
  );
  const storage = versions.filter((version) => version.storage);
  if (storage.length === 0)
    return fail(
      `${where} has no storage version: exactly one of ${versions.map((v) => v.name).join(', ')} must have storage: true`,
    );
  if (storage.length > 1)
    return fail(
      `${where} has ${storage.length} storage versions (${storage.map((v) => v.name).join(', ')}): exactly one must have storage: true`,
    );

  const parts: CrdContractParts = {
    identity,
    versions,
    hub: hubOf(versions, storage[0]!, options.crdOwner === 'external'),
    conversions: {},
  };
  const annotations =
    isPlainObject(crd.metadata) && isPlainObject(crd.metadata.annotations) ? crd.metadata.annotations : {};
  const kept = Object.entries(annotations).filter(([key]) => !droppedAnnotations.some((dropped) => dropped.test(key)));
  if (kept.length > 0) parts.crdAnnotations = Object.fromEntries(kept.map(([key, value]) => [key, String(value)]));
  if (options.crdOwner === 'external') {
    parts.crdOwner = 'external';
    // A copy: the contract must not share the caller's object. kubectl's record of the last apply is the owner's business.
    parts.ownerCrd = ownerCrdCopy(crd, versions);
  }
  return parts;
}

/**
 * The owner's CRD as the contract keeps it: a copy, except that a version's schema the API server reads as it is
 * written (no null in it, which it would read as left out) is the contract's own copy of it, the same data. A guard of
 * a large CRD would otherwise hold each schema twice (megabytes each), and nothing changes either: both are only read.
 */
function ownerCrdCopy(crd: Record<string, unknown>, versions: readonly VersionDefinition[]): Record<string, unknown> {
  const spec = crd['spec'] as Record<string, unknown>;
  const written = spec['versions'] as Array<Record<string, unknown>>;
  const shared = written.map((version) => {
    const schema = isPlainObject(version['schema']) ? version['schema'] : undefined;
    const own = versions.find((each) => each.name === version['name']);
    return schema !== undefined && own !== undefined && !containsNull(schema['openAPIV3Schema'])
      ? own.schema
      : undefined;
  });
  const copy = structuredClone({
    ...crd,
    spec: {
      ...spec,
      versions: written.map((version, index) =>
        shared[index] === undefined
          ? version
          : { ...version, schema: { ...(version['schema'] as object), openAPIV3Schema: null } },
      ),
    },
  });
  const copied = (copy['spec'] as Record<string, unknown>)['versions'] as Array<{ schema: Record<string, unknown> }>;
  shared.forEach((schema, index) => {
    if (schema !== undefined) copied[index]!.schema['openAPIV3Schema'] = schema;
  });
  return copy;
}

function containsNull(value: unknown): boolean {
  if (value === null) return true;
  if (typeof value !== 'object') return false;
  return Object.values(value).some(containsNull);
}

function versionFrom(version: unknown, where: string, fail: (problem: string) => never): VersionDefinition {
  if (!isPlainObject(version)) return fail(`${where} is not an object`);
  const name = typeof version.name === 'string' ? version.name : fail(`${where} has no name`);
  const at = `${where} (${name})`;
  const schema = isPlainObject(version.schema) ? version.schema.openAPIV3Schema : undefined;
  if (!isPlainObject(schema))
    return fail(`${at} has no schema.openAPIV3Schema: crdgate validates against it, and the API server requires one`);
  const result: VersionDefinition = {
    name,
    served: version.served === true,
    storage: version.storage === true,
    // A copy: the contract must not share (and let its caller change) the object it was made from.
    schema: schemaAsRead(schema) as JSONSchemaProps,
  };
  if (version.deprecated === true) result.deprecated = true;
  if (typeof version.deprecationWarning === 'string') result.deprecationWarning = version.deprecationWarning;
  if (Array.isArray(version.additionalPrinterColumns) && version.additionalPrinterColumns.length > 0) {
    result.printerColumns = printerColumnsAsRead(version.additionalPrinterColumns) as PrinterColumn[];
  }
  const subresources = subresourcesAsRead(version.subresources);
  if (Object.keys(subresources).length > 0) result.subresources = subresources as Subresources;
  if (Array.isArray(version.selectableFields) && version.selectableFields.length > 0) {
    result.selectableFields = selectableFieldsAsRead(version.selectableFields) as SelectableField[];
  }
  return result;
}

/**
 * The version crdgate's rules are written against, and its webhooks called in: the storage version. For a CRD
 * someone else owns whose storage version is not served (the API server takes that, and converts every request to
 * it all the same), the served version the API server prefers (discovery's newest: v2 above v1, v1 above v1beta2).
 */
function hubOf(versions: readonly VersionDefinition[], storage: VersionDefinition, external: boolean): string {
  if (storage.served || !external) return storage.name;
  const served = versions.filter((version) => version.served).map((version) => version.name);
  return served.sort(compareVersionAge).at(-1) ?? storage.name;
}

// The YAML parser is loaded when a CRD file is read, not with 'crdgate': `crdgate serve` keeps it out of its heap
// unless a contract reads its CRD. (Synchronously, through require: readCrdFile is synchronous.)
const loadCommonJs = createRequire(import.meta.url);
const yaml = (): typeof Yaml => loadCommonJs('yaml') as typeof Yaml;

function yamlDocuments(text: string, fail: (problem: string) => never): unknown[] {
  const documents = yaml().parseAllDocuments(text);
  const list = Array.isArray(documents) ? documents : [documents];
  return list.map((document, index) => {
    const error = document.errors[0];
    if (error) fail(`document ${index + 1} is not valid YAML: ${error.message.split('\n')[0]}`);
    return document.toJS({ maxAliasCount: 100 }) as unknown;
  });
}

/**
 * Reads a CRD from a YAML or JSON file, for {@link fromCrd}: the one CustomResourceDefinition in it, or the one named
 * `name` (`plural.group`) when the file holds several (a Helm chart's bundle). Synchronous, so that a contract's
 * module can read its CRD where it makes the contract. Throws a ContractDefinitionError naming the file and the
 * problem when it cannot be read or parsed, or holds no such CRD.
 */
export function readCrdFile(file: string | URL, options: { name?: string } = {}): unknown {
  const path = file instanceof URL ? fileURLToPath(file) : file;
  const fail = (problem: string): never => {
    throw new ContractDefinitionError(`readCrdFile: ${path}: ${problem}`);
  };
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    fail(`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  // The block YAML reader takes a few percent of `yaml`'s time on the CRDs generators write; it gives up on
  // anything else, which `yaml` then reads (and reports the errors of) as before.
  const values = readBlockYaml(text) ?? yamlDocuments(text, fail);
  const crds: Record<string, unknown>[] = [];
  for (const value of values) {
    const objects =
      isPlainObject(value) &&
      Array.isArray(value.items) &&
      typeof value.kind === 'string' &&
      value.kind.endsWith('List')
        ? value.items
        : [value];
    for (const object of objects)
      if (isPlainObject(object) && object.kind === 'CustomResourceDefinition') crds.push(object);
  }
  const nameOf = (crd: Record<string, unknown>) =>
    isPlainObject(crd.metadata) ? String(crd.metadata.name) : '(unnamed)';
  if (options.name !== undefined) {
    const named = crds.filter((crd) => nameOf(crd) === options.name);
    if (named.length === 0)
      fail(`no CustomResourceDefinition named ${options.name} (it has: ${crds.map(nameOf).join(', ') || 'none'})`);
    return named[0];
  }
  if (crds.length === 0) fail('no CustomResourceDefinition in the file');
  if (crds.length > 1)
    fail(
      `${crds.length} CustomResourceDefinitions (${crds.map(nameOf).join(', ')}): name the one to read with { name }`,
    );
  return crds[0];
}
