import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import { isFieldErrorType, type FieldErrorType } from '../../../../src/contract/values/field-error.ts';
import type {
  ReadOutcome,
  Refusal,
  StoredObjectOutcome,
  WriteOutcome,
} from '../../../../src/crd-revision/objects/outcome.ts';
import { asRecreated, withoutServerSetMetadata } from '../../../../src/crd-revision/objects/server-set-metadata.ts';
import { eventually } from '../../../../src/local-loop/eventually.ts';
import {
  revisionChangedPaths,
  withOneFieldChanged,
  withValueAt,
  type OneFieldChange,
} from '../../../../src/crd-revision/objects/one-field-changed.ts';
import type { Rest, RestResponse } from '../raw-api.ts';
import { applicableCrd, storageVersionOf, type Crd } from './crd.ts';
import type { CrdRevision } from './generate-revisions.ts';
import { inParallel } from './in-parallel.ts';

/** What the API server did with one revision: every object's outcome, as observed. */
export interface RevisionObservation {
  revision: CrdRevision;
  /** The objects as stored under the old revision (read back in its storage version): what a prediction starts from. */
  stored: KubeObject[];
  /** Objects the old revision refused to store (a sample breaking one of its CEL rules): left out, and counted. */
  notStored: Array<{ name: string; refused: Refusal }>;
  /** The API server refused the CRD update itself: the old revision goes on serving, and the outcomes are its. */
  revisionRefused?: Refusal;
  outcomes: StoredObjectOutcome[];
}

export interface ObserveOptions {
  /** A DNS label put before the CRD's group, unique to the case, so that cases run side by side. */
  groupPrefix: string;
  /** The label the label write adds. */
  label: { key: string; value: string };
  /** Requests at a time for the objects of this case. */
  parallel?: number;
  /**
   * The status and spec writes' changes, by object name, where another observation chose them (its revision's
   * fields, its schema): here the same field is set to the same value, or, where the object lacks that field, the
   * write is not made. By default each object's are chosen as crdgate's prediction chooses them.
   */
  oneFieldChanges?: ReadonlyMap<string, OneFieldChanges>;
}

/** The changes the status write and the spec write make to one object (absent: no such write). */
export interface OneFieldChanges {
  status?: Pick<OneFieldChange, 'segments' | 'new'>;
  spec?: Pick<OneFieldChange, 'segments' | 'new'>;
}

/**
 * A root field every version of both revisions gets, that no object holds, whose enum is the revision's name: a
 * dry-run create that sets it to the new revision's value is refused for it until the API server serves the new
 * revision, which no status of the CRD says.
 */
export const probeField = 'crdgateRevisionProbe';

/**
 * Installs `revision.old` under a group of the case's own, stores its objects, applies `revision.new`, waits until
 * the API server serves it, then observes each stored object as StoredObjectOutcome has it: a GET in every version
 * either revision serves; a PUT in the new storage version of what the GET there answered, unchanged, with a
 * label added, with one status value changed (to .../status where the version has a status subresource) and with
 * one spec value changed (dry runs, so each starts from the object as stored); then a real delete and a create of
 * that answer stripped as a re-sync from Git sends it. An object given with a status has it written through the
 * status subresource after its create, as an operator writes it. Outcomes name the CRD's own group, as the revision does. The CRD
 * is deleted at the end (its objects with it).
 */
