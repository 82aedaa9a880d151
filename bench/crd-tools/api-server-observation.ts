import { isPlainObject } from '../../src/contract/values/kube-object.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import type { ApiServerClient } from '../support/api-server-client.ts';
import type { ObjectEffects } from './object-effects.ts';

// What kube-apiserver does to stored objects when a CRD revision is applied, observed on a real one: the oracle the
// comparison of CRD checkers is scored against. The old CRD is created, the objects stored under it and read back
// (what every checker is then given), the new CRD is applied, and each object is read in every version the new CRD
// serves, written back unchanged and with a label added (dry runs, so every step starts from the same stored object),
// then deleted and created again from what the read answered.

export const OBSERVATION_NAMESPACE = 'crd-tools';

export interface ObservedEffects extends ObjectEffects {
  /** The API server refuses the new CRD as written, even as a first create: not a revision anyone could apply. */
  invalidRevision?: string;
  /** The API server refused the new CRD itself (nothing else was tried). */
  crdRefused?: string;
  /** Objects stored under the old CRD (of those given; the others it refused). */
  stored: number;
  /** A first example of each effect: object, then what. */
  examples: string[];
}

export function hasEffect(effects: ObservedEffects): boolean {
  return (
    effects.crdRefused !== undefined ||
    effects.dropped +
      effects.defaulted +
      effects.readRefused +
      effects.unchangedWriteRefused +
      effects.labelWriteRefused +
      effects.recreateRefused >
      0
  );
}

type Json = Record<string, unknown>;

interface CrdNames {
  name: string;
  group: string;
  plural: string;
  namespaced: boolean;
  storageVersion: string;
  servedVersions: string[];
}

function namesOf(crd: Json): CrdNames {
  const spec = crd.spec as Json;
  const versions = (spec.versions as Json[]).filter(isPlainObject);
  return {
    name: String((crd.metadata as Json).name),
    group: String(spec.group),
    plural: String((spec.names as Json).plural),
    namespaced: spec.scope !== 'Cluster',
    storageVersion: String(versions.find((version) => version.storage === true)?.name),
    servedVersions: versions.filter((version) => version.served === true).map((version) => String(version.name)),
  };
}

function collectionPath(names: CrdNames, version: string): string {
  return `/apis/${names.group}/${version}${names.namespaced ? `/namespaces/${OBSERVATION_NAMESPACE}` : ''}/${names.plural}`;
}

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** What the API server alone sets on an object: left out when reads are compared and before a re-create. */
function withoutServerFields(object: Json): Json {
  const copy = structuredClone(object);
  const metadata = copy.metadata as Json;
  for (const key of ['uid', 'resourceVersion', 'creationTimestamp', 'generation', 'managedFields'])
    delete metadata[key];
  return copy;
}

/**
 * Stores `objects` under `oldCrd`, then applies `newCrd` and observes. Returns the objects as the API server
 * served them under the old CRD (what the checkers judge) with what it then did. Leaves no CRD behind.
 */
export async function observeRevision(
  api: ApiServerClient,
  oldCrd: Json,
  newCrd: Json,
  objects: readonly Json[],
): Promise<{ served: Json[]; effects: ObservedEffects }> {
  const names = namesOf(oldCrd);
  const effects: ObservedEffects = {
    stored: 0,
    dropped: 0,
    defaulted: 0,
    readRefused: 0,
    unchangedWriteRefused: 0,
    labelWriteRefused: 0,
    recreateRefused: 0,
    examples: [],
  };
  const example = (what: string) => {
    if (effects.examples.length < 6) effects.examples.push(what);
  };
  const asFirstCreate = await api.call('POST', `${CRDS}?dryRun=All`, newCrd);
  if (asFirstCreate.status !== 201) {
    effects.invalidRevision = `HTTP ${asFirstCreate.status}: ${String((JSON.parse(asFirstCreate.body.toString('utf8')) as Json).message ?? '')}`;
    return { served: [], effects };
  }
  await api.json('POST', CRDS, oldCrd);
  try {
    await waitEstablished(api, names.name);
    const served: Json[] = [];
    for (const given of objects) {
      const version = String(given.apiVersion).split('/')[1] ?? '';
      if (!names.servedVersions.includes(version)) continue;
      const body = structuredClone(given);
      // Without finalizers: no controller runs here to remove them, and they would hold the CRD's deletion forever.
      const { finalizers: _finalizers, ownerReferences: _owners, ...metadata } = (body.metadata ?? {}) as Json;
      body.metadata = { ...metadata, ...(names.namespaced ? { namespace: OBSERVATION_NAMESPACE } : {}) };
      if (!names.namespaced) delete (body.metadata as Json).namespace;
      // The CRD is established a moment before its resource is served.
      const created = await eventually(`${names.plural} to be served`, async () => {
        const answer = await api.call('POST', collectionPath(names, version), body);
        return answer.status === 404 ? undefined : answer;
      });
      if (created.status !== 201) continue;
      const name = String((JSON.parse(created.body.toString('utf8')) as { metadata: Json }).metadata.name);
      served.push(await api.json<Json>('GET', `${collectionPath(names, names.storageVersion)}/${name}`));
    }
    effects.stored = served.length;

    const current = await api.json<Json>('GET', `${CRDS}/${names.name}`);
    const update = {
      ...structuredClone(newCrd),
      metadata: { ...(newCrd.metadata as Json), resourceVersion: (current.metadata as Json).resourceVersion },
      status: current.status,
    };
    const updated = await api.call('PUT', `${CRDS}/${names.name}`, update);
    if (updated.status !== 200) {
      effects.crdRefused = `HTTP ${updated.status}: ${String((JSON.parse(updated.body.toString('utf8')) as Json).message ?? '')}`;
      return { served, effects };
    }
    const newNames = namesOf(newCrd);
    await waitForRevision(api, newNames);
    // Clients of a version the revision stops serving read it too (and get 404).
    const readVersions = [...new Set([...names.servedVersions, ...newNames.servedVersions])];
    for (const before of served) await observeObject(api, newNames, readVersions, before, effects, example);
    return { served, effects };
  } finally {
    await deleteCrd(api, names.name);
  }
}

