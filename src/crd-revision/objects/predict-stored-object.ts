import { judge, readAsStored } from '../../api-server-engine/engine.ts';
import { inKeyOrderOf } from '../../api-server-engine/key-order.ts';
import { isPlainObject, splitApiVersion, type KubeObject } from '../../contract/values/kube-object.ts';
import type { ReadOutcome, StoredObjectOutcome, StoredObjectRef, WriteOutcome } from './outcome.ts';
import { withOneFieldChanged, withValueAt, type OneFieldChange } from './one-field-changed.ts';
import { readStoredObject, ConversionUnknownError, type ObjectConverter, type RawRead } from './read-stored-object.ts';
import { refusalOf } from './refusal-of.ts';
import type { CrdRevisionUnderTest, RevisionSide } from './revision-under-test.ts';
import { asRecreated, withoutServerSetMetadata } from './server-set-metadata.ts';

/** The label the label write adds, unless the caller names another: one no object has, so the write changes it. */
export const labelWriteLabel = { key: 'crdgate.dev/revision-check', value: 'touched' } as const;

export interface PredictionOptions {
  /** For a CRD whose conversion strategy is Webhook: the conversion the webhook does (a contract's). */
  convert?: ObjectConverter;
  /** The label the label write adds (default labelWriteLabel). */
  label?: { key: string; value: string };
}

/** An object that cannot be one of the CRD's: another kind or group, or a version the old revision does not have. */
export class StoredObjectUnreadableError extends Error {
  override name = 'StoredObjectUnreadableError';
}

export { ConversionUnknownError };

/**
 * What kube-apiserver does with one stored object once the new revision of its CRD is applied, predicted with
 * the engine (kube-apiserver v1.36's own pipeline):
 *
 * - the object is given as the cluster answers it under the old revision (`kubectl get -o yaml`, a backup) or as
 *   a manifest was applied under it: it is read through the old revision (pruned, defaulted in its version) and
 *   taken to be stored in the old storage version, the one every write under the old revision stores in;
 * - `reads`: a GET in every version either revision serves (readStoredObject; a version the new one does not serve
 *   answers 404);
 * - `unchangedWrite`: a PUT in the new storage version of what the GET there answered, an UPDATE whose old object
 *   is that same read, so that ratcheting spares what did not change; `labelWrite` the same with one label added;
 *   `statusWrite` with one status field changed, through the status subresource where the version has one, and
 *   `specWrite` with one spec field the revision leaves alone changed (withOneFieldChanged; absent where the object
 *   holds no such field);
 * - `recreate`: a CREATE in the new storage version of that read stripped as a restore or a GitOps re-sync sends
 *   it (asRecreated: name, namespace, labels and annotations kept; status and server-set metadata left out);
 * - a written object's `stored` is what the API server answers: read back from storage (pruned and defaulted).
 *
 * When the API server refuses the CRD update itself (`updateRefusal`), the old revision goes on serving, and the
 * outcome is the old revision's. Objects are compared without the metadata the server alone sets.
 * Throws StoredObjectUnreadableError for an object that cannot be one of the CRD's, ConversionUnknownError when
 * the answer goes through a conversion webhook and no `convert` is given.
 */
export function predictStoredObject(
  revision: CrdRevisionUnderTest,
  object: KubeObject,
  options: PredictionOptions = {},
): StoredObjectOutcome {
  const side = revision.updateRefusal ? revision.old : revision.new;
  const stored = asStoredUnderOld(revision.old, object, options.convert);
  const readVersions = [...new Set([...side.versions, ...revision.old.served, ...revision.new.served])].filter(
    (version) => revision.old.served.includes(version) || revision.new.served.includes(version),
  );
  const raw = new Map(
    readVersions.map((version) => [version, readStoredObject(side, stored, version, options.convert)]),
  );
  const storage = side.storage;
  if (storage === undefined) throw new StoredObjectUnreadableError(`${revision.name} has no storage version`);
  const inStorage = raw.get(storage) ?? readStoredObject(side, stored, storage, options.convert);
  const label = options.label ?? labelWriteLabel;
  return {
    object: refOf(object),
    reads: Object.fromEntries([...raw].map(([version, read]) => [version, asAnswered(read)])),
    unchangedWrite: write(side, inStorage, (read) => ({ operation: 'UPDATE', object: read, oldObject: read })),
    labelWrite: write(side, inStorage, (read) => ({
      operation: 'UPDATE',
      object: withLabel(read, label),
      oldObject: read,
    })),
    ...oneFieldWrites(revision, side, storage, inStorage),
    recreate: write(side, inStorage, (read) => ({ operation: 'CREATE', object: asRecreated(read) })),
  };
}

/** The status write and the spec write, where the object holds a field each can change. */
function oneFieldWrites(
  revision: CrdRevisionUnderTest,
  side: RevisionSide,
  storage: string,
  inStorage: RawRead,
): Pick<StoredObjectOutcome, 'statusWrite' | 'specWrite'> {
  if ('refused' in inStorage) return {};
  const writes: Pick<StoredObjectOutcome, 'statusWrite' | 'specWrite'> = {};
  for (const [key, under] of [
    ['statusWrite', 'status'],
    ['specWrite', 'spec'],
  ] as const) {
    const changed = oneFieldChangeOf(revision, side, storage, inStorage.object, under);
    if (changed !== undefined) writes[key] = oneFieldWrite(side, storage, inStorage, changed.object, under);
  }
  return writes;
}

/** The change the status write (`status`) or the spec write (`spec`) makes to the object read in `storage`. */
export function oneFieldChangeOf(
  revision: CrdRevisionUnderTest,
  side: RevisionSide,
  storage: string,
  read: KubeObject,
  under: 'status' | 'spec',
): OneFieldChange | undefined {
  const version = side.crd.versions.find((candidate) => candidate.name === storage);
  return withOneFieldChanged(read, version?.schema, under, revision.changedPaths);
}

