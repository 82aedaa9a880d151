import { isCrdObject } from '../check/crd-kinds.ts';
import { crdsByName } from '../check/crd-revisions.ts';
import type { ManifestContents, ManifestObject } from '../check/manifest-documents.ts';
import { visitManifestFiles, ManifestReadError, type TreeSource } from '../check/read-manifest-tree.ts';
import { describeInvalid } from '../check/report-summary.ts';
import {
  createStoredObjectsJudge,
  crdSpecChanged,
  owningContract,
  type StoredObjectsCrd,
  type StoredObjectsCrdReport,
  type StoredObjectsReport,
  type StoredObjectsSource,
} from '../check/stored-objects.ts';
import { isPlainObject, splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import type { RuleSettings } from '../crd-revision/rule-config.ts';
import { CommandError } from '../errors.ts';
import { renderCustomResourceDefinition } from '../render/custom-resource-definition.ts';

export interface StoredObjectsInput {
  /** The new side's CRDs: the tree's and --crd's. */
  crdManifests: readonly ManifestObject[];
  oldTree: ManifestContents | undefined;
  /** --stored paths. */
  storedPaths: readonly string[];
  source: TreeSource;
  namespace?: string;
  /** --crd-rules: what the stored-object rules are set to. */
  settings?: RuleSettings;
  /**
   * With --from-cluster: hands every live object of a CRD whose spec changed to `judge` (a page at a time, so memory
   * stays flat), within its bounds; whether it listed them all.
   */
  visitLiveObjects?: (crd: StoredObjectsCrd, judge: (object: KubeObject) => void) => Promise<{ complete: boolean }>;
}

// The rendered CRD's conversion endpoint: never called, the engine converts nothing itself.
const placeholderEndpoint = { target: { url: 'https://crdgate.invalid' } };

/**
 * `check`'s stored objects: the old tree's objects of every CRD whose spec changed, then every object of the
 * --stored paths (one file at a time), each put through its CRD's new revision. Undefined when there was nothing
 * to judge and no --stored: the report then is what it was before stored objects were judged.
 */
export async function judgeStoredObjects(
  registry: ContractRegistry,
  input: StoredObjectsInput,
): Promise<StoredObjectsReport | undefined> {
  const newCrds = crdsByName({ objects: input.crdManifests });
  const oldCrds = crdsByName({ objects: input.oldTree?.objects ?? [] });
  const changed: StoredObjectsCrd[] = [];
  const all: StoredObjectsCrd[] = [];
  for (const [name, now] of newCrds) {
    const old = oldCrds.get(name);
    const crd: StoredObjectsCrd = {
      name,
      new: now.object,
      old: old?.object ?? now.object,
      location: now.location,
      ...(old ? { oldLocation: old.location } : {}),
      ...contractOf(registry, now.object),
    };
    all.push(crd);
    if (old && crdSpecChanged(old.object, now.object)) changed.push(crd);
  }
  // A kind crdgate owns needs no CRD in the tree: its contract renders the one the cluster has.
  for (const compiled of registry.contracts) {
    const contract = owningContract(compiled.contract);
    const { group, plural } = compiled.contract.identity;
    if (contract === undefined || newCrds.has(`${plural}.${group}`)) continue;
    const rendered = renderCustomResourceDefinition(contract, placeholderEndpoint);
    all.push({ name: `${plural}.${group}`, new: rendered, old: rendered, contract });
  }
  const oldObjects = (input.oldTree?.objects ?? []).filter(
    ({ object }) => !isCrdObject(object) && changed.some((crd) => declares(crd, object.apiVersion, object.kind)),
  );
  const live = input.visitLiveObjects;
  if (oldObjects.length === 0 && input.storedPaths.length === 0 && (live === undefined || changed.length === 0))
    return undefined;

  const options = {
    ...(input.namespace ? { namespace: input.namespace } : {}),
    ...(input.settings ? { settings: input.settings } : {}),
  };
  const fromOldTree = createStoredObjectsJudge(changed, options);
  for (const { object } of oldObjects) fromOldTree.judge(object);
  const fromCluster = createStoredObjectsJudge(changed, options);
  for (const crd of live ? changed : []) {
    const { complete } = await live!(crd, (object) => fromCluster.judge(object));
    fromCluster.listed(crd, complete);
  }
  const fromStored = createStoredObjectsJudge(all, options);
  try {
    await visitManifestFiles(input.storedPaths, input.source, (contents) => {
      const [invalid] = contents.invalid;
      if (invalid) throw new CommandError('INPUT_INVALID', `--stored ${describeInvalid({ ...invalid, tree: 'new' })}`);
      for (const { object } of contents.objects) if (!isCrdObject(object)) fromStored.judge(object);
    });
  } catch (error) {
    if (error instanceof ManifestReadError) throw new CommandError('INPUT_INVALID', `--stored ${error.message}`);
    throw error;
  }
  const [a, c, b] = [fromOldTree.report(), fromCluster.report(), fromStored.report()];
  const from = (source: StoredObjectsSource) => (crd: StoredObjectsCrdReport) => ({ ...crd, source });
  return {
    crds: [...a.crds.map(from('old-tree')), ...c.crds.map(from('cluster')), ...b.crds.map(from('stored'))],
    unmatched: b.unmatched,
  };
}

function contractOf(registry: ContractRegistry, crd: unknown): Pick<StoredObjectsCrd, 'contract'> {
  const spec = isPlainObject(crd) && isPlainObject(crd.spec) ? crd.spec : {};
  const kind = isPlainObject(spec.names) ? spec.names.kind : undefined;
  const contract = owningContract(registry.lookup(String(spec.group), String(kind))?.contract);
  return contract ? { contract } : {};
}

function declares(crd: StoredObjectsCrd, apiVersion: unknown, kind: unknown): boolean {
  const spec = isPlainObject(crd.new) && isPlainObject(crd.new.spec) ? crd.new.spec : {};
  return (
    spec.group === splitApiVersion(String(apiVersion)).group && isPlainObject(spec.names) && spec.names.kind === kind
  );
}
