/** The hub (v1) shape, as the invariants, defaults and transitions read it. Fields may be absent or ill-typed. */
export interface CacheV1 {
  name?: string;
  version?: string;
  memory?: string;
  replicas?: number;
}

export interface SpecV1 {
  postgres?: { version?: string; postgis?: string };
  readReplicas?: number;
  storage?: { size?: string; storageClassName?: string };
  caches?: CacheV1[];
}

export const group = 'geo.example.com';
export const annotations = {
  conversionData: `${group}/conversion-data`,
  deletionProtection: `${group}/deletion-protection`,
  overrideTransitions: `${group}/override-transitions`,
} as const;
export const labels = {
  postgresMajor: `${group}/postgres-major`,
} as const;
