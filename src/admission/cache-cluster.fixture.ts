import {
  byDirection,
  compareNumbers,
  compareQuantities,
  defineContract,
  fieldClassifier,
  formatBinaryQuantity,
  parseQuantity,
  readInteger,
  readQuantity,
  specMappingConversion,
  staticDefault,
  type Contract,
  type Fsa,
  type JSONSchemaProps,
  type SpecMapping,
} from '../index.ts';
import { quantityToBigInt } from '../contract/values/quantity.ts';

// An operator's own kind in production at v1alpha1 (`memoryMB`, `nodes`) that gains v1 (`memory` as a quantity,
// `replicas` with a tighter bound, a `tls` block v1alpha1 cannot say), the hub: the case of issue 56. v1alpha1 keeps
// what it cannot show in the conversion annotation; its schema is its own, looser than the hub's, so that a bound only
// the hub has (replicas at most 9) is decided by crdgate's webhook alone.

export const cacheClusterGroup = 'cache.example.com';
const cacheClusterOverride = `${cacheClusterGroup}/override-transitions`;

export interface CacheClusterSpec {
  memory: string;
  replicas?: number;
  tls?: { enabled?: boolean };
}

interface CacheClusterSpecV1alpha1 {
  memoryMB: number;
  nodes?: number;
}

const status: JSONSchemaProps = {
  type: 'object',
  properties: { phase: { type: 'string', enum: ['Pending', 'Running', 'Upgrading'] } },
};

export const cacheClusterSchemaV1: JSONSchemaProps = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['memory'],
      properties: {
        memory: { type: 'string', format: 'quantity', maxLength: 32 },
        replicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 9 },
        tls: { type: 'object', properties: { enabled: { type: 'boolean' } } },
      },
    },
    status,
  },
};

export const cacheClusterSchemaV1alpha1: JSONSchemaProps = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['memoryMB'],
      properties: {
        memoryMB: { type: 'integer', format: 'int32', minimum: 1 },
        nodes: { type: 'integer', format: 'int32', minimum: 1, maximum: 50 },
      },
    },
    status,
  },
};

const mebibyte = 1024n * 1024n;

/** Whole MiB, rounded up: a cache is never smaller than asked. Undefined for what is no quantity. */
function memoryInMiB(memory: unknown): number | undefined {
  const quantity = typeof memory === 'string' ? parseQuantity(memory) : undefined;
  const bytes = quantity === undefined ? undefined : quantityToBigInt(quantity);
  if (bytes === undefined) return undefined;
  return Number((bytes + mebibyte - 1n) / mebibyte);
}

const v1alpha1Mapping: SpecMapping<CacheClusterSpec, CacheClusterSpecV1alpha1> = {
  down: ({ memory, replicas, tls, ...rest }) => {
    const memoryMB = memoryInMiB(memory);
    const spelled = memoryMB !== undefined && memory === `${memoryMB}Mi`;
    return {
      spec: {
        ...rest,
        ...(memoryMB === undefined ? {} : { memoryMB }),
        ...(replicas === undefined ? {} : { nodes: replicas }),
      } as CacheClusterSpecV1alpha1,
      lost: {
        ...(memory !== undefined && !spelled ? { memory } : {}),
        ...(tls === undefined ? {} : { tls }),
      },
    };
  },
  up: ({ memoryMB, nodes, ...rest }, lost) => {
    const stashed = lost?.['memory'];
    // The stashed spelling belongs to the size v1alpha1 shows; once that is edited, it is dropped.
    const memory =
      memoryMB === undefined
        ? undefined
        : stashed !== undefined && memoryInMiB(stashed) === memoryMB
          ? stashed
          : formatBinaryQuantity(BigInt(memoryMB) * mebibyte);
    return {
      ...rest,
      ...(memory === undefined ? {} : { memory }),
      ...(nodes === undefined ? {} : { replicas: nodes }),
      ...(lost?.['tls'] === undefined ? {} : { tls: lost['tls'] }),
    } as CacheClusterSpec;
  },
};

type CacheClusterState = 'Pending' | 'Running' | 'Upgrading' | 'Deleting';
type CacheClusterChange = 'memory.grow' | 'memory.shrink' | 'scale';