export async function observeRevision(
  rest: Rest,
  revision: CrdRevision,
  namespace: string,
  options: ObserveOptions,
): Promise<RevisionObservation> {
  const group = `${options.groupPrefix}.${revision.old.spec.group}`;
  const parallel = options.parallel ?? 6;
  const old = withProbe(renamed(revision.old, group), 'old');
  const revised = withProbe(renamed(revision.new, group), 'new');
  const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${old.metadata.name}`;
  const paths = objectPaths(old, namespace);
  await send(rest, 'POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', old, [201]);
  try {
    // Served once its collection answers in every version the objects come in (that is what Established means).
    for (const version of new Set(revision.objects.map(versionOf))) {
      await eventually(
        `${old.metadata.name} to serve ${version}`,
        async () => ((await rest.send('GET', paths.collection(version))).status === 200 ? true : undefined),
        { timeoutMs: 60_000, intervalMs: 50 },
      );
    }
    const notStored: RevisionObservation['notStored'] = [];
    const oldStorage = storageVersionOf(old).name;
    const created = await inParallel(revision.objects, parallel, async (object) => {
      const inGroup = { ...structuredClone(object), apiVersion: `${group}/${versionOf(object)}` } as KubeObject;
      const name = String(inGroup.metadata?.name);
      const response = await rest.send('POST', paths.collection(versionOf(object)), inGroup);
      if (response.status !== 201) {
        notStored.push({ name, refused: refusalOf(response) });
        return undefined;
      }
      // A create drops the status where the version has a status subresource: the operator writes it there.
      const statusRefused = await writeStatus(
        rest,
        old,
        paths,
        versionOf(object),
        inGroup,
        response.body as KubeObject,
      );
      if (statusRefused) {
        notStored.push({ name, refused: statusRefused });
        await send(rest, 'DELETE', paths.object(versionOf(object), name), undefined, [200]);
        return undefined;
      }
      const read = await send(rest, 'GET', paths.object(oldStorage, name), undefined, [200]);
      return inOwnGroup(withoutServerSetMetadata(read.body as KubeObject), revision.old.spec.group);
    });
    const stored = created.filter((object): object is KubeObject => object !== undefined);
    // The API server's own controllers write the CRD's status in the meantime: a conflict is tried again.
    const update = await eventually(
      `${old.metadata.name} to take the new revision`,
      async () => {
        const current = (await send(rest, 'GET', crdPath, undefined, [200])).body as Crd & {
          metadata: { resourceVersion: string };
        };
        const response = await rest.send('PUT', crdPath, {
          ...revised,
          metadata: { ...revised.metadata, resourceVersion: current.metadata.resourceVersion },
        });
        return response.status === 409 ? undefined : response;
      },
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    const revisionRefused = update.status === 200 ? undefined : refusalOf(update);
    const serving = revisionRefused ? old : revised;
    if (!revisionRefused) await newRevisionServed(rest, serving, paths, namespace);
    const readVersions = [
      ...new Set(
        [...old.spec.versions, ...revised.spec.versions]
          .filter((version) => version.served)
          .map((version) => version.name),
      ),
    ];
    const newStorage = storageVersionOf(serving).name;
    const newSchema = storageVersionOf(serving).schema?.openAPIV3Schema;
    const statusSubresource = storageVersionOf(serving)['subresources'] as { status?: unknown } | undefined;
    const changedPaths = revisionChangedPaths(revision.old, revision.new);
    const outcomes = await inParallel(stored, parallel, async (object): Promise<StoredObjectOutcome> => {
      const name = String(object.metadata?.name);
      const reads: Record<string, ReadOutcome> = {};
      const answers = new Map<string, RestResponse>();
      for (const version of readVersions) {
        const response = await rest.send('GET', paths.object(version, name));
        answers.set(version, response);
        reads[version] =
          response.status === 200
            ? { object: inOwnGroup(withoutServerSetMetadata(response.body as KubeObject), revision.old.spec.group) }
            : { refused: refusalOf(response) };
      }
      const inStorage = answers.get(newStorage) ?? (await rest.send('GET', paths.object(newStorage, name)));
      const write = async (
        method: 'PUT' | 'POST',
        path: string,
        body: KubeObject,
        success: number,
      ): Promise<WriteOutcome> => {
        const response = await rest.send(method, path, body);
        return response.status === success
          ? {
              allowed: true,
              stored: inOwnGroup(withoutServerSetMetadata(response.body as KubeObject), revision.old.spec.group),
            }
          : { allowed: false, refused: refusalOf(response) };
      };
      if (inStorage.status !== 200) {
        const refused = refusalOf(inStorage);
        return {
          object: refOf(object),
          reads,
          unchangedWrite: { allowed: false, refused },
          labelWrite: { allowed: false, refused },
          recreate: { allowed: false, refused },
        };
      }
      const answered = inStorage.body as KubeObject;
      const unchangedWrite = await write('PUT', `${paths.object(newStorage, name)}?dryRun=All`, answered, 200);
      const labelWrite = await write(
        'PUT',
        `${paths.object(newStorage, name)}?dryRun=All`,
        withLabel(answered, options.label),
        200,
      );
      // The operator's status write and a user's spec write, each changing the value crdgate's prediction changes.
      const oneFieldWrites: Pick<StoredObjectOutcome, 'statusWrite' | 'specWrite'> = {};
      const given = options.oneFieldChanges?.get(name);
      const changeOf = (under: 'status' | 'spec') => {
        if (!options.oneFieldChanges) return withOneFieldChanged(answered, newSchema, under, changedPaths)?.object;
        const change = given?.[under];
        return change && withValueAt(answered, change.segments, change.new);
      };
      const statusChange = changeOf('status');
      if (statusChange) {
        const viaStatus = statusSubresource?.status !== undefined ? '/status' : '';
        oneFieldWrites.statusWrite = await write(
          'PUT',
          `${paths.object(newStorage, name)}${viaStatus}?dryRun=All`,
          statusChange,
          200,
        );
      }
      const specChange = changeOf('spec');
      if (specChange)
        oneFieldWrites.specWrite = await write('PUT', `${paths.object(newStorage, name)}?dryRun=All`, specChange, 200);
      await send(rest, 'DELETE', paths.object(newStorage, name), undefined, [200]);
      const recreate = await write('POST', paths.collection(newStorage), asRecreated(answered), 201);
      return { object: refOf(object), reads, unchangedWrite, labelWrite, ...oneFieldWrites, recreate };
    });
    return { revision, stored, notStored, ...(revisionRefused ? { revisionRefused } : {}), outcomes };
  } finally {
    await send(rest, 'DELETE', crdPath, undefined, [200, 404]);
  }
}

/**
 * The object's status, written as its operator writes it (PUT .../status) where the version it was created in has a
 * status subresource (the create dropped it); the refusal when the API server refuses it.
 */
async function writeStatus(
  rest: Rest,
  crd: Crd,
  paths: ObjectPaths,
  version: string,
  object: KubeObject,
  created: KubeObject,
): Promise<Refusal | undefined> {
  const subresources = crd.spec.versions.find((candidate) => candidate.name === version)?.['subresources'] as
    { status?: unknown } | undefined;
  if (object.status === undefined || subresources?.status === undefined) return undefined;
  // Right after the CRD is served, its status subresource may answer 503 a moment longer: tried again.
  const response = await eventually(
    `the status of ${String(created.metadata?.name)} to be written`,
    async () => {
      const answer = await rest.send('PUT', `${paths.object(version, String(created.metadata?.name))}/status`, {
        ...created,
        status: object.status,
      });
      return answer.status === 503 ? undefined : answer;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  return response.status === 200 ? undefined : refusalOf(response);
}

interface ObjectPaths {
  collection(version: string): string;
  object(version: string, name: string): string;
}

function objectPaths(crd: Crd, namespace: string): ObjectPaths {
  const scope = crd.spec.scope === 'Cluster' ? '' : `namespaces/${namespace}/`;
  const collection = (version: string) => `/apis/${crd.spec.group}/${version}/${scope}${crd.spec.names.plural}`;
  return { collection, object: (version, name) => `${collection(version)}/${encodeURIComponent(name)}` };
}

/**
 * Waits until a dry-run create in the new storage version is no longer refused for the probe field: from then on,
 * every request is served by the new revision (the API server's CRD handler swaps the whole revision at once).
 */
async function newRevisionServed(rest: Rest, revised: Crd, paths: ObjectPaths, namespace: string): Promise<void> {
  const version = storageVersionOf(revised).name;
  const probe = {
    apiVersion: `${revised.spec.group}/${version}`,
    kind: revised.spec.names.kind,
    metadata: { name: 'revision-probe', ...(revised.spec.scope === 'Cluster' ? {} : { namespace }) },
    [probeField]: 'new',
  };
  await eventually(
    `${revised.metadata.name}'s new revision to be served`,
    async () => {
      const response = await rest.send('POST', `${paths.collection(version)}?dryRun=All`, probe);
      if (response.status === 404) return undefined;
      return refusalOf(response).causes.some((cause) => cause.field === probeField) ? undefined : true;
    },
    { timeoutMs: 60_000, intervalMs: 50 },
  );
}

