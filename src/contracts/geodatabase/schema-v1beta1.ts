import type { JSONSchemaProps } from '../../index.ts';
import { dnsLabel, postgisVersion, postgresVersion, quantity, status, storageClassName } from './schema-parts.ts';

export const schemaV1beta1: JSONSchemaProps = {
  type: 'object',
  description: 'A PostGIS database with optional Redis caches (v1beta1: caches have no version or replicas).',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['postgres', 'storage'],
      properties: {
        postgres: {
          type: 'object',
          required: ['version', 'postgis'],
          properties: { version: postgresVersion, postgis: postgisVersion },
        },
        replicas: {
          type: 'integer',
          format: 'int32',
          minimum: 0,
          maximum: 15,
          description: 'Read replicas (readReplicas in v1).',
        },
        storage: {
          type: 'object',
          required: ['size'],
          properties: {
            size: quantity('Volume size, at least 1Gi.'),
            storageClassName: storageClassName(),
          },
        },
        caches: {
          type: 'array',
          maxItems: 8,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name', 'memory'],
            properties: {
              name: dnsLabel('Cache name, unique within the database.'),
              memory: quantity('Cache memory, 64Mi to 64Gi.'),
            },
          },
        },
      },
    },
    status,
  },
};
