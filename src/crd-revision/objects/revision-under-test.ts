import {
  CrdUnservableError,
  forgetCompiledCrd,
  forgetCrd,
  loadCrd,
  type EngineCrd,
} from '../../api-server-engine/engine.ts';
import type { FieldError } from '../../contract/values/field-error.ts';
import { isPlainObject } from '../../contract/values/kube-object.ts';
import { viewCrd, type CrdView } from '../crd-view.ts';
import { revisionChangedPaths } from './one-field-changed.ts';
import type { Refusal } from './outcome.ts';

/**
 * One side of a CRD revision, compiled for reading and writing stored objects. The API server keeps a structural
 * schema for every version of a CRD, served or not, and reads a stored object in the version it is stored in
 * (pruned and defaulted there) before converting it; the engine compiles served versions only, so the CRD is
 * compiled with every version served (`reading`), and once more without any default (`pruning`), for the step
 * after a conversion, where the API server prunes in the target version's schema but does not default.
 */
export interface RevisionSide {
  /** The CRD as given. */
  source: unknown;
  crd: CrdView;
  group: string;
  kind: string;
  /** Every version of the CRD, served or not, in its order. */
  versions: string[];
  served: string[];
  storage: string | undefined;
  /** spec.conversion.strategy: None unless Webhook. */
  conversion: 'None' | 'Webhook';
  reading: EngineCrd;
  pruning: EngineCrd;
}

/** A revision of a CRD about to be applied, as the prediction of its stored objects needs it. */
export interface CrdRevisionUnderTest {
  /** metadata.name of the CRD: `plural.group`. */
  name: string;
  old: RevisionSide;
  new: RevisionSide;
  /**
   * The versions objects may be stored in under the old revision: status.storedVersions when known (a CRD read
   * from a cluster), else the old storage version alone (the only one crdgate can name; see `storedVersionsKnown`).
   */
  storedVersions: string[];
  storedVersionsKnown: boolean;
  /**
   * The API server's answer to the CRD update itself when it refuses it: the new revision is a CRD it refuses
   * (a rule that does not compile, a schema that is not structural), or a version in status.storedVersions (the
   * old storage version always is) is missing from it. The old revision then goes on serving.
   */
  updateRefusal?: Refusal;
  /** The fields whose rules the revision changes (revisionChangedPaths): what a spec or status write leaves alone. */
  changedPaths: string[];
}

export interface RevisionOptions {
  /** status.storedVersions of the live CRD, when known; by default the old CRD's own status, if it has one. */
  storedVersions?: readonly string[];
}

/**
 * Compiles both revisions of a CRD (apiextensions.k8s.io/v1, as parsed) for predicting what happens to its stored
 * objects. Throws what loadCrd throws for a side it cannot read objects through: EngineUnavailableError,
 * CrdUnservableError for a schema that is not structural (of the new revision, that is also its updateRefusal).
 */
export function prepareCrdRevision(
  oldCrd: unknown,
  newCrd: unknown,
  options: RevisionOptions = {},
): CrdRevisionUnderTest {
  const old = revisionSide(oldCrd);
  const now = revisionSide(newCrd);
  const listed = options.storedVersions ?? old.crd.storedVersions;
  const storedVersionsKnown = listed.length > 0;
  // The API server adds the storage version to storedVersions whenever it changes, so the old one is always there.
  const storedVersions = [...new Set([...listed, ...(old.storage === undefined ? [] : [old.storage])])];
  const missing = storedVersions
    .map((version, index) => ({ version, index }))
    .filter(({ version }) => !now.versions.includes(version));
  const causes = [
    ...crdRefusal(newCrd),
    ...immutableFieldChanges(old, now),
    ...missing.map(({ index }) => ({ field: `status.storedVersions[${index}]`, type: 'FieldValueInvalid' as const })),
  ];
  const metadata = isPlainObject(newCrd) && isPlainObject(newCrd.metadata) ? newCrd.metadata : {};
  return {
    name: typeof metadata.name === 'string' ? metadata.name : `${now.crd.names.plural}.${now.group}`,
    old,
    new: now,
    storedVersions,
    storedVersionsKnown,
    changedPaths: revisionChangedPaths(oldCrd, newCrd),
    ...(causes.length > 0 ? { updateRefusal: { code: 422, causes } } : {}),
  };
}

