import { readKeysOf, readMetadataFields, type ReadKeys } from '../contract/contract-reads.ts';
import { defaultersOf } from '../contract/defaults/contract-defaulter.ts';
import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import { parseFieldPath, valueAtSegments, type PathSegment } from '../contract/values/field-path.ts';
import { readsPhase } from '../contract/fsa/phase.ts';
import { jsonEqual } from '../contract/values/json-equal.ts';
import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { isCrdgateOwnFormat } from '../contract/schema/kubernetes-formats.ts';

// What each of crdgate's decisions on an update depends on, as data. An update that leaves all of it as it was is
// one crdgate has nothing to say about: the decisions answer it with a plain allow (no warning, no patch), and the
// webhook configurations tell the API server, in matchConditions built from the same data, not to ask at all. Both
// read this one derivation, so they cannot drift apart; a property test holds the CEL to the decisions.

/** Parts of an object, compared between an update's old and new object. */
export interface ObjectParts {
  /** Every top-level field other than metadata and status (the spec, and whatever else the schema declares). */
  content: boolean;
  /** The metadata compared: readMetadataFields, with only these labels and annotations when not 'all'. */
  metadata: { labels: readonly string[] | 'all'; annotations: readonly string[] | 'all' } | undefined;
  /** The whole status, the values at these paths (a machine's phase), or nothing. */
  status: 'whole' | { paths: readonly (readonly PathSegment[])[] } | undefined;
}

/** Why a part is judged, for `crdgate manifests --explain`. */
export type Because = string;

export interface JudgedParts {
  /** An UPDATE of the resource itself: the validating webhook's decision. */
  update: ObjectParts;
  /** An UPDATE of /status; undefined when crdgate decides nothing about status writes. */
  status: ObjectParts | undefined;
  /** Whether a status write can be refused, rather than only warned about (a state move the machine does not expect). */
  statusRefusable: boolean;
  /** An UPDATE as the defaults see it; undefined without defaults. */
  defaults: ObjectParts | undefined;
  /** The reasons behind each, in words. */
  reasons: { update: Because[]; status: Because[]; defaults: Because[] };
}

const cache = new WeakMap<Contract, JudgedParts>();

/** What crdgate's decisions on an update of the contract's kind depend on. */
export function judgedPartsOf(contract: Contract): JudgedParts {
  let parts = cache.get(contract);
  if (parts === undefined) {
    parts = deriveJudgedParts(contract);
    cache.set(contract, parts);
  }
  return parts;
}

