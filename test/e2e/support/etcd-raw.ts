// Reads what really sits in storage, bypassing kube-apiserver, through etcd's JSON gateway.
// Tests use it to prove which apiVersion a custom resource is stored in.

interface RangeResponse {
  kvs?: { key: string; value?: string }[];
}

/** The raw bytes stored under key, or undefined when the key does not exist. */
export async function readEtcdBytes(etcdUrl: string, key: string): Promise<Buffer | undefined> {
  const response = await fetch(new URL('/v3/kv/range', etcdUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: Buffer.from(key, 'utf8').toString('base64') }),
  });
  if (!response.ok) throw new Error(`etcd range ${key}: HTTP ${response.status} ${await response.text()}`);
  const body = (await response.json()) as RangeResponse;
  const value = body.kvs?.[0]?.value;
  if (body.kvs?.[0] === undefined) return undefined;
  return Buffer.from(value ?? '', 'base64');
}

/**
 * The parsed JSON stored under key (e.g. /registry/geo.example.com/geodatabases/default/NAME),
 * or undefined when the key does not exist. Custom resources are stored as JSON; built-in
 * objects are protobuf (use readEtcdBytes for those), which this reports as an error.
 */
export async function readEtcdRaw(etcdUrl: string, key: string): Promise<unknown> {
  const bytes = await readEtcdBytes(etcdUrl, key);
  if (bytes === undefined) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new Error(
      `the value stored under ${key} is not JSON (built-in kinds are stored as protobuf; use readEtcdBytes)`,
    );
  }
}

export interface EtcdEntry {
  key: string;
  value: Buffer;
  /** The etcd revision of the key's last write: unchanged means nothing was written. */
  modRevision: string;
}

/** Every key under prefix with its raw value, in key order (the order kube-apiserver lists them in). */
export async function readEtcdPrefix(etcdUrl: string, prefix: string): Promise<EtcdEntry[]> {
  const start = Buffer.from(prefix, 'utf8');
  const end = Buffer.from(start);
  end[end.length - 1]! += 1; // the first key after every key that starts with prefix
  const response = await fetch(new URL('/v3/kv/range', etcdUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ key: start.toString('base64'), range_end: end.toString('base64') }),
  });
  if (!response.ok) throw new Error(`etcd range ${prefix}: HTTP ${response.status} ${await response.text()}`);
  const body = (await response.json()) as { kvs?: { key: string; value?: string; mod_revision?: string }[] };
  return (body.kvs ?? []).map((kv) => ({
    key: Buffer.from(kv.key, 'base64').toString('utf8'),
    value: Buffer.from(kv.value ?? '', 'base64'),
    modRevision: kv.mod_revision ?? '',
  }));
}
