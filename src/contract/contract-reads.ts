import { isQualifiedName, qualifiedNameRule } from './values/dns-names.ts';
import { isPlainObject, type KubeObject, type ObjectMeta } from './values/kube-object.ts';

// What a contract's code (its invariants, defaults and update rules) is shown of an object besides the spec. crdgate
// hands that code exactly this view, so a write that changes nothing in it is one the code cannot tell from no write
// at all: the API server then need not call crdgate for it (docs/contracts.md, "What reaches crdgate").

/**
 * What the contract's invariants, defaults and update rules read (or, for defaults, write) of an object besides
 * its spec. crdgate shows them only this, and the API server calls crdgate for an update only when the spec or one
 * of these changes. Left out: every label and annotation, and the status.
 */
export interface ContractReads {
  /** The label keys the code reads or writes; [] for none. Left out: all of them. */
  labels?: readonly string[];
  /** The annotation keys the code reads or writes; [] for none. Left out: all of them. */
  annotations?: readonly string[];
  /**
   * Whether the code reads the status (default true). The FSA's phase or state reader is not the
   * contract's code in this sense: crdgate knows what it reads.
   */
  status?: boolean;
}

/** ContractReads with its defaults filled in: 'all' for labels or annotations left undeclared. */
export interface ReadKeys {
  labels: readonly string[] | 'all';
  annotations: readonly string[] | 'all';
  status: boolean;
}

export function readKeysOf(contract: { reads?: ContractReads | undefined }): ReadKeys {
  const reads = contract.reads ?? {};
  return { labels: reads.labels ?? 'all', annotations: reads.annotations ?? 'all', status: reads.status ?? true };
}

/**
 * The metadata the contract's code is shown: the object's identity and what people and tools say about it. The rest
 * (resourceVersion, managedFields, finalizers, ownerReferences) is the API server's and the operator's bookkeeping,
 * which changes on writes no contract judges: an operator adding or removing its finalizer must not need crdgate.
 */
export const readMetadataFields = [
  'name',
  'generateName',
  'namespace',
  'uid',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
] as const;

const shownMetadata: ReadonlySet<string> = new Set(readMetadataFields);

/** The object as the contract's code is shown it, its keys in their order (a patch of the defaults follows it). */
export function readView(reads: ReadKeys, object: KubeObject): KubeObject {
  const view: KubeObject = {};
  for (const key of Object.keys(object)) {
    if (key === 'status' && !reads.status) continue;
    const value = key === 'metadata' ? readMetadata(reads, object.metadata) : object[key];
    if (value !== undefined) view[key] = value;
  }
  return view;
}

function readMetadata(reads: ReadKeys, metadata: ObjectMeta | undefined): ObjectMeta | undefined {
  if (!isPlainObject(metadata)) return metadata;
  const shown: Record<string, unknown> = {};
  for (const field of Object.keys(metadata)) {
    if (!shownMetadata.has(field)) continue;
    const keys = field === 'labels' ? reads.labels : field === 'annotations' ? reads.annotations : 'all';
    const value = keys === 'all' ? metadata[field] : onlyKeys(metadata[field], keys);
    if (value !== undefined) shown[field] = value;
  }
  return shown;
}

/** A map with only these keys; undefined when it holds none of them (a map of the wrong type is shown as it is). */
function onlyKeys(map: unknown, keys: readonly string[]): unknown {
  if (!isPlainObject(map)) return map;
  const kept = keys.filter((key) => Object.hasOwn(map, key));
  return kept.length === 0 ? undefined : Object.fromEntries(kept.map((key) => [key, map[key]]));
}

/**
 * What the defaults made of the view (readView), with what the view left out of `original` put back: the
 * metadata the code is not shown, the labels and annotations it does not declare, and the status when it does not
 * read it. A default written where the code is not shown anything (an undeclared label) is not applied.
 */
export function withUnreadParts(
  reads: ReadKeys,
  original: KubeObject,
  view: KubeObject,
  defaulted: KubeObject,
): KubeObject {
  if (defaulted === view) return original;
  const merged: KubeObject = {};
  for (const key of Object.keys(defaulted)) {
    if (key === 'status' && !reads.status) continue;
    const value = key === 'metadata' ? mergedMetadata(reads, original.metadata, defaulted.metadata) : defaulted[key];
    if (value !== undefined) merged[key] = value;
  }
  if (!Object.hasOwn(defaulted, 'metadata') && original.metadata !== undefined) merged.metadata = original.metadata;
  if (!reads.status && Object.hasOwn(original, 'status')) merged.status = original.status;
  return merged;
}

function mergedMetadata(
  reads: ReadKeys,
  original: ObjectMeta | undefined,
  defaulted: ObjectMeta | undefined,
): ObjectMeta | undefined {
  if (!isPlainObject(original) || !isPlainObject(defaulted)) return defaulted ?? original;
  const merged: Record<string, unknown> = { ...original };
  for (const field of readMetadataFields) {
    const keys = field === 'labels' ? reads.labels : field === 'annotations' ? reads.annotations : 'all';
    const value = keys === 'all' ? defaulted[field] : mergedMap(original[field], defaulted[field], keys);
    if (value === undefined) delete merged[field];
    else merged[field] = value;
  }
  return merged;
}

/** The original map's undeclared keys, then the declared keys as the defaults left them. */
function mergedMap(original: unknown, defaulted: unknown, keys: readonly string[]): unknown {
  if (!isPlainObject(original) && original !== undefined) return original;
  const kept = Object.entries(original ?? {}).filter(([key]) => !keys.includes(key));
  const declared = isPlainObject(defaulted)
    ? keys.filter((key) => Object.hasOwn(defaulted, key)).map((key) => [key, defaulted[key]] as const)
    : [];
  const entries = [...kept, ...declared];
  return entries.length === 0 && original === undefined ? undefined : Object.fromEntries(entries);
}

/** What is wrong with a contract's reads, one sentence each. */
export function contractReadsProblems(reads: ContractReads): string[] {
  const problems: string[] = [];
  for (const field of ['labels', 'annotations'] as const) {
    for (const key of reads[field] ?? []) {
      if (!isQualifiedName(key)) problems.push(`reads.${field}: "${key}" must be ${qualifiedNameRule}`);
    }
  }
  return problems;
}
