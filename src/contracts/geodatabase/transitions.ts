import {
  byDirection,
  byReleaseStep,
  compareQuantities,
  compareVersions,
  fieldClassifier,
  keyedListClassifier,
  parseVersion,
  readInteger,
  readQuantity,
  readString,
  whenDifferent,
  type Classifier,
  type Fsa,
} from '../../index.ts';
import { annotations } from './types.ts';
import { defaultRedisVersion } from './versions.ts';

export type GeoDatabaseState =
  'Pending' | 'Provisioning' | 'Ready' | 'Scaling' | 'Resizing' | 'Upgrading' | 'Degraded' | 'Failed' | 'Deleting';

export type GeoDatabaseChange =
  | 'scale'
  | 'cache.add'
  | 'cache.remove'
  | 'cache.resize'
  | 'storage.grow'
  | 'storage.shrink'
  | 'storage.class'
  | 'postgres.minor'
  | 'postgres.major'
  | 'postgres.downgrade'
  | 'postgis.upgrade'
  | 'postgis.major'
  | 'postgis.downgrade'
  | 'cache.upgrade'
  | 'cache.major'
  | 'cache.downgrade';

/** Capacity changes: the operator adds or removes pods and memory without touching data on disk. */
const capacityChanges = ['scale', 'cache.add', 'cache.remove', 'cache.resize'] as const;
/** In-place upgrades within a major release: restarts, one component at a time. */
const minorUpgrades = ['postgres.minor', 'postgis.upgrade', 'cache.upgrade'] as const;

const cacheClassifiers: readonly Classifier<GeoDatabaseChange>[] = [
  fieldClassifier({
    path: 'memory',
    read: readQuantity,
    compare: byDirection({ compare: compareQuantities, increase: 'cache.resize', decrease: 'cache.resize' }),
  }),
  fieldClassifier({ path: 'replicas', absentMeans: 1, read: readInteger, compare: whenDifferent('cache.resize') }),
  fieldClassifier({
    path: 'version',
    absentMeans: defaultRedisVersion,
    read: parseVersion,
    compare: byReleaseStep({
      compare: compareVersions,
      upgrade: 'cache.upgrade',
      major: 'cache.major',
      downgrade: 'cache.downgrade',
    }),
  }),
];

/** The GeoDatabase lifecycle: which changes the operator carries out in which phase. */
export const geoDatabaseMachine: Fsa<GeoDatabaseState, GeoDatabaseChange> = {
  name: 'GeoDatabase',
  subject: 'database',
  states: ['Pending', 'Provisioning', 'Ready', 'Scaling', 'Resizing', 'Upgrading', 'Degraded', 'Failed', 'Deleting'],
  initialState: 'Pending',
  steadyState: 'Ready',
  deletingState: 'Deleting',
  terminalStates: ['Deleting'],
  humanInterventionStates: ['Failed'],
  phasePath: 'status.phase',
  changeKinds: {
    scale: { description: 'changing read replicas from {from} to {to}' },
    'cache.add': { description: 'adding cache "{item}"' },
    'cache.remove': { description: 'removing cache "{item}"' },
    'cache.resize': { description: 'resizing cache "{item}" from {from} to {to}' },
    'storage.grow': { description: 'growing storage from {from} to {to}', exclusive: true },
    'storage.shrink': { description: 'shrinking storage from {from} to {to}', unsupported: 'volumes cannot shrink' },
    'storage.class': {
      description: 'changing the storage class from {from} to {to}',
      unsupported: 'a provisioned volume keeps its storage class',
    },
    'postgres.minor': { description: 'minor upgrade {from} -> {to}', exclusive: true },
    'postgres.major': {
      description: 'major upgrade {from} -> {to}',
      unsupported: 'a major upgrade needs pg_upgrade or a dump and restore, which the operator does not do',
    },
    'postgres.downgrade': {
      description: 'downgrade {from} -> {to}',
      unsupported: 'PostgreSQL is never downgraded in place; restore a backup instead',
    },
    'postgis.upgrade': { description: 'PostGIS upgrade {from} -> {to}', exclusive: true },
    'postgis.major': {
      description: 'PostGIS major upgrade {from} -> {to}',
      unsupported: 'a PostGIS major upgrade needs a manual extension upgrade',
    },
    'postgis.downgrade': {
      description: 'PostGIS downgrade {from} -> {to}',
      unsupported: 'an installed extension cannot be downgraded',
    },
    'cache.upgrade': { description: 'upgrading cache "{item}" from Redis {from} to {to}', exclusive: true },
    'cache.major': {
      description: 'major upgrade of cache "{item}" from Redis {from} to {to}',
      unsupported: 'a Redis major upgrade needs a new cache: add one and remove the old one',
    },
    'cache.downgrade': {
      description: 'downgrading cache "{item}" from Redis {from} to {to}',
      unsupported: 'Redis cannot read data written by a newer version',
    },
  },
  rules: {
    Pending: { anyChange: true, operatorMoves: ['Provisioning', 'Failed'] },
    Provisioning: { allow: [{ changes: capacityChanges }], operatorMoves: ['Ready', 'Failed'] },
    Ready: {
      allow: [
        { changes: capacityChanges, next: 'Scaling' },
        { changes: ['storage.grow'], next: 'Resizing' },
        { changes: minorUpgrades, next: 'Upgrading' },
      ],
      operatorMoves: ['Degraded', 'Failed'],
    },
    Scaling: { allow: [{ changes: capacityChanges }], operatorMoves: ['Ready', 'Degraded', 'Failed'] },
    Resizing: { allow: [{ changes: ['scale'] }], operatorMoves: ['Ready', 'Degraded', 'Failed'] },
    Upgrading: { operatorMoves: ['Ready', 'Degraded', 'Failed'] },
    Degraded: {
      allow: [
        { changes: ['scale'], next: 'Scaling' },
        { changes: ['storage.grow'], next: 'Resizing' },
      ],
      operatorMoves: ['Ready', 'Failed'],
    },
    Failed: {},
    Deleting: {},
  },
  overrideAnnotation: annotations.overrideTransitions,
  classifiers: [
    fieldClassifier({ path: 'readReplicas', absentMeans: 0, read: readInteger, compare: whenDifferent('scale') }),
    keyedListClassifier({
      path: 'caches',
      key: 'name',
      absentMeans: [],
      added: 'cache.add',
      removed: 'cache.remove',
      itemClassifiers: cacheClassifiers,
    }),
    fieldClassifier({
      path: 'storage.size',
      read: readQuantity,
      compare: byDirection({ compare: compareQuantities, increase: 'storage.grow', decrease: 'storage.shrink' }),
    }),
    fieldClassifier({ path: 'storage.storageClassName', read: readString, compare: whenDifferent('storage.class') }),
    fieldClassifier({
      path: 'postgres.version',
      read: parseVersion,
      compare: byReleaseStep({
        compare: compareVersions,
        upgrade: 'postgres.minor',
        major: 'postgres.major',
        downgrade: 'postgres.downgrade',
      }),
    }),
    fieldClassifier({
      path: 'postgres.postgis',
      read: parseVersion,
      compare: byReleaseStep({
        compare: compareVersions,
        upgrade: 'postgis.upgrade',
        major: 'postgis.major',
        downgrade: 'postgis.downgrade',
      }),
    }),
  ],
};