export const cacheClusterMachine: Fsa<CacheClusterState, CacheClusterChange> = {
  name: 'CacheCluster',
  subject: 'cachecluster',
  states: ['Pending', 'Running', 'Upgrading', 'Deleting'],
  initialState: 'Pending',
  steadyState: 'Running',
  deletingState: 'Deleting',
  terminalStates: ['Deleting'],
  humanInterventionStates: [],
  phasePath: 'status.phase',
  changeKinds: {
    'memory.grow': { description: 'growing memory from {from} to {to}' },
    'memory.shrink': {
      description: 'shrinking memory from {from} to {to}',
      unsupported: 'a running cache cannot give memory back',
    },
    scale: { description: 'changing replicas from {from} to {to}' },
  },
  rules: {
    Pending: { anyChange: true, operatorMoves: ['Running'] },
    Running: {
      allow: [{ changes: ['memory.grow', 'scale'] }],
      operatorMoves: ['Upgrading'],
      unclassifiedChanges: 'allowed',
    },
    // Nodes can be added mid-upgrade; anything else waits.
    Upgrading: { allow: [{ changes: ['scale'] }], operatorMoves: ['Running'], unclassifiedChanges: 'refused' },
    Deleting: {},
  },
  overrideAnnotation: cacheClusterOverride,
  unclassifiedChanges: 'refused-unless-overridden',
  classifiers: [
    fieldClassifier({
      path: 'memory',
      read: readQuantity,
      compare: byDirection({ compare: compareQuantities, increase: 'memory.grow', decrease: 'memory.shrink' }),
    }),
    fieldClassifier({
      path: 'replicas',
      absentMeans: 1,
      read: readInteger,
      compare: byDirection({ compare: compareNumbers, increase: 'scale', decrease: 'scale' }),
    }),
  ],
};

export interface CacheClusterOptions {
  /** The version objects are stored in: v1 unless given. */
  storage?: 'v1alpha1' | 'v1';
  /**
   * Where v1alpha1 is in its retirement (docs/migration.md's runbook): served (unless given), no longer served
   * (step 6), or gone from the contract with its conversion (step 7), which leaves v1 alone and no conversion.
   */
  v1alpha1?: 'served' | 'unserved' | 'retired';
  /** Another group, for a second CacheCluster beside the first: its annotations are in that group. */
  group?: string;
  hiddenFieldChanges?: 'refuse' | 'warn';
}

/** The CacheCluster of issue 56: v1alpha1 and v1 served, v1 the hub, stored in `storage`. */
export function cacheClusterContract(options: CacheClusterOptions = {}): Contract {
  const storage = options.storage ?? 'v1';
  const group = options.group ?? cacheClusterGroup;
  const v1alpha1 = options.v1alpha1 ?? 'served';
  if (v1alpha1 === 'retired' && storage === 'v1alpha1')
    throw new Error('cacheClusterContract: v1alpha1 cannot be retired while objects are stored in it');
  const v1alpha1Version = {
    name: 'v1alpha1',
    served: v1alpha1 === 'served',
    storage: storage === 'v1alpha1',
    schema: cacheClusterSchemaV1alpha1,
    subresources: { status: {} },
  };
  return defineContract<CacheClusterSpec>({
    identity: {
      group,
      kind: 'CacheCluster',
      plural: 'cacheclusters',
      singular: 'cachecluster',
      scope: 'Namespaced',
    },
    hub: 'v1',
    versions: [
      ...(v1alpha1 === 'retired' ? [] : [v1alpha1Version]),
      {
        name: 'v1',
        served: true,
        storage: storage === 'v1',
        schema: cacheClusterSchemaV1,
        subresources: { status: {} },
      },
    ],
    conversions:
      v1alpha1 === 'retired'
        ? {}
        : {
            v1alpha1: specMappingConversion({
              mapping: v1alpha1Mapping,
              hubToSpokePaths: { 'spec.memory': 'spec.memoryMB', 'spec.replicas': 'spec.nodes', 'spec.tls': null },
            }),
          },
    conversionAnnotation: `${group}/conversion-data`,
    ...(options.hiddenFieldChanges ? { hiddenFieldChanges: options.hiddenFieldChanges } : {}),
    defaults: [staticDefault('spec.tls', { enabled: false })],
    transitions: { ...cacheClusterMachine, overrideAnnotation: `${group}/override-transitions` },
    reads: { labels: [], annotations: [], status: false },
  }) as Contract;
}
