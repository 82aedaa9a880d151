// The AdmissionReviews of the --many-kinds load: for each object of a kind, what the API server sends crdgate's two
// webhooks when it is created and when it is updated, in the version the webhooks are registered for.

export interface ReviewedKind {
  group: string;
  kind: string;
  plural: string;
  /** The version the API server sends the object in (the contract's hub). */
  version: string;
  namespaced: boolean;
}

export interface KindReview {
  /** The CRD's name, `plural.group`. */
  crd: string;
  path: '/validate' | '/mutate';
  operation: 'CREATE' | 'UPDATE';
  /** Compact JSON, as the API server sends it. */
  body: Buffer;
}

const namespace = 'bench';
/** What an update changes: an annotation, which every schema allows. */
const touchedAnnotation = 'bench.crdgate.dev/revision';

/**
 * Four reviews of each object: CREATE and UPDATE, each to /validate and /mutate. The object keeps what its sample
 * says; only what the API server would have set is filled in (a name, the namespace of a namespaced kind, the
 * apiVersion and kind). An UPDATE's old object is the object; the new one has an annotation more.
 */
export function kindReviews(kind: ReviewedKind, objects: readonly Record<string, unknown>[]): KindReview[] {
  const crd = `${kind.plural}.${kind.group}`;
  return objects.flatMap((sample, index) => {
    const object = asServed(kind, sample, index);
    const metadata = object['metadata'] as Record<string, unknown>;
    const annotations = (metadata['annotations'] ?? {}) as Record<string, string>;
    const updated = { ...object, metadata: { ...metadata, annotations: { ...annotations, [touchedAnnotation]: '2' } } };
    return (['/validate', '/mutate'] as const).flatMap((path) => [
      { crd, path, operation: 'CREATE' as const, body: review(kind, 'CREATE', object, null) },
      { crd, path, operation: 'UPDATE' as const, body: review(kind, 'UPDATE', updated, object) },
    ]);
  });
}

function asServed(kind: ReviewedKind, sample: Record<string, unknown>, index: number): Record<string, unknown> {
  const given = sample['metadata'];
  const metadata = typeof given === 'object' && given !== null ? { ...(given as Record<string, unknown>) } : {};
  if (typeof metadata['name'] !== 'string') metadata['name'] = `${kind.plural}-${index}`;
  if (kind.namespaced) metadata['namespace'] ??= namespace;
  else delete metadata['namespace'];
  return { ...sample, apiVersion: `${kind.group}/${kind.version}`, kind: kind.kind, metadata };
}

function review(
  kind: ReviewedKind,
  operation: 'CREATE' | 'UPDATE',
  object: Record<string, unknown>,
  oldObject: Record<string, unknown> | null,
): Buffer {
  const metadata = object['metadata'] as Record<string, unknown>;
  const gvk = { group: kind.group, version: kind.version, kind: kind.kind };
  const gvr = { group: kind.group, version: kind.version, resource: kind.plural };
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: `${kind.plural}-${operation}-${String(metadata['name'])}`,
        kind: gvk,
        resource: gvr,
        requestKind: gvk,
        requestResource: gvr,
        name: metadata['name'],
        ...(kind.namespaced ? { namespace: metadata['namespace'] } : {}),
        operation,
        userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
        object,
        oldObject,
        dryRun: false,
        options:
          operation === 'CREATE'
            ? { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' }
            : { apiVersion: 'meta.k8s.io/v1', kind: 'UpdateOptions' },
      },
    }),
  );
}