/** The CRD in a group of its own; a schema that holds apiVersion to the group's (an enum of it) follows. */
function renamed(crd: Crd, group: string): Crd {
  const copy = applicableCrd(crd);
  const before = copy.spec.group;
  copy.spec.group = group;
  copy.metadata.name = `${crd.spec.names.plural}.${group}`;
  for (const version of copy.spec.versions) {
    const apiVersion = version.schema?.openAPIV3Schema.properties?.['apiVersion'];
    if (apiVersion?.enum)
      apiVersion.enum = apiVersion.enum.map((value) =>
        typeof value === 'string' && value.startsWith(`${before}/`)
          ? `${group}/${value.slice(before.length + 1)}`
          : value,
      );
  }
  return copy;
}

function withProbe(crd: Crd, value: string): Crd {
  const copy = structuredClone(crd);
  for (const version of copy.spec.versions) {
    const schema = version.schema?.openAPIV3Schema;
    if (schema) schema.properties = { ...(schema.properties ?? {}), [probeField]: { type: 'string', enum: [value] } };
  }
  return copy;
}

function versionOf(object: KubeObject): string {
  return String(object.apiVersion).split('/').at(-1)!;
}

function inOwnGroup(object: KubeObject, group: string): KubeObject {
  return { ...object, apiVersion: `${group}/${versionOf(object)}` };
}

