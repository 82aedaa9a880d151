import { randomUUID } from 'node:crypto';
import type { KubeObject } from '../../../src/contract/values/kube-object.ts';

/** Valid GeoDatabase specs, one per served version; tests break them in known ways. */
export const validSpecs: Readonly<Record<'v1' | 'v1beta1' | 'v1alpha1', Record<string, unknown>>> = {
  v1: {
    postgres: { version: '16.4', postgis: '3.4.2' },
    readReplicas: 1,
    storage: { size: '20Gi' },
    caches: [{ name: 'tiles', memory: '1Gi' }],
  },
  v1beta1: {
    postgres: { version: '16.4', postgis: '3.4.2' },
    replicas: 1,
    storage: { size: '20Gi' },
    caches: [{ name: 'tiles', memory: '1Gi' }],
  },
  v1alpha1: { postgresVersion: '16.4', postgisVersion: '3.4.2', replicas: 1, storageGB: 20, cacheMB: 1024 },
};

export type ServedVersion = keyof typeof validSpecs;
export const servedVersions = Object.keys(validSpecs) as ServedVersion[];

export function geoDatabase(
  version: ServedVersion,
  spec: Record<string, unknown> = validSpecs[version],
  extra: Partial<KubeObject> = {},
): KubeObject {
  return {
    apiVersion: `geo.example.com/${version}`,
    kind: 'GeoDatabase',
    metadata: { name: 'db', namespace: 'maps' },
    spec,
    ...extra,
  };
}

export interface AdmissionReviewOptions {
  version?: string;
  subResource?: string;
  uid?: string;
  extra?: Record<string, unknown>;
}

/** An admission.k8s.io/v1 review as kube-apiserver sends it for a GeoDatabase. */
export function admissionReview(
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  object: KubeObject | null,
  oldObject: KubeObject | null = null,
  options: AdmissionReviewOptions = {},
) {
  const version = options.version ?? String((object ?? oldObject)?.apiVersion ?? 'geo.example.com/v1').split('/')[1];
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: options.uid ?? randomUUID(),
      kind: { group: 'geo.example.com', version, kind: 'GeoDatabase' },
      resource: { group: 'geo.example.com', version, resource: 'geodatabases' },
      name: 'db',
      namespace: 'maps',
      operation,
      userInfo: { username: 'tester' },
      object,
      oldObject,
      ...(options.subResource ? { subResource: options.subResource } : {}),
      ...options.extra,
    },
  };
}

export function conversionReview(desiredAPIVersion: string, objects: unknown[], uid: string = randomUUID()) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion, objects },
  };
}
