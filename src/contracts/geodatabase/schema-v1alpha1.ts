import type { JSONSchemaProps } from '../../index.ts';
import { postgisVersion, postgresVersion, status } from './schema-parts.ts';

export const schemaV1alpha1: JSONSchemaProps = {
  type: 'object',
  description: 'A PostGIS database (v1alpha1, deprecated: a flat spec with at most one cache).',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['postgresVersion', 'postgisVersion', 'storageGB'],
      properties: {
        postgresVersion: postgresVersion,
        postgisVersion: postgisVersion,
        replicas: { type: 'integer', format: 'int32', minimum: 0, maximum: 15 },
        storageGB: { type: 'integer', format: 'int32', minimum: 1, description: 'Volume size in GiB.' },
        cacheMB: {
          type: 'integer',
          format: 'int32',
          minimum: 0,
          description: 'Memory of the cache named "default" in MiB; 0 means none.',
        },
      },
    },
    status,
  },
};
