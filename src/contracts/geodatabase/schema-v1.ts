import type { JSONSchemaProps } from '../../index.ts';
import { dnsLabel, postgisVersion, postgresVersion, quantity, status, storageClassName } from './schema-parts.ts';

export const schemaV1: JSONSchemaProps = {
  type: 'object',
  description: 'A PostGIS database with optional Redis caches.',
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
        readReplicas: {
          type: 'integer',
          format: 'int32',
          minimum: 0,
          maximum: 15,
          description: 'Read replicas; default 0.',
        },
        storage: {
          type: 'object',
          required: ['size'],
          properties: {
            size: quantity('Volume size, at least 1Gi; it can grow but never shrink.'),
            storageClassName: storageClassName('Fixed once provisioned.'),
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
              version: {
                type: 'string',
                pattern: '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$',
                maxLength: 16,
                description: 'Redis MAJOR.MINOR; default "7.2".',
              },
              memory: quantity('Cache memory, 64Mi to 64Gi.'),
              replicas: { type: 'integer', format: 'int32', minimum: 1, maximum: 5, description: 'Default 1.' },
            },
          },
        },
      },
    },
    status,
  },
};
