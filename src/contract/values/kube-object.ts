/** The parts of a Kubernetes object crdgate reads; everything else is carried through untouched. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: unknown;
  status?: unknown;
  [key: string]: unknown;
}

/** A custom resource whose spec (and status) a contract's author has typed. */
export interface ContractObject<Spec = unknown, Status = unknown> extends KubeObject {
  spec?: Spec;
  status?: Status;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets `key` as an own, enumerable data property: a key named `__proto__` (data in JSON) stays a plain key, never
 * the object's prototype. Plain assignment for every other key, which V8 makes much faster than defineProperty.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

export function isKubeObject(value: unknown): value is KubeObject {
  return isPlainObject(value) && (value.metadata === undefined || isPlainObject(value.metadata));
}

/** `namespace/name`, or `name` for a cluster-scoped object: how messages, logs and reports name an object. */
export function namespacedName(ref: { namespace?: string | undefined; name: string }): string {
  return ref.namespace ? `${ref.namespace}/${ref.name}` : ref.name;
}

/** namespacedName of an object's metadata; falls back to generateName for objects not yet named. */
export function objectRef(object: KubeObject | null | undefined): string {
  const meta = object?.metadata;
  const name = meta?.name ?? (meta?.generateName !== undefined ? `${meta.generateName}*` : '<unnamed>');
  return namespacedName({ namespace: meta?.namespace, name });
}

export function annotation(object: KubeObject | null | undefined, key: string): string | undefined {
  const annotations = object?.metadata?.annotations;
  return isPlainObject(annotations) && typeof annotations[key] === 'string' ? annotations[key] : undefined;
}

/** `geo.example.com/v1` -> { group: 'geo.example.com', version: 'v1' }; core `v1` -> group ''. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash === -1
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