function deriveJudgedParts(contract: Contract): JudgedParts {
  const reads = readKeysOf(contract);
  const machine = contract.transitions;
  const statusChecked = statusCheckBeyondApiServer(contract);
  const invariantsReadStatus = reads.status && (contract.invariants?.length ?? 0) > 0;
  // The validating webhook runs the invariants and update rules on an update; the defaults are the mutating one's.
  const codeReads = (contract.invariants?.length ?? 0) > 0 || (contract.updateRules?.length ?? 0) > 0;
  // The machine reads the override annotation of the new object; it is judged even where the contract declares
  // its own annotations.
  const updateMetadata = {
    labels: reads.labels,
    annotations:
      machine && reads.annotations !== 'all'
        ? [...new Set([...reads.annotations, machine.overrideAnnotation])]
        : reads.annotations,
  };
  const updateStatus = (reads.status && codeReads) || statusChecked !== undefined;
  const update: ObjectParts = { content: true, metadata: updateMetadata, status: updateStatus ? 'whole' : undefined };
  const reasons: JudgedParts['reasons'] = {
    update: [
      'the spec: the schema, the invariants, the update rules and the FSA judge it',
      ...metadataReasons(reads, 'the contract reads'),
      ...(machine && reads.annotations !== 'all'
        ? [`the annotation ${machine.overrideAnnotation}: the FSA's override`]
        : []),
      ...(updateStatus ? [statusChecked ?? 'the status: the contract reads it (reads.status is not false)'] : []),
    ],
    status: [],
    defaults: [],
  };

  const statusWhole =
    invariantsReadStatus || statusChecked !== undefined || (machine !== undefined && !readsPhase(machine));
  const phasePath = machine !== undefined && readsPhase(machine) ? parseFieldPath(machine.phasePath) : undefined;
  const status: ObjectParts | undefined = !hubHasStatus(contract)
    ? undefined
    : statusWhole
      ? { content: false, metadata: undefined, status: 'whole' }
      : phasePath !== undefined
        ? { content: false, metadata: undefined, status: { paths: [phasePath] } }
        : undefined;
  if (status !== undefined) {
    if (statusChecked !== undefined) reasons.status.push(statusChecked);
    if (invariantsReadStatus)
      reasons.status.push(
        'the status: the invariants read it (reads.status is not false), so a status write can make the object invalid',
      );
    if (machine !== undefined && !readsPhase(machine))
      reasons.status.push(
        'the status: the state reader reads it, and a state move the machine does not expect is warned about',
      );
    else if (phasePath !== undefined)
      reasons.status.push(`${machine!.phasePath}: a phase move the machine does not expect is warned about`);
  }

  const defaults: ObjectParts | undefined =
    defaultersOf(contract).length === 0
      ? undefined
      : {
          content: true,
          metadata: { labels: reads.labels, annotations: reads.annotations },
          status: reads.status ? 'whole' : undefined,
        };
  if (defaults !== undefined) {
    reasons.defaults.push(
      'the spec: the defaults read it and fill what it leaves out',
      ...metadataReasons(reads, 'the defaults may read or write'),
    );
    if (reads.status) reasons.defaults.push('the status: the defaults may read it (reads.status is not false)');
  }
  return { update, status, statusRefusable: invariantsReadStatus || statusChecked !== undefined, defaults, reasons };
}

function metadataReasons(reads: ReadKeys, who: string): Because[] {
  const keys = (what: string, list: readonly string[] | 'all') =>
    list === 'all'
      ? `every ${what}: ${who} them (reads.${what}s is not declared)`
      : list.length === 0
        ? undefined
        : `the ${what}s ${list.join(', ')}: ${who} them`;
  return [keys('label', reads.labels), keys('annotation', reads.annotations)].filter((reason) => reason !== undefined);
}

/**
 * Why crdgate's schema check of the status is more than the API server's own, or undefined when it is not: then a
 * status the API server stores is one crdgate's schema would take too. crdgate's own formats (quantity,
 * dns1123-label) are checked by crdgate alone; for a CRD someone else owns, the API server checks the owner's
 * schema, which is crdgate's only where the contract carries the owner's CRD and its status schema is the same.
 */
export function statusCheckBeyondApiServer(contract: Contract): string | undefined {
  const status = hubSchema(contract)?.properties?.['status'];
  if (status !== undefined && usesCrdgateOwnFormat(status))
    return 'the status: its schema uses a format only crdgate checks';
  if (ownsCrd(contract)) return undefined;
  const ownerStatus = ownerHubSchema(contract)?.properties?.['status'];
  if (contract.ownerCrd === undefined)
    return "the status: the contract carries no copy of its owner's CRD to tell that the API server checks the same schema";
  if (!jsonEqual(ownerStatus, status))
    return "the status: the contract's status schema is not its owner's, which the API server checks";
  return undefined;
}

function usesCrdgateOwnFormat(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(usesCrdgateOwnFormat);
  if (!isPlainObject(schema)) return false;
  if (typeof schema['format'] === 'string' && isCrdgateOwnFormat(schema['format'])) return true;
  return Object.values(schema).some(usesCrdgateOwnFormat);
}

export function hubSchema(contract: Contract): JSONSchemaProps | undefined {
  return contract.versions.find((version) => version.name === contract.hub)?.schema;
}

export function ownerHubSchema(contract: Contract): JSONSchemaProps | undefined {
  const versions = (contract.ownerCrd?.['spec'] as { versions?: unknown } | undefined)?.versions;
  if (!Array.isArray(versions)) return undefined;
  const hub = versions.find((version: unknown) => isPlainObject(version) && version['name'] === contract.hub) as
    { schema?: { openAPIV3Schema?: JSONSchemaProps } } | undefined;
  return hub?.schema?.openAPIV3Schema;
}

