import {
  addQuantities,
  compareQuantities,
  fieldError,
  isPlainObject,
  parseQuantity,
  parseVersion,
  type FieldError,
  type Invariant,
  type KubeObject,
  type Quantity,
} from '../../index.ts';
import type { SpecV1 } from './types.ts';
import { postgisSupport, supportedPostgresMajors } from './versions.ts';

const minStorage = parseQuantity('1Gi')!;
const minCacheMemory = parseQuantity('64Mi')!;
const maxCacheMemory = parseQuantity('64Gi')!;
const maxTotalCacheMemory = parseQuantity('64Gi')!;

function specOf(object: KubeObject): SpecV1 | undefined {
  return isPlainObject(object.spec) ? (object.spec as SpecV1) : undefined;
}

export const postgresMajorSupported: Invariant = (object) => {
  const version = parseVersion(specOf(object)?.postgres?.version);
  if (!version) return [];
  const major = version[0]!;
  const { min, max } = supportedPostgresMajors;
  return major >= min && major <= max
    ? []
    : [
        fieldError(
          'spec.postgres.version',
          'FieldValueNotSupported',
          `PostgreSQL major ${major} is not supported (supported: ${min} to ${max})`,
        ),
      ];
};

export const postgisSupportsPostgres: Invariant = (object) => {
  const postgres = specOf(object)?.postgres;
  const postgis = parseVersion(postgres?.postgis);
  if (!postgis) return [];
  const line = `${postgis[0]}.${postgis[1]}`;
  const support = postgisSupport[line];
  if (!support) {
    const known = Object.keys(postgisSupport).join(', ');
    return [
      fieldError(
        'spec.postgres.postgis',
        'FieldValueNotSupported',
        `PostGIS ${line} is not supported (supported: ${known})`,
      ),
    ];
  }
  const major = parseVersion(postgres?.version)?.[0];
  if (major === undefined || (major >= support.min && major <= support.max)) return [];
  return [
    fieldError(
      'spec.postgres.postgis',
      'FieldValueInvalid',
      `PostGIS ${line} does not support PostgreSQL ${major} (it supports ${support.min} to ${support.max})`,
    ),
  ];
};

export const storageLargeEnough: Invariant = (object) => {
  const size = quantityAt(specOf(object)?.storage?.size);
  return size && compareQuantities(size, minStorage) < 0
    ? [fieldError('spec.storage.size', 'FieldValueInvalid', 'must be at least 1Gi')]
    : [];
};

export const cachesWithinLimits: Invariant = (object) => {
  const caches = specOf(object)?.caches;
  if (!Array.isArray(caches)) return [];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  let total: Quantity | undefined;
  caches.forEach((cache, index) => {
    if (!isPlainObject(cache)) return;
    if (typeof cache.name === 'string') {
      // Same path and type as the schema's list-map check reports, so the two collapse into one error.
      if (seen.has(cache.name))
        errors.push(
          fieldError(`spec.caches[${index}]`, 'FieldValueDuplicate', `cache name "${cache.name}" is used twice`),
        );
      seen.add(cache.name);
    }
    const memory = quantityAt(cache.memory);
    if (!memory) return;
    if (compareQuantities(memory, minCacheMemory) < 0 || compareQuantities(memory, maxCacheMemory) > 0) {
      errors.push(fieldError(`spec.caches[${index}].memory`, 'FieldValueInvalid', 'must be between 64Mi and 64Gi'));
    }
    total = total ? addQuantities(total, memory) : memory;
  });
  if (total && compareQuantities(total, maxTotalCacheMemory) > 0) {
    errors.push(fieldError('spec.caches', 'FieldValueInvalid', "the caches' memory adds up to more than 64Gi"));
  }
  return errors;
};

function quantityAt(value: unknown): Quantity | undefined {
  return typeof value === 'string' ? parseQuantity(value) : undefined;
}

export const geoDatabaseInvariants: Invariant[] = [
  postgresMajorSupported,
  postgisSupportsPostgres,
  storageLargeEnough,
  cachesWithinLimits,
];
