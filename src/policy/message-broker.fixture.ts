import {
  byDirection,
  byReleaseStep,
  compareNumbers,
  compareQuantities,
  compareVersions,
  defineContract,
  fieldClassifier,
  keyedListClassifier,
  metadataDeletionRule,
  parseVersion,
  readInteger,
  readQuantity,
  readString,
  whenDifferent,
  type Contract,
  type JSONSchemaProps,
  type Fsa,
} from '../index.ts';

// A second contract for the policy compiler, unlike the GeoDatabase in every way the compiler cares about: a
// cluster-scoped kind with a single version, its state at status.lifecycle.state (a free string, so a phase the
// machine does not know can be stored), two states that allow any change, a list keyed by something other than
// `name` and without absentMeans, exclusive changes inside list items, integer and quantity directions with an
// unsupported side, whenDifferent on a quantity and on a string, and a three-part release with absentMeans.
// Every classifier is built from the library's parts, so every kind of change compiles to the policy. metricsEnabled
// and plugins (a list of objects) are fields no change kind names: their changes are free while Running, refused
// mid-upgrade, and need the override in every other state that does not allow any change (and in a state the
// machine does not know); the policy compares both whole.

export type MessageBrokerState =
  | 'Pending'
  | 'Queued'
  | 'Provisioning'
  | 'Running'
  | 'Rebalancing'
  | 'Upgrading'
  | 'Degraded'
  | 'Failed'
  | 'Terminating';

export type MessageBrokerChange =
  | 'brokers.add'
  | 'brokers.remove'
  | 'release.upgrade'
  | 'release.major'
  | 'release.downgrade'
  | 'memory.change'
  | 'auth.change'
  | 'queue.add'
  | 'queue.remove'
  | 'queue.grow'
  | 'queue.shrink'
  | 'queue.retype';

export const messageBrokerGroup = 'messaging.example.com';
export const messageBrokerAnnotations = {
  overrideTransitions: `${messageBrokerGroup}/override-transitions`,
  protection: `${messageBrokerGroup}/protection`,
} as const;
/** The release a broker runs while spec.release is unset. */
export const defaultBrokerRelease = '3.13.0';

const quantity = (description: string): JSONSchemaProps => ({
  type: 'string',
  format: 'quantity',
  maxLength: 64,
  description,
});

export const messageBrokerSchemaV1: JSONSchemaProps = {
  type: 'object',
  description: 'A cluster of message brokers and the queues it serves.',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['brokers', 'resources'],
      properties: {
        brokers: {
          type: 'integer',
          format: 'int32',
          minimum: 1,
          maximum: 9,
          description: 'Broker nodes; they can be added, never removed.',
        },
        release: {
          type: 'string',
          pattern: '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$',
          maxLength: 32,
          description: `Broker release MAJOR.MINOR.PATCH; default ${defaultBrokerRelease}.`,
        },
        resources: {
          type: 'object',
          required: ['memory'],
          properties: { memory: quantity('Memory per broker; a change restarts every broker.') },
        },
        authMechanism: {
          type: 'string',
          maxLength: 64,
          description: 'SASL mechanism clients log in with; absent: anonymous.',
        },
        metricsEnabled: { type: 'boolean', description: 'Whether brokers export metrics; no change kind names it.' },
        plugins: {
          type: 'array',
          maxItems: 8,
          description: 'Plugins the brokers load, in order; no change kind names them.',
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string', maxLength: 64 }, settings: { type: 'string', maxLength: 256 } },
          },
        },
        queues: {
          type: 'array',
          maxItems: 12,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['queueName'],
          items: {
            type: 'object',
            required: ['queueName', 'maxBytes'],
            properties: {
              queueName: {
                type: 'string',
                pattern: '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$',
                maxLength: 64,
                description: 'Unique within the cluster.',
              },
              maxBytes: quantity('The most a queue holds; shrinking it drops the oldest messages.'),
              type: {
                type: 'string',
                enum: ['classic', 'quorum', 'stream'],
                maxLength: 16,
                description: 'Fixed when the queue is declared.',
              },
            },
          },
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        lifecycle: {
          type: 'object',
          properties: {
            // No enum: an operator newer than crdgate may record a state the machine does not know yet.
            state: { type: 'string', maxLength: 32 },
            observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
          },
        },
      },
    },
  },
};

const capacity = ['brokers.add', 'memory.change'] as const;
const queueChanges = ['queue.add', 'queue.remove', 'queue.grow', 'queue.shrink'] as const;