export function hubHasStatus(contract: Contract): boolean {
  return contract.versions.find((version) => version.name === contract.hub)?.subresources?.status !== undefined;
}

/** Whether two objects agree in every one of these parts. */
export function sameInParts(parts: ObjectParts, a: KubeObject, b: KubeObject): boolean {
  if (parts.content && !sameContent(a, b)) return false;
  if (parts.metadata !== undefined && !sameMetadata(parts.metadata, a.metadata, b.metadata)) return false;
  if (parts.status === 'whole') return sameField(a, b, 'status');
  if (parts.status !== undefined)
    return parts.status.paths.every((path) => jsonEqual(valueAtSegments(a, path), valueAtSegments(b, path)));
  return true;
}

function sameContent(a: KubeObject, b: KubeObject): boolean {
  const outside = (key: string) => key !== 'metadata' && key !== 'status';
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter(outside));
  return [...keys].every((key) => sameField(a, b, key));
}

function sameMetadata(parts: NonNullable<ObjectParts['metadata']>, a: unknown, b: unknown): boolean {
  if (!isPlainObject(a) || !isPlainObject(b)) return jsonEqual(a, b);
  return readMetadataFields.every((field) => {
    const keys = field === 'labels' ? parts.labels : field === 'annotations' ? parts.annotations : 'all';
    if (keys === 'all') return sameField(a, b, field);
    const [x, y] = [a[field], b[field]];
    if (!isPlainObject(x) || !isPlainObject(y))
      return (x === undefined || isPlainObject(x)) && (y === undefined || isPlainObject(y))
        ? sameKeys(x ?? {}, y ?? {}, keys)
        : jsonEqual(x, y);
    return sameKeys(x, y, keys);
  });
}

function sameKeys(a: Record<string, unknown>, b: Record<string, unknown>, keys: readonly string[]): boolean {
  return keys.every((key) => sameField(a, b, key));
}

/** Present in both and equal, or absent from both. */
function sameField(a: Record<string, unknown>, b: Record<string, unknown>, key: string): boolean {
  const [inA, inB] = [Object.hasOwn(a, key), Object.hasOwn(b, key)];
  return inA === inB && (!inA || jsonEqual(a[key], b[key]));
}

/**
 * Whether an update (of the resource, or of its status subresource) leaves every part crdgate's validating decision
 * reads as it was. A status write of a kind whose status nothing judges changes nothing judged.
 */
export function changesNothingJudged(
  contract: Contract,
  subResource: string | undefined,
  oldObject: KubeObject,
  object: KubeObject,
): boolean {
  const parts = judgedPartsOf(contract);
  if (subResource === 'status') return parts.status === undefined || sameInParts(parts.status, oldObject, object);
  return !subResource && sameInParts(parts.update, oldObject, object);
}

/** Whether an update leaves everything the defaults see as it was: they would fill nothing they did not fill before. */
export function changesNothingDefaulted(contract: Contract, oldObject: KubeObject, object: KubeObject): boolean {
  const { defaults } = judgedPartsOf(contract);
  return defaults !== undefined && sameInParts(defaults, oldObject, object);
}

/**
 * `unchanged` of the two objects as sent and of their hub forms: the schema reads the one, the contract's code the
 * other, and a conversion may carry what the parts leave out (a stash annotation) into the hub. With matchPolicy
 * Equivalent the webhooks are sent the hub, and both are the same comparison.
 */
export function unchangedAsSentAndInTheHub(
  oldView: { object: KubeObject; hub?: KubeObject | undefined },
  view: { object: KubeObject; hub?: KubeObject | undefined },
  unchanged: (oldObject: KubeObject, object: KubeObject) => boolean,
): boolean {
  if (oldView.hub === undefined || view.hub === undefined || !unchanged(oldView.object, view.object)) return false;
  return (oldView.hub === oldView.object && view.hub === view.object) || unchanged(oldView.hub, view.hub);
}