/** Drops both revisions' compiled CRDs from the engine (see forgetCrd): for whoever prepares revisions without end. */
export function releaseCrdRevision(revision: CrdRevisionUnderTest): void {
  for (const side of [revision.old, revision.new]) {
    forgetCrd(side.reading);
    forgetCrd(side.pruning);
  }
  // Compiled as given, for kube-apiserver's answer to the CRD update.
  forgetCompiledCrd(revision.new.source);
}

/**
 * What kube-apiserver's CRD update validation holds immutable: the group and plural (they make the CRD's name),
 * and, once the CRD is established (a CRD objects are stored under always is), the scope and the kind, since
 * they decide where and how objects are stored.
 */
function immutableFieldChanges(old: RevisionSide, now: RevisionSide): Refusal['causes'] {
  const fields: Array<[string, unknown, unknown]> = [
    ['spec.scope', old.crd.scope, now.crd.scope],
    ['spec.names.kind', old.kind, now.kind],
    ['spec.group', old.group, now.group],
    ['spec.names.plural', old.crd.names.plural, now.crd.names.plural],
  ];
  return fields
    .filter(([, before, after]) => before !== after)
    .map(([field]) => ({ field, type: 'FieldValueInvalid' as const }));
}

/** What kube-apiserver would refuse the new revision for as a CRD of its own (a rule that does not compile, say). */
function crdRefusal(crd: unknown): Refusal['causes'] {
  let refusal: readonly FieldError[];
  try {
    refusal = loadCrd(crd).refusal;
  } catch (error) {
    if (!(error instanceof CrdUnservableError)) throw error;
    refusal = error.refusal;
  }
  return refusal.map(({ field, type }) => ({ field, type }));
}

function revisionSide(crd: unknown): RevisionSide {
  const view = viewCrd(crd);
  const spec = isPlainObject(crd) && isPlainObject(crd.spec) ? crd.spec : {};
  return {
    source: crd,
    crd: view,
    group: typeof spec.group === 'string' ? spec.group : '',
    kind: typeof view.names.kind === 'string' ? view.names.kind : '',
    versions: view.versions.map((version) => version.name),
    served: view.versions.filter((version) => version.served).map((version) => version.name),
    storage: view.versions.find((version) => version.storage)?.name,
    conversion: view.conversion.strategy === 'Webhook' ? 'Webhook' : 'None',
    reading: loadCrd(everyVersionServed(crd, false)),
    pruning: loadCrd(everyVersionServed(crd, true)),
  };
}

/**
 * The CRD with every version served, and optionally without defaults. A default taken away leaves its field
 * nullable, so that a null the API server would keep for its default (PruneNonNullableNullsWithoutDefaults spares
 * it) is kept here too, not pruned.
 */
function everyVersionServed(crd: unknown, withoutDefaults: boolean): unknown {
  if (!isPlainObject(crd) || !isPlainObject(crd.spec) || !Array.isArray(crd.spec.versions)) return crd;
  const versions = crd.spec.versions.map((version: unknown) => {
    if (!isPlainObject(version)) return version;
    const schema =
      withoutDefaults && isPlainObject(version.schema)
        ? { ...version.schema, openAPIV3Schema: defaultsRemoved(version.schema.openAPIV3Schema) }
        : version.schema;
    return { ...version, served: true, ...(schema === undefined ? {} : { schema }) };
  });
  // The conversion webhook is never called by the engine; None keeps a CRD without a webhook endpoint valid.
  return { ...crd, spec: { ...crd.spec, versions, conversion: { strategy: 'None' } } };
}

function defaultsRemoved(schema: unknown): unknown {
  if (!isPlainObject(schema)) return schema;
  const { default: defaultValue, properties, additionalProperties, items, ...rest } = schema;
  return {
    ...rest,
    ...(properties === undefined
      ? {}
      : {
          properties: isPlainObject(properties)
            ? Object.fromEntries(Object.entries(properties).map(([name, child]) => [name, defaultsRemoved(child)]))
            : properties,
        }),
    ...(additionalProperties === undefined ? {} : { additionalProperties: defaultsRemoved(additionalProperties) }),
    ...(items === undefined ? {} : { items: defaultsRemoved(items) }),
    ...(defaultValue === undefined ? {} : { nullable: true }),
  };
}