export const messageBrokerMachine: Fsa<MessageBrokerState, MessageBrokerChange> = {
  name: 'MessageBroker',
  subject: 'broker cluster',
  states: [
    'Pending',
    'Queued',
    'Provisioning',
    'Running',
    'Rebalancing',
    'Upgrading',
    'Degraded',
    'Failed',
    'Terminating',
  ],
  initialState: 'Pending',
  steadyState: 'Running',
  deletingState: 'Terminating',
  terminalStates: ['Terminating'],
  humanInterventionStates: ['Failed'],
  phasePath: 'status.lifecycle.state',
  changeKinds: {
    'brokers.add': { description: 'adding brokers ({from} -> {to})', exclusive: true },
    'brokers.remove': {
      description: 'removing brokers ({from} -> {to})',
      unsupported: 'a removed broker takes its partitions with it; drain it by hand first',
    },
    'release.upgrade': { description: 'upgrading {from} -> {to}', exclusive: true },
    'release.major': {
      description: 'major upgrade {from} -> {to}',
      unsupported: 'a major upgrade needs a blue-green migration',
    },
    'release.downgrade': {
      description: 'downgrading {from} -> {to}',
      unsupported: "brokers cannot read a newer release's log format",
    },
    'memory.change': { description: 'changing broker memory from {from} to {to}', exclusive: true },
    'auth.change': { description: 'changing the auth mechanism from {from} to {to}' },
    'queue.add': { description: 'declaring queue "{item}"' },
    'queue.remove': { description: 'deleting queue "{item}"' },
    'queue.grow': { description: 'raising the limit of queue "{item}" from {from} to {to}' },
    'queue.shrink': { description: 'lowering the limit of queue "{item}" from {from} to {to}', exclusive: true },
    'queue.retype': {
      description: 'changing the type of queue "{item}" from {from} to {to}',
      unsupported: 'a queue keeps the type it was declared with',
    },
  },
  rules: {
    Pending: { anyChange: true, operatorMoves: ['Queued', 'Provisioning', 'Failed'] },
    // Waiting for capacity: nothing has been created yet either.
    Queued: { anyChange: true, operatorMoves: ['Provisioning', 'Failed'] },
    Provisioning: { allow: [{ changes: ['queue.add', 'queue.grow'] }], operatorMoves: ['Running', 'Failed'] },
    Running: {
      allow: [
        { changes: capacity, next: 'Rebalancing' },
        { changes: ['release.upgrade'], next: 'Upgrading' },
        { changes: [...queueChanges, 'auth.change'] },
      ],
      operatorMoves: ['Degraded', 'Failed'],
      unclassifiedChanges: 'allowed',
    },
    Rebalancing: {
      allow: [{ changes: ['queue.add', 'queue.grow'] }],
      operatorMoves: ['Running', 'Degraded', 'Failed'],
    },
    Upgrading: { operatorMoves: ['Running', 'Degraded', 'Failed'], unclassifiedChanges: 'refused' },
    Degraded: {
      allow: [{ changes: capacity, next: 'Rebalancing' }, { changes: ['queue.remove'] }],
      operatorMoves: ['Running', 'Failed'],
    },
    Failed: {},
    Terminating: {},
  },
  overrideAnnotation: messageBrokerAnnotations.overrideTransitions,
  unclassifiedChanges: 'refused-unless-overridden',
  classifiers: [
    fieldClassifier({
      path: 'brokers',
      read: readInteger,
      compare: byDirection({ compare: compareNumbers, increase: 'brokers.add', decrease: 'brokers.remove' }),
    }),
    fieldClassifier({
      path: 'release',
      absentMeans: defaultBrokerRelease,
      read: parseVersion,
      compare: byReleaseStep({
        compare: compareVersions,
        upgrade: 'release.upgrade',
        major: 'release.major',
        downgrade: 'release.downgrade',
      }),
    }),
    fieldClassifier({ path: 'resources.memory', read: readQuantity, compare: whenDifferent('memory.change') }),
    fieldClassifier({ path: 'authMechanism', read: readString, compare: whenDifferent('auth.change') }),
    keyedListClassifier({
      path: 'queues',
      key: 'queueName',
      // No queues declared is no queues: declaring the first adds it. Without it, a list appearing is undecidable.
      absentMeans: [],
      added: 'queue.add',
      removed: 'queue.remove',
      itemClassifiers: [
        fieldClassifier({
          path: 'maxBytes',
          read: readQuantity,
          compare: byDirection({ compare: compareQuantities, increase: 'queue.grow', decrease: 'queue.shrink' }),
        }),
        fieldClassifier({ path: 'type', read: readString, compare: whenDifferent('queue.retype') }),
      ],
    }),
  ],
};

/** The MessageBroker contract: one version, cluster-scoped, its machine and a deletion lock, all data. */
export function messageBrokerContract(): Contract {
  return defineContract({
    identity: {
      group: messageBrokerGroup,
      kind: 'MessageBroker',
      listKind: 'MessageBrokerList',
      plural: 'messagebrokers',
      singular: 'messagebroker',
      scope: 'Cluster',
    },
    hub: 'v1',
    versions: [
      { name: 'v1', served: true, storage: true, schema: messageBrokerSchemaV1, subresources: { status: {} } },
    ],
    conversions: {},
    deletionRules: [metadataDeletionRule({ annotation: messageBrokerAnnotations.protection, equals: 'locked' })],
    transitions: messageBrokerMachine,
  });
}

/** As a `--contract` module (`crdgate check --contract src/policy/message-broker.fixture.ts`). */
export default messageBrokerContract;
