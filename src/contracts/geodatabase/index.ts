import { defineContract, type Contract } from '../../index.ts';
import { v1alpha1Conversion } from './conversion-v1alpha1.ts';
import { v1beta1Conversion } from './conversion-v1beta1.ts';
import { geoDatabaseDefaults } from './defaults.ts';
import { deletionProtection } from './deletion.ts';
import { geoDatabaseInvariants } from './invariants.ts';
import { schemaV1 } from './schema-v1.ts';
import { schemaV1alpha1 } from './schema-v1alpha1.ts';
import { schemaV1beta1 } from './schema-v1beta1.ts';
import { riskyChangeWarnings } from './risky-changes.ts';
import { geoDatabaseMachine } from './transitions.ts';
import { annotations, group, labels } from './types.ts';

const statusSubresource = { status: {} };

/** The built-in example: PostGIS databases with Redis caches. A factory, so nothing is built at import time. */
export function geoDatabaseContract(): Contract {
  return defineContract({
    identity: {
      group,
      kind: 'GeoDatabase',
      listKind: 'GeoDatabaseList',
      plural: 'geodatabases',
      singular: 'geodatabase',
      shortNames: ['geodb'],
      scope: 'Namespaced',
    },
    hub: 'v1',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: schemaV1,
        subresources: statusSubresource,
        printerColumns: [
          { name: 'Postgres', type: 'string', jsonPath: '.spec.postgres.version' },
          { name: 'PostGIS', type: 'string', jsonPath: '.spec.postgres.postgis' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.readReplicas' },
          { name: 'Storage', type: 'string', jsonPath: '.spec.storage.size' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      },
      {
        name: 'v1beta1',
        served: true,
        storage: false,
        schema: schemaV1beta1,
        subresources: statusSubresource,
        printerColumns: [
          { name: 'Postgres', type: 'string', jsonPath: '.spec.postgres.version' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      },
      {
        name: 'v1alpha1',
        served: true,
        storage: false,
        deprecated: true,
        deprecationWarning: 'geo.example.com/v1alpha1 GeoDatabase is deprecated; use geo.example.com/v1',
        schema: schemaV1alpha1,
        subresources: statusSubresource,
        printerColumns: [
          { name: 'Postgres', type: 'string', jsonPath: '.spec.postgresVersion' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      },
    ],
    conversions: { v1beta1: v1beta1Conversion, v1alpha1: v1alpha1Conversion },
    conversionAnnotation: annotations.conversionData,
    defaults: geoDatabaseDefaults,
    invariants: geoDatabaseInvariants,
    deletionRules: [deletionProtection],
    transitions: geoDatabaseMachine,
    updateRules: [riskyChangeWarnings],
    // The invariants and rules read the spec alone; the defaults keep the postgres-major label in step with it. So a
    // status write, a finalizer, or any other label or annotation never needs crdgate (the machine's override
    // annotation and phase it knows of itself).
    reads: { labels: [labels.postgresMajor], annotations: [], status: false },
  });
}
