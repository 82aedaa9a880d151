export interface ConversionPayload {
  name: string;
  objects: number;
  desiredAPIVersion: string;
  body: Buffer;
}

type Version = 'v1alpha1' | 'v1beta1' | 'v1';

const group = 'geo.example.com';
const objectCount = 500;

/**
 * A full page of GeoDatabases (500 is the API server's and the migration job's chunk size), in two directions:
 * every served version up to the hub, and the hub down to the oldest version (the lossy direction, which stashes).
 */
export function buildConversionPayloads(): ConversionPayload[] {
  const versions: Version[] = ['v1alpha1', 'v1beta1', 'v1'];
  const mixed = Array.from({ length: objectCount }, (_, i) => geoDatabase(i, versions[i % versions.length]!));
  const hub = Array.from({ length: objectCount }, (_, i) => geoDatabase(i, 'v1'));
  return [review('500 mixed -> v1', mixed, `${group}/v1`), review('500 v1 -> v1alpha1', hub, `${group}/v1alpha1`)];
}

function review(name: string, objects: object[], desiredAPIVersion: string): ConversionPayload {
  const body = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid: `bench-${name.replace(/\W+/g, '-')}`, desiredAPIVersion, objects },
  };
  return { name, objects: objects.length, desiredAPIVersion, body: Buffer.from(JSON.stringify(body)) };
}

const postgres = [
  { version: '16.4', postgis: '3.4.2' },
  { version: '15.8', postgis: '3.4.2' },
  { version: '17.2', postgis: '3.5.0' },
  { version: '14.13', postgis: '3.3.6' },
];
const storageClasses = ['ssd', 'standard', 'gp3-encrypted'];
const cacheSets = [
  [],
  [{ name: 'default', memory: '2Gi', version: '7.2', replicas: 1 }],
  [
    { name: 'tiles', memory: '4Gi', version: '7.2', replicas: 2 },
    { name: 'sessions', memory: '512Mi', version: '7.4', replicas: 1 },
  ],
  [
    { name: 'default', memory: '1Gi', version: '7.2', replicas: 1 },
    { name: 'tiles', memory: '8Gi', version: '7.4', replicas: 3 },
    { name: 'geocoder', memory: '256Mi', version: '7.2', replicas: 1 },
  ],
];

/** The v1 (hub) spec of object i, varied so that every conversion path is taken. */
function hubSpec(i: number) {
  return {
    postgres: postgres[i % postgres.length]!,
    readReplicas: i % 4,
    storage: { size: `${50 + (i % 20) * 10}Gi`, storageClassName: storageClasses[i % storageClasses.length]! },
    caches: cacheSets[i % cacheSets.length]!,
  };
}

function specIn(version: Version, i: number): Record<string, unknown> {
  const spec = hubSpec(i);
  if (version === 'v1') return spec;
  if (version === 'v1beta1') {
    return {
      postgres: spec.postgres,
      replicas: spec.readReplicas,
      storage: spec.storage,
      caches: spec.caches.map(({ name, memory }) => ({ name, memory })),
    };
  }
  const cacheMB = [0, 2048, 1024][i % 3]!;
  return {
    postgresVersion: spec.postgres.version,
    postgisVersion: spec.postgres.postgis,
    replicas: spec.readReplicas,
    storageGB: 50 + (i % 20) * 10,
    cacheMB,
  };
}

/** What an object looks like when the API server reads it from etcd: metadata, managedFields and status included. */
function geoDatabase(i: number, version: Version) {
  const name = `geodb-${String(i).padStart(4, '0')}`;
  const namespace = `team-${i % 7}`;
  const spec = specIn(version, i);
  const apiVersion = `${group}/${version}`;
  return {
    apiVersion,
    kind: 'GeoDatabase',
    metadata: {
      name,
      namespace,
      uid: `5b2f1c8e-9d1a-4b7e-a3c2-${(0x7e6f5d4c0000 + i).toString(16)}`,
      resourceVersion: String(100_000 + i * 7),
      generation: 1 + (i % 5),
      creationTimestamp: '2026-11-22T09:12:31Z',
      labels: {
        'app.kubernetes.io/name': 'geodatabase',
        'app.kubernetes.io/instance': name,
        [`${group}/postgres-major`]: hubSpec(i).postgres.version.split('.')[0]!,
      },
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': `${JSON.stringify({ apiVersion, kind: 'GeoDatabase', metadata: { annotations: {}, name, namespace }, spec })}\n`,
      },
      finalizers: [`${group}/cleanup`],
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion,
          time: '2026-11-22T09:12:31Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': { 'f:annotations': { '.': {}, 'f:kubectl.kubernetes.io/last-applied-configuration': {} } },
            'f:spec': { '.': {}, ...Object.fromEntries(Object.keys(spec).map((key) => [`f:${key}`, {}])) },
          },
        },
        {
          manager: 'geodatabase-operator',
          operation: 'Update',
          apiVersion,
          time: '2026-11-22T09:14:02Z',
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:status': {
              '.': {},
              'f:conditions': {},
              'f:observedGeneration': {},
              'f:phase': {},
              'f:readyReplicas': {},
            },
          },
          subresource: 'status',
        },
      ],
    },
    spec,
    status: {
      phase: 'Ready',
      observedGeneration: 1 + (i % 5),
      readyReplicas: i % 4,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          observedGeneration: 1 + (i % 5),
          lastTransitionTime: '2026-11-22T09:14:02Z',
          reason: 'Provisioned',
          message: 'primary and replicas are serving',
        },
      ],
    },
  };
}
