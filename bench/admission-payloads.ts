import { readFile } from 'node:fs/promises';

/** Both webhooks crdgate serves for admission; the bare server answers any path alike. */
export const admissionPaths = ['/validate', '/mutate'];

export interface AdmissionPayload {
  name: string;
  operation: 'CREATE' | 'UPDATE';
  /** Compact JSON, as the API server sends it. */
  body: Buffer;
}

// The sizes the performance goals name: a typical CREATE and a typical UPDATE (which carries two copies of the object).
const createTargetBytes = 4 * 1024;
const updateTargetBytes = 8 * 1024;

/** The fixtures' reviews grown to the goal sizes with what real objects carry: tooling labels, annotations, managedFields. */
export async function loadAdmissionPayloads(): Promise<AdmissionPayload[]> {
  const create = await readFixture('create-geodatabase.json');
  const update = await readFixture('update-geodatabase.json');
  return [
    { name: 'CREATE 4 KiB', operation: 'CREATE', body: Buffer.from(JSON.stringify(padTo(create, createTargetBytes))) },
    { name: 'UPDATE 8 KiB', operation: 'UPDATE', body: Buffer.from(JSON.stringify(padTo(update, updateTargetBytes))) },
  ];
}

async function readFixture(name: string): Promise<Review> {
  return JSON.parse(await readFile(new URL(`../test/fixtures/admission/${name}`, import.meta.url), 'utf8')) as Review;
}

interface Metadata {
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managedFields?: unknown[];
}

interface Review {
  request: { object?: { metadata?: Metadata } | null; oldObject?: { metadata?: Metadata } | null };
}

const toolingLabels = {
  'app.kubernetes.io/name': 'geodatabase',
  'app.kubernetes.io/instance': 'tiles',
  'app.kubernetes.io/part-of': 'maps-platform',
  'app.kubernetes.io/managed-by': 'Helm',
  'helm.sh/chart': 'maps-platform-2.14.0',
};

const toolingAnnotations = {
  'meta.helm.sh/release-name': 'maps-platform',
  'meta.helm.sh/release-namespace': 'maps',
  'argocd.argoproj.io/tracking-id': 'maps-platform:geo.example.com/GeoDatabase:maps/tiles',
  'maps.example.com/owner': 'team-geodata@example.com',
  'maps.example.com/cost-center': 'cc-4711-geo',
};

const toolingManagedFields = [
  {
    manager: 'helm',
    operation: 'Update',
    apiVersion: 'geo.example.com/v1',
    time: '2026-11-22T09:12:30Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:metadata': {
        'f:annotations': { '.': {}, 'f:meta.helm.sh/release-name': {}, 'f:meta.helm.sh/release-namespace': {} },
        'f:labels': Object.fromEntries(
          ['.', ...Object.keys(toolingLabels).map((key) => `f:${key}`)].map((key) => [key, {}]),
        ),
      },
    },
  },
  {
    manager: 'geodatabase-operator',
    operation: 'Update',
    apiVersion: 'geo.example.com/v1',
    time: '2026-11-22T09:14:02Z',
    fieldsType: 'FieldsV1',
    fieldsV1: {
      'f:status': {
        '.': {},
        'f:conditions': {
          '.': {},
          'k:{"type":"Ready"}': {
            '.': {},
            'f:lastTransitionTime': {},
            'f:message': {},
            'f:observedGeneration': {},
            'f:reason': {},
            'f:status': {},
            'f:type': {},
          },
        },
        'f:observedGeneration': {},
        'f:phase': {},
        'f:readyReplicas': {},
      },
    },
    subresource: 'status',
  },
];

// Free text tops the review up to the exact size; runbook links and notes are what such annotations hold in practice.
const fillerKey = 'maps.example.com/runbook-notes';
const fillerText =
  'Tile database for the public map; see https://runbooks.example.com/maps/geodatabase for failover and restore. ';

function padTo(review: Review, targetBytes: number): Review {
  const padded = structuredClone(review);
  const copies = [padded.request.object?.metadata, padded.request.oldObject?.metadata].filter(
    (m): m is Metadata => m !== undefined,
  );
  for (const metadata of copies) {
    metadata.labels = { ...metadata.labels, ...toolingLabels };
    metadata.annotations = { ...metadata.annotations, ...toolingAnnotations, [fillerKey]: '' };
    metadata.managedFields = [...(metadata.managedFields ?? []), ...structuredClone(toolingManagedFields)];
  }
  const missing = targetBytes - Buffer.byteLength(JSON.stringify(padded));
  if (missing < 0)
    throw new Error(`the ${targetBytes}-byte payload is already ${targetBytes - missing} bytes before padding`);
  const perCopy = Math.floor(missing / copies.length);
  for (const metadata of copies)
    metadata.annotations![fillerKey] = fillerText.repeat(Math.ceil(perCopy / fillerText.length)).slice(0, perCopy);
  return padded;
}