async function observeObject(
  api: ApiServerClient,
  names: CrdNames,
  readVersions: readonly string[],
  before: Json,
  effects: ObservedEffects,
  example: (what: string) => void,
): Promise<void> {
  const name = String((before.metadata as Json).name);
  let storageRead: Json | undefined;
  let readRefused = false;
  for (const version of readVersions) {
    const answer = await api.call('GET', `${collectionPath(names, version)}/${name}`);
    if (answer.status !== 200) {
      readRefused = true;
      example(`${name}: GET in ${version} answered ${answer.status}`);
      continue;
    }
    if (version === names.storageVersion) storageRead = JSON.parse(answer.body.toString('utf8')) as Json;
  }
  if (readRefused) effects.readRefused++;
  // An old version no longer served: the read in it is refused, and the storage version's read shows the rest.
  if (!storageRead) return;
  const { removed, added } = differences(withoutServerFields(before), withoutServerFields(storageRead));
  if (removed.length > 0) {
    effects.dropped++;
    example(`${name}: read without ${removed.slice(0, 3).join(', ')}`);
  }
  if (added.length > 0) {
    effects.defaulted++;
    example(`${name}: read with ${added.slice(0, 3).join(', ')}`);
  }
  const objectPath = `${collectionPath(names, names.storageVersion)}/${name}`;
  const unchanged = await api.call('PUT', `${objectPath}?dryRun=All`, storageRead);
  if (unchanged.status !== 200) {
    effects.unchangedWriteRefused++;
    example(`${name}: unchanged PUT answered ${unchanged.status}`);
  }
  const labelled = structuredClone(storageRead);
  const metadata = labelled.metadata as Json;
  metadata.labels = { ...(metadata.labels as Json | undefined), 'crdgate.dev/touched': 'true' };
  const touched = await api.call('PUT', `${objectPath}?dryRun=All`, labelled);
  if (touched.status !== 200) {
    effects.labelWriteRefused++;
    example(`${name}: PUT with a label answered ${touched.status}`);
  }
  await api.json('DELETE', objectPath);
  await eventually(`${name} to be deleted`, async () =>
    (await api.call('GET', objectPath)).status === 404 ? true : undefined,
  );
  const recreated = await api.call(
    'POST',
    collectionPath(names, names.storageVersion),
    withoutServerFields(storageRead),
  );
  if (recreated.status !== 201) {
    effects.recreateRefused++;
    example(`${name}: re-create answered ${recreated.status}`);
  }
}

/** Field paths only in `before` (removed) and those only in `after` or with another value there (added). */
function differences(before: unknown, after: unknown, path = ''): { removed: string[]; added: string[] } {
  if (isPlainObject(before) && isPlainObject(after)) {
    const removed: string[] = [];
    const added: string[] = [];
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      const childPath = path ? `${path}.${key}` : key;
      if (!(key in after)) removed.push(childPath);
      else if (!(key in before)) added.push(childPath);
      else {
        const child = differences(before[key], after[key], childPath);
        removed.push(...child.removed);
        added.push(...child.added);
      }
    }
    return { removed, added };
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    const all = before.map((item, index) => differences(item, after[index], `${path}[${index}]`));
    return { removed: all.flatMap((child) => child.removed), added: all.flatMap((child) => child.added) };
  }
  return JSON.stringify(before) === JSON.stringify(after) ? { removed: [], added: [] } : { removed: [], added: [path] };
}

async function waitEstablished(api: ApiServerClient, name: string): Promise<void> {
  await eventually(`${name} to be established`, async () => {
    const read = await api.json<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(
      'GET',
      `${CRDS}/${name}`,
    );
    return read.status?.conditions?.some((condition) => condition.type === 'Established' && condition.status === 'True')
      ? true
      : undefined;
  });
}

// The API server swaps a CRD's handler a moment after the update is stored. A read answers with the new revision once
// the discovery document lists exactly the versions it serves; a further pause covers a schema-only change, which
// discovery does not show.
const HANDLER_SWAP_MS = 1_500;

async function waitForRevision(api: ApiServerClient, names: CrdNames): Promise<void> {
  await eventually(`${names.name}'s new revision to be served`, async () => {
    const group = await api.json<{ versions: Array<{ version: string }> }>('GET', `/apis/${names.group}`);
    const listed = group.versions.map((version) => version.version).sort();
    return JSON.stringify(listed) === JSON.stringify([...names.servedVersions].sort()) ? true : undefined;
  });
  await new Promise((resolve) => setTimeout(resolve, HANDLER_SWAP_MS));
}

async function deleteCrd(api: ApiServerClient, name: string): Promise<void> {
  await api.call('DELETE', `${CRDS}/${name}`);
  await eventually(
    `${name} to be deleted`,
    async () => ((await api.call('GET', `${CRDS}/${name}`)).status === 404 ? true : undefined),
    { timeoutMs: 120_000 },
  );
}
