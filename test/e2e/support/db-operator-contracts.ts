import { fileURLToPath } from 'node:url';
import {
  byDirection,
  byReleaseStep,
  cannotRead,
  compareQuantities,
  compareVersions,
  defineContract,
  fieldClassifier,
  fromCrd,
  parseVersion,
  readCrdFile,
  readInteger,
  readQuantity,
  readString,
  whenDifferent,
  type Contract,
  type KubeObject,
  type Fsa,
} from '../../../src/index.ts';

// Contracts for an imagined database operator's kinds (test/fixtures/crds/dbops.example.com-operator.yaml), whose
// CRDs its chart installs: crdgate guards them without owning them.

export const operatorCrdFile = fileURLToPath(
  new URL('../../fixtures/crds/dbops.example.com-operator.yaml', import.meta.url),
);

/** The release in an image's tag (`registry/pg:16.4-bookworm` is 16.4); a digest, or a tag with no number, cannot be read. */
export function readImageVersion(raw: unknown): readonly number[] | undefined | ReturnType<typeof cannotRead> {
  if (typeof raw !== 'string') return undefined;
  if (raw.includes('@')) return cannotRead('an image named by digest says nothing of its version');
  const tag = /:([^/:]+)$/.exec(raw)?.[1];
  const version = tag === undefined ? undefined : parseVersion(/^[0-9]+(\.[0-9]+)*/.exec(tag)?.[0] ?? '');
  return version ?? cannotRead(`the tag of ${raw} names no version`);
}

type ClusterState = 'Pending' | 'Ready' | 'Upgrading' | 'Scaling' | 'Failed' | 'Deleting';
type ClusterChange =
  'storage.grow' | 'storage.shrink' | 'postgres.minor' | 'postgres.major' | 'postgres.downgrade' | 'scale';

export const clusterMachine: Fsa<ClusterState, ClusterChange> = {
  name: 'DbCluster',
  subject: 'cluster',
  states: ['Pending', 'Ready', 'Upgrading', 'Scaling', 'Failed', 'Deleting'],
  initialState: 'Pending',
  steadyState: 'Ready',
  deletingState: 'Deleting',
  terminalStates: ['Deleting'],
  humanInterventionStates: ['Failed'],
  phasePath: 'status.phase',
  // The operator's own words.
  phases: {
    'Setting up primary': 'Pending',
    'Cluster in healthy state': 'Ready',
    'Upgrading cluster': 'Upgrading',
    'Scaling up': 'Scaling',
    'Cluster cannot proceed to reconciliation': 'Failed',
  },
  changeKinds: {
    'storage.grow': { description: 'growing storage from {from} to {to}' },
    'storage.shrink': { description: 'shrinking storage from {from} to {to}', unsupported: 'a volume cannot shrink' },
    'postgres.minor': { description: 'upgrading {from} to {to}', exclusive: true },
    'postgres.major': {
      description: 'a major upgrade from {from} to {to}',
      unsupported: 'the operator upgrades a major version by a new cluster, not by image tag',
    },
    'postgres.downgrade': {
      description: 'downgrading {from} to {to}',
      unsupported: 'the data directory cannot go back',
    },
    scale: { description: 'changing instances from {from} to {to}' },
  },
  rules: {
    Pending: { anyChange: true, operatorMoves: ['Ready', 'Failed'] },
    Ready: {
      allow: [
        { changes: ['storage.grow'] },
        { changes: ['postgres.minor'], next: 'Upgrading' },
        { changes: ['scale'], next: 'Scaling' },
      ],
      operatorMoves: ['Failed'],
    },
    Upgrading: { operatorMoves: ['Ready', 'Failed'] },
    Scaling: { allow: [{ changes: ['scale'] }], operatorMoves: ['Ready', 'Failed'] },
    Failed: {},
    Deleting: {},
  },
  overrideAnnotation: 'dbops.example.com/override-transitions',
  classifiers: [
    fieldClassifier({
      path: 'storage.size',
      read: readQuantity,
      compare: byDirection({ compare: compareQuantities, increase: 'storage.grow', decrease: 'storage.shrink' }),
    }),
    fieldClassifier({
      path: 'imageName',
      absentMeans: cannotRead(
        "an absent imageName is the operator's default image, whose version the contract cannot know",
      ),
      read: readImageVersion,
      compare: byReleaseStep({
        compare: compareVersions,
        upgrade: 'postgres.minor',
        major: 'postgres.major',
        downgrade: 'postgres.downgrade',
      }),
    }),
    fieldClassifier({ path: 'instances', read: readInteger, compare: whenDifferent('scale') }),
  ],
};

type PoolerState = 'Pending' | 'Ready' | 'Reconfiguring' | 'Deleting';
type PoolerChange = 'mode' | 'scale';

interface Condition {
  type?: unknown;
  status?: unknown;
}

/** The pooler's state is only in its conditions, and in how far the operator has got with the latest generation. */
export function poolerState(object: KubeObject): PoolerState | undefined | { unrecognised: string } {
  const status = object['status'] as { conditions?: Condition[]; observedGeneration?: number } | undefined;
  const ready = status?.conditions?.find((condition) => condition.type === 'Ready');
  if (ready === undefined) return undefined;
  if (typeof status?.observedGeneration === 'number' && status.observedGeneration < (object.metadata?.generation ?? 0))
    return 'Reconfiguring';
  if (ready.status === 'True') return 'Ready';
  if (ready.status === 'False') return 'Reconfiguring';
  return { unrecognised: `condition Ready is ${String(ready.status)}` };
}

