import { jsonEqual } from '../../../../src/contract/values/json-equal.ts';
import type { Rest } from '../raw-api.ts';
import type { DifferentialCase } from './schema-cases.ts';

/** What one judge said of one case: allowed (with the object as it would be stored), or the fields it refused. */
export type Judgement =
  | { allowed: true; stored?: unknown; warnings: string[] }
  | { allowed: false; fields: string[]; messages: string[]; causes?: Array<{ field: string; message: string }> };

export interface ResourceOf {
  group: string;
  version: string;
  plural: string;
  namespace: string;
}

/**
 * kube-apiserver's judgement, asked as kubectl asks with `--dry-run=server --validate=strict`: a CREATE is a
 * dry-run POST; an UPDATE stores the old object for real (its status as well), then sends a dry-run PUT of the new
 * one over it, and deletes the old again. Field validation Strict makes unknown and duplicate fields errors, as kubectl's default.
 */
export async function apiServerJudgement(
  rest: Rest,
  resource: ResourceOf,
  testCase: DifferentialCase,
  name: string,
): Promise<Judgement> {
  const collection = `/apis/${resource.group}/${resource.version}/namespaces/${resource.namespace}/${resource.plural}`;
  const named = (object: Record<string, unknown>) => ({
    ...object,
    metadata: { ...(object.metadata as object | undefined), name, namespace: resource.namespace },
  });
  if (testCase.oldObject === undefined) {
    return judgementOf(
      await rest.send('POST', `${collection}?dryRun=All&fieldValidation=Strict`, named(testCase.object)),
    );
  }
  const created = await rest.send('POST', `${collection}?fieldValidation=Strict`, named(testCase.oldObject));
  if (created.status !== 201)
    throw new Error(
      `${testCase.name}: the old object was refused (HTTP ${created.status}): ${created.text.slice(0, 400)}`,
    );
  try {
    const resourceVersion = await withStatusOf(
      rest,
      `${collection}/${name}`,
      created.body as StoredObject,
      testCase.oldObject['status'],
    );
    const updated = named(testCase.object);
    (updated.metadata as Record<string, unknown>)['resourceVersion'] = resourceVersion;
    return judgementOf(await rest.send('PUT', `${collection}/${name}?dryRun=All&fieldValidation=Strict`, updated));
  } finally {
    await rest.send('DELETE', `${collection}/${name}`);
  }
}

type StoredObject = Record<string, unknown> & { metadata: { resourceVersion: string } };

/**
 * The old object's status as it was stored: a create drops the status where the status subresource is on (as the
 * API server prepares a create), so it is written through that subresource, as a controller writes it. Otherwise
 * the old object the API server holds would not be the one crdgate is given. The resourceVersion the old object
 * has then.
 */
async function withStatusOf(rest: Rest, path: string, created: StoredObject, status: unknown): Promise<string> {
  if (status === undefined || jsonEqual(created['status'], status)) return created.metadata.resourceVersion;
  const written = await rest.send('PUT', `${path}/status?fieldValidation=Strict`, { ...created, status });
  if (written.status !== 200)
    throw new Error(
      `${path}: the old object's status was refused (HTTP ${written.status}): ${written.text.slice(0, 400)}`,
    );
  return (written.body as StoredObject).metadata.resourceVersion;
}

/**
 * An object stored for real (a POST with strict field validation, as kubectl creates), then read back as a client
 * reads it (the API server defaults on read, too) and deleted: `stored` is what the API server holds. A refusal is
 * judged as any other.
 */
export async function storedJudgement(
  rest: Rest,
  resource: ResourceOf,
  object: Record<string, unknown>,
  name: string,
): Promise<Judgement> {
  const collection = `/apis/${resource.group}/${resource.version}/namespaces/${resource.namespace}/${resource.plural}`;
  const created = await rest.send('POST', `${collection}?fieldValidation=Strict`, {
    ...object,
    metadata: { name, namespace: resource.namespace },
  });
  if (created.status !== 201) return judgementOf(created);
  try {
    const read = await rest.send('GET', `${collection}/${name}`);
    if (read.status !== 200)
      throw new Error(`${name} was stored but cannot be read back (HTTP ${read.status}): ${read.text.slice(0, 400)}`);
    return { allowed: true, stored: read.body, warnings: created.warnings };
  } finally {
    await rest.send('DELETE', `${collection}/${name}`);
  }
}

export function judgementOf(response: { status: number; body: unknown; text: string; warnings: string[] }): Judgement {
  if (response.status === 200 || response.status === 201)
    return { allowed: true, stored: response.body, warnings: response.warnings };
  const status = response.body as
    { code?: number; message?: string; details?: { causes?: Array<{ field?: string; message?: string }> } } | undefined;
  if (status?.code !== 422 && status?.code !== 400)
    throw new Error(`the API server answered HTTP ${response.status}: ${response.text.slice(0, 400)}`);
  const causes = status.details?.causes ?? [];
  // Strict field validation refuses before the schema does, with the fields in the message alone (HTTP 400).
  const strict = [...(status.message ?? '').matchAll(/(?:unknown|duplicate) field "([^"]+)"/g)].map(
    (match) => match[1]!,
  );
  const fields = [...causes.map((cause) => cause.field ?? ''), ...strict];
  const messages =
    causes.length > 0 ? causes.map((cause) => `${cause.field ?? ''}: ${cause.message ?? ''}`) : [status.message ?? ''];
  return {
    allowed: false,
    fields: [...new Set(fields)].sort(),
    messages,
    ...(causes.length > 0
      ? { causes: causes.map((cause) => ({ field: cause.field ?? '', message: cause.message ?? '' })) }
      : {}),
  };
}
