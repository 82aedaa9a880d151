import type { KubeObject } from '../../../src/contract/values/kube-object.ts';

export const geoDatabases = { group: 'geo.example.com', version: 'v1', plural: 'geodatabases' } as const;

/** A valid v1 GeoDatabase that leaves every field the mutating webhook defaults unset. */
export function validGeoDatabase(namespace: string, name: string, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: { name, namespace, ...(annotations ? { annotations } : {}) },
    spec: {
      postgres: { version: '16.4', postgis: '3.4.2' },
      storage: { size: '20Gi' },
      caches: [{ name: 'tiles', memory: '1Gi' }],
    },
  };
}

/**
 * Wrong where the CRD's own schema and rules cannot see, so that only crdgate can refuse it: cross-field rules
 * (supported majors, PostGIS support, memory bounds). Everything the CRD checks (types, patterns, ranges, and the
 * rules it says in place of crdgate's formats: a quantity, a DNS label) is valid.
 */
export function invalidGeoDatabase(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: { name, namespace },
    spec: {
      postgres: { version: '18.1', postgis: '3.4.2' },
      storage: { size: '50Gi' },
      caches: [
        { name: 'tiles-1', memory: '2Gi' },
        { name: 'big', memory: '128Gi' },
      ],
    },
  };
}

/** The fields invalidGeoDatabase gets wrong; crdgate's message must name each of them. */
export const invalidGeoDatabaseFields = ['spec.postgres.version', 'spec.postgres.postgis', 'spec.caches[1].memory'];
