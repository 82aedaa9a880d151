import { type Contract } from '../contract-definition.ts';
import { defineContract } from '../define-contract.ts';
import { compareQuantities } from '../values/quantity.ts';
import { quantitySchema } from '../schema/controller-gen.fixture.ts';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { compareNumbers } from './classifier-form.ts';
import { byDirection, whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';
import { keyedListClassifier } from './keyed-list-classifier.ts';
import type { Fsa } from './machine.ts';
import { readInteger, readQuantity, readString } from './value-readers.ts';

// An operator's node pool, shaped as controller-gen renders Go types (written for crdgate's tests): storage volumes
// in a map list keyed by an integer id, as Strimzi's KafkaNodePool keys its JBOD volumes; sizes and memory as
// resource.Quantity (int-or-string with a pattern, so 1024 is as good as "1Ki"); listeners keyed by two fields. The
// lists and strings are bounded, so the policy floor compiles what it can of them (not the int-or-string quantities).
// Issue 40 found keyed lists of integer ids and quantities written as integers classified as no change at all.

export const nodePoolSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['replicas', 'storage'],
      properties: {
        replicas: { type: 'integer', format: 'int32', minimum: 0 },
        resources: {
          type: 'object',
          properties: {
            requests: { type: 'object', additionalProperties: quantitySchema },
            limits: { type: 'object', additionalProperties: quantitySchema },
          },
        },
        storage: {
          type: 'object',
          required: ['type'],
          properties: {
            type: { type: 'string', enum: ['jbod', 'ephemeral', 'persistent-claim'] },
            volumes: {
              type: 'array',
              maxItems: 8,
              'x-kubernetes-list-type': 'map',
              'x-kubernetes-list-map-keys': ['id'],
              items: {
                type: 'object',
                required: ['id', 'type'],
                properties: {
                  id: { type: 'integer', minimum: 0 },
                  type: { type: 'string', enum: ['ephemeral', 'persistent-claim'] },
                  size: quantitySchema,
                  class: { type: 'string', maxLength: 63 },
                  deleteClaim: { type: 'boolean' },
                },
              },
            },
          },
        },
        listeners: {
          type: 'array',
          maxItems: 4,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name', 'port'],
          items: {
            type: 'object',
            required: ['name', 'port'],
            properties: {
              name: { type: 'string', pattern: '^[a-z0-9]{1,11}$', maxLength: 11 },
              port: { type: 'integer', minimum: 9092, maximum: 65535 },
              tls: { type: 'boolean' },
              type: { type: 'string', maxLength: 16 },
            },
          },
        },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

type State = 'Pending' | 'Ready' | 'RollingUpdate' | 'NotReady' | 'Deleting';
type Change =
  | 'scale'
  | 'memory'
  | 'volume.add'
  | 'volume.remove'
  | 'volume.grow'
  | 'volume.shrink'
  | 'volume.retype'
  | 'volume.reclass'
  | 'listener.add'
  | 'listener.remove'
  | 'listener.retype';

export const nodePoolMachine: Fsa<State, Change> = {
  name: 'NodePool',
  subject: 'node pool',
  states: ['Pending', 'Ready', 'RollingUpdate', 'NotReady', 'Deleting'],
  initialState: 'Pending',
  steadyState: 'Ready',
  deletingState: 'Deleting',
  terminalStates: ['Deleting'],
  humanInterventionStates: ['NotReady'],
  phasePath: 'status.phase',
  changeKinds: {
    scale: { description: 'changing replicas from {from} to {to}' },
    memory: { description: 'changing memory from {from} to {to}' },
    'volume.add': { description: 'adding volume {item}' },
    'volume.remove': { description: 'removing volume {item}', unsupported: 'its data would be lost' },
    'volume.grow': { description: 'growing volume {item} from {from} to {to}' },
    'volume.shrink': {
      description: 'shrinking volume {item} from {from} to {to}',
      unsupported: 'a volume cannot shrink',
    },
    'volume.retype': {
      description: 'changing the type of volume {item} from {from} to {to}',
      unsupported: 'a volume keeps its type',
    },
    'volume.reclass': {
      description: 'changing the class of volume {item} from {from} to {to}',
      unsupported: 'a volume keeps its class',
    },
    'listener.add': { description: 'adding listener {item}' },
    'listener.remove': { description: 'removing listener {item}' },
    'listener.retype': { description: 'changing listener {item} from {from} to {to}' },
  },
  rules: {
    Pending: { anyChange: true, operatorMoves: ['Ready', 'NotReady'] },
    Ready: {
      allow: [
        {
          changes: [
            'scale',
            'memory',
            'volume.add',
            'volume.grow',
            'listener.add',
            'listener.remove',
            'listener.retype',
          ],
          next: 'RollingUpdate',
        },
      ],
      operatorMoves: ['NotReady'],
    },
    RollingUpdate: { operatorMoves: ['Ready', 'NotReady'] },
    NotReady: {},
    Deleting: {},
  },
  overrideAnnotation: 'pools.example.com/override-transitions',
  classifiers: [
    fieldClassifier({
      path: 'replicas',
      read: readInteger,
      compare: byDirection({ compare: compareNumbers, increase: 'scale', decrease: 'scale' }),
    }),
    fieldClassifier({ path: 'resources.requests.memory', read: readQuantity, compare: whenDifferent('memory') }),
    keyedListClassifier({
      path: 'storage.volumes',
      key: 'id',
      absentMeans: [],
      added: 'volume.add',
      removed: 'volume.remove',
      itemClassifiers: [
        fieldClassifier({
          path: 'size',
          read: readQuantity,
          compare: byDirection({ compare: compareQuantities, increase: 'volume.grow', decrease: 'volume.shrink' }),
        }),
        fieldClassifier({ path: 'type', read: readString, compare: whenDifferent('volume.retype') }),
        fieldClassifier({ path: 'class', read: readString, compare: whenDifferent('volume.reclass') }),
      ],
    }),
    keyedListClassifier({
      path: 'listeners',
      key: ['name', 'port'],
      absentMeans: [],
      added: 'listener.add',
      removed: 'listener.remove',
      itemClassifiers: [
        fieldClassifier({
          path: 'type',
          absentMeans: 'internal',
          read: readString,
          compare: whenDifferent('listener.retype'),
        }),
      ],
    }),
  ],
};

export function nodePoolContract(): Contract {
  return defineContract({
    identity: {
      group: 'pools.example.com',
      kind: 'NodePool',
      plural: 'nodepools',
      singular: 'nodepool',
      scope: 'Namespaced',
    },
    versions: [{ name: 'v1', served: true, storage: true, schema: nodePoolSchema, subresources: { status: {} } }],
    hub: 'v1',
    conversions: {},
    transitions: nodePoolMachine,
  });
}