async function send(
  rest: Rest,
  method: string,
  path: string,
  body: unknown,
  expected: number[],
): Promise<RestResponse> {
  const response = await rest.send(method, path, body);
  if (!expected.includes(response.status))
    throw new Error(
      `${method} ${path}: HTTP ${response.status} (expected ${expected.join(' or ')}): ${response.text.slice(0, 500)}`,
    );
  return response;
}

/**
 * The Status the API server answered with: its code, and each cause's field and reason. A cause about no field
 * ("some validation rules were not checked") has the field `<nil>` on the wire, Go's rendering of a nil path: ''.
 */
export function refusalOf(response: RestResponse): Refusal {
  const status = response.body as { details?: { causes?: Array<{ field?: string; reason?: string }> } } | undefined;
  const causes = (status?.details?.causes ?? []).map((cause) => ({
    field: cause.field === '<nil>' ? '' : (cause.field ?? ''),
    type: (isFieldErrorType(cause.reason ?? '')
      ? cause.reason
      : `unknown reason ${cause.reason ?? ''}`) as FieldErrorType,
  }));
  return { code: response.status, causes };
}

function withLabel(object: KubeObject, label: { key: string; value: string }): KubeObject {
  return {
    ...object,
    metadata: { ...object.metadata, labels: { ...(object.metadata?.labels ?? {}), [label.key]: label.value } },
  } as KubeObject;
}

function refOf(object: KubeObject): StoredObjectOutcome['object'] {
  return {
    apiVersion: String(object.apiVersion),
    kind: String(object.kind),
    ...(object.metadata?.namespace ? { namespace: String(object.metadata.namespace) } : {}),
    name: String(object.metadata?.name),
  };
}