export const poolerMachine: Fsa<PoolerState, PoolerChange> = {
  name: 'DbPooler',
  subject: 'pooler',
  states: ['Pending', 'Ready', 'Reconfiguring', 'Deleting'],
  initialState: 'Pending',
  deletingState: 'Deleting',
  terminalStates: ['Deleting'],
  humanInterventionStates: [],
  readState: poolerState,
  changeKinds: {
    mode: { description: 'switching the pool mode from {from} to {to}' },
    scale: { description: 'changing instances from {from} to {to}' },
  },
  rules: {
    Pending: { anyChange: true, operatorMoves: ['Ready'] },
    Ready: { allow: [{ changes: ['mode', 'scale'], next: 'Reconfiguring' }] },
    Reconfiguring: { operatorMoves: ['Ready'] },
    Deleting: {},
  },
  overrideAnnotation: 'dbops.example.com/override-transitions',
  classifiers: [
    fieldClassifier({ path: 'mode', read: readString, compare: whenDifferent('mode') }),
    fieldClassifier({ path: 'instances', absentMeans: 1, read: readInteger, compare: whenDifferent('scale') }),
  ],
};

/**
 * The pooler's machine with its state read as data: the rules say what poolerState says in code, so the policy floor
 * reads the state too (the rules test the first Ready condition's status, poolerState the first Ready condition's:
 * alike while the operator writes one Ready condition, as it does).
 */
export const declarativePoolerMachine: Fsa<PoolerState, PoolerChange> = {
  ...(({ readState: _readState, ...machine }) => machine)(poolerMachine),
  conditionStates: [
    { when: [{ condition: 'Ready', absent: true }], nothingRecorded: true },
    { when: [{ observedGeneration: 'behind' }], state: 'Reconfiguring' },
    { when: [{ condition: 'Ready', status: 'True' }], state: 'Ready' },
    { when: [{ condition: 'Ready', status: 'False' }], state: 'Reconfiguring' },
  ],
};

export function dbClusterContract(): Contract {
  const parts = fromCrd(readCrdFile(operatorCrdFile, { name: 'dbclusters.dbops.example.com' }), {
    crdOwner: 'external',
  });
  return defineContract({ ...parts, transitions: clusterMachine });
}

export function dbPoolerContract(): Contract {
  const parts = fromCrd(readCrdFile(operatorCrdFile, { name: 'dbpoolers.dbops.example.com' }), {
    crdOwner: 'external',
  });
  return defineContract({ ...parts, transitions: poolerMachine });
}

/**
 * DbPooler guarded by the machine that reads its state from conditionStates. The contract has no code of its own
 * (invariants, defaults, update rules), so it says that it reads no label, annotation or status: a write of those
 * never reaches crdgate.
 */
export function declarativeDbPoolerContract(): Contract {
  const parts = fromCrd(readCrdFile(operatorCrdFile, { name: 'dbpoolers.dbops.example.com' }), {
    crdOwner: 'external',
  });
  return defineContract({
    ...parts,
    transitions: declarativePoolerMachine,
    reads: { labels: [], annotations: [], status: false },
  });
}

/** Where the operator's own conversion webhook listens, and the CA its certificate is signed by. */
export interface OwnerConversion {
  url: string;
  caBundlePem: string;
}

/**
 * A later release of the operator's chart: DbCluster served in v1beta1 too (`spec.replicas` where v1 has
 * `spec.instances`), still stored in v1, converted by the operator's own webhook. `extraSpec` adds fields to the spec
 * of both versions, as a release that adds a setting does.
 */
export function dbClusterTwoVersionCrd(
  conversion?: OwnerConversion,
  extraSpec: Record<string, unknown> = {},
): Record<string, any> {
  const crd = structuredClone(readCrdFile(operatorCrdFile, { name: 'dbclusters.dbops.example.com' })) as Record<
    string,
    any
  >;
  crd['metadata'].annotations['helm.sh/chart'] = 'dbops-0.4.0';
  const v1 = crd['spec'].versions[0];
  Object.assign(v1.schema.openAPIV3Schema.properties.spec.properties, structuredClone(extraSpec));
  const v1beta1 = structuredClone(v1);
  v1beta1.name = 'v1beta1';
  v1beta1.storage = false;
  const spec = v1beta1.schema.openAPIV3Schema.properties.spec;
  const { instances, ...others } = spec.properties;
  spec.properties = { replicas: instances, ...others };
  spec.required = ['replicas'];
  v1beta1.subresources.scale.specReplicasPath = '.spec.replicas';
  crd['spec'].versions = [v1beta1, v1];
  crd['spec'].conversion = conversion
    ? {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: { url: conversion.url, caBundle: Buffer.from(conversion.caBundlePem).toString('base64') },
        },
      }
    : { strategy: 'None' };
  return crd;
}

/** The DbCluster contract on that release: both versions, the hub v1, the same machine. */
export function dbClusterTwoVersionContract(): Contract {
  return defineContract({
    ...fromCrd(dbClusterTwoVersionCrd(), { crdOwner: 'external' }),
    transitions: clusterMachine,
  });
}