/**
 * `changed` written over the object read in `storage`: a status write goes through the status subresource where
 * the version has one.
 */
function oneFieldWrite(
  side: RevisionSide,
  storage: string,
  inStorage: RawRead,
  changed: KubeObject,
  under: 'status' | 'spec',
): WriteOutcome {
  const viaStatus = side.crd.versions.find((candidate) => candidate.name === storage)?.subresources.status;
  return write(side, inStorage, (read) => ({
    operation: 'UPDATE',
    object: changed,
    oldObject: read,
    ...(under === 'status' && viaStatus !== undefined ? { subresource: 'status' as const } : {}),
  }));
}

/**
 * The same change (the same field set to the same value) written under the old revision, in its storage version:
 * whether the write was the revision's to refuse. Undefined when the old revision's read has no such field.
 */
export function oneFieldWriteUnderOld(
  revision: CrdRevisionUnderTest,
  object: KubeObject,
  change: OneFieldChange,
  under: 'status' | 'spec',
  convert?: ObjectConverter,
): WriteOutcome | undefined {
  const storage = revision.old.storage;
  if (storage === undefined) return undefined;
  const read = readStoredObject(revision.old, asStoredUnderOld(revision.old, object, convert), storage, convert);
  if ('refused' in read) return undefined;
  const changed = withValueAt(read.object, change.segments, change.new);
  return changed === undefined ? undefined : oneFieldWrite(revision.old, storage, read, changed, under);
}

/**
 * The object as etcd holds it under the old revision: read in its own version as the API server would have
 * stored it there (pruned, defaulted), then in the old storage version. Of what the read cannot show (fields the
 * old revision pruned on read, defaults it added on read only), see docs/check.md.
 */
export function asStoredUnderOld(
  old: RevisionSide,
  object: KubeObject,
  convert: ObjectConverter | undefined,
): KubeObject {
  const known = storedForms.get(old)?.get(object);
  if (known !== undefined) return known;
  const stored = readUnderOld(old, object, convert);
  const forSide = storedForms.get(old) ?? new WeakMap<KubeObject, KubeObject>();
  storedForms.set(old, forSide);
  forSide.set(object, stored);
  return stored;
}

/** Each object's stored form, once per revision side: predictStoredObject and storedObjectFindings both need it. */
const storedForms = new WeakMap<RevisionSide, WeakMap<KubeObject, KubeObject>>();

function readUnderOld(old: RevisionSide, given: KubeObject, convert: ObjectConverter | undefined): KubeObject {
  // What only the server sets differs between any two stores of the object and plays no part in what happens to
  // it (managedFields alone can outweigh the object); reading it is most of the engine's time.
  const object = withoutServerSetMetadata(given);
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  const { group, version } = splitApiVersion(apiVersion);
  if (group !== old.group || object.kind !== old.kind || !old.versions.includes(version)) {
    throw new StoredObjectUnreadableError(
      `${String(object.kind)} of ${apiVersion || 'no apiVersion'} is not a version of ${old.kind}.${old.group} (it has ${old.versions.join(', ')})`,
    );
  }
  const read = readAsStored(old.reading, object);
  if (!read.allowed || !read.object)
    throw new StoredObjectUnreadableError(`the API server could not read it: ${read.message ?? 'refused'}`);
  const storage = old.storage ?? version;
  if (storage === version) return inKeyOrderOf(read.object, object);
  if (old.conversion === 'None') return inKeyOrderOf({ ...read.object, apiVersion: `${old.group}/${storage}` }, object);
  if (convert === undefined)
    throw new ConversionUnknownError(
      `${old.kind} is stored in ${storage} through the CRD's conversion webhook, which crdgate cannot run for a kind no contract owns`,
    );
  return convert(read.object, storage);
}

type WriteRequest = {
  operation: 'CREATE' | 'UPDATE';
  object: KubeObject;
  oldObject?: KubeObject;
  subresource?: 'status';
};

function write(side: RevisionSide, inStorage: RawRead, request: (read: KubeObject) => WriteRequest): WriteOutcome {
  if ('refused' in inStorage) return { allowed: false, refused: inStorage.refused };
  const judged = judge(side.reading, request(inStorage.object));
  if (!judged.allowed || !judged.object) return { allowed: false, refused: refusalOf(judged) };
  // The answer to a write is the object read back from storage, in the storage version: pruned and defaulted there
  // (its metadata has just been validated, so the storage reader would drop nothing of it).
  const answered = judge(side.reading, {
    operation: 'CREATE',
    object: judged.object,
    decodeOnly: true,
    fieldValidation: 'Ignore',
  });
  if (!answered.allowed || !answered.object) return { allowed: false, refused: refusalOf(answered) };
  return { allowed: true, stored: withoutServerSetMetadata(inKeyOrderOf(answered.object, inStorage.object)) };
}

function asAnswered(read: RawRead): ReadOutcome {
  return 'refused' in read ? read : { object: withoutServerSetMetadata(read.object) };
}

function withLabel(object: KubeObject, label: { key: string; value: string }): KubeObject {
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  const labels = isPlainObject(metadata.labels) ? metadata.labels : {};
  return { ...object, metadata: { ...metadata, labels: { ...labels, [label.key]: label.value } } };
}

function refOf(object: KubeObject): StoredObjectRef {
  const metadata = isPlainObject(object.metadata) ? object.metadata : {};
  return {
    apiVersion: String(object.apiVersion),
    kind: String(object.kind),
    ...(typeof metadata.namespace === 'string' ? { namespace: metadata.namespace } : {}),
    name: typeof metadata.name === 'string' ? metadata.name : '',
  };
}
