import { KubeApiError, KubeTransportError, type KubeApi } from '../kube/kube-api.ts';
import { KubeconfigError } from '../kube/kubeconfig-error.ts';
import { CrdShapeError, crdPath, readStorageFacts, type StorageFacts } from './custom-resource-definition.ts';
import { describeError } from './halt.ts';
import type { Failure } from './retry-policy.ts';
import { missingRecordProblem, type RecordRef, type Send } from './shard-record.ts';
import type { Shard } from './shard.ts';
import type { WriteVia } from './migration-report.ts';

// Before anything is written: the CRD read and the options checked against it. A run that cannot start says why in
// one line (the CLI exits 2); it never writes half of what it was asked to.

/** The run cannot start: no such CRD, no access, no API server. The CLI says it in one line and exits 2. */
export class MigrationConfigError extends Error {
  override name = 'MigrationConfigError';
}

/** Stopped by a signal before the CRD was read: there is nothing to report but that. */
export class MigrationInterruptedError extends Error {
  override name = 'MigrationInterruptedError';
}

/** What the start checks look at: the run's options as the command gave them. */
export interface StartRequest {
  /** PLURAL.GROUP, the CRD's name. */
  resource: string;
  shard?: Shard;
  record?: RecordRef;
  via?: WriteVia;
}

/** The CRD as the run starts: what the run reads off it, and the CRD itself (what its objects are judged by). */
export interface StartingCrd {
  facts: StorageFacts;
  crd: unknown;
}

/** The CRD as the run starts, read through `send`; a failure is a MigrationConfigError or an interruption. */
export async function readCrdForStart(api: KubeApi, resource: string, send: Send): Promise<StartingCrd> {
  const read = await send('read-crd', (signal) => api.request('GET', crdPath(resource), { signal }), 'read the CRD');
  if (!read.ok) throw startError(read, resource, api.server);
  try {
    return { facts: readStorageFacts(read.value.body), crd: read.value.body };
  } catch (error) {
    throw error instanceof CrdShapeError ? new MigrationConfigError(error.message) : error;
  }
}

/** Options the CRD rules out, said before anything is written; undefined when the run may start. */
export function startProblem(request: StartRequest, facts: StorageFacts): string | undefined {
  const missingRecord = missingRecordProblem(request.shard, request.record);
  if (missingRecord !== undefined) return missingRecord;
  if (request.via === 'status' && !facts.storageHasStatus) {
    return `--via status: the CRD ${request.resource} has no status subresource in its storage version ${facts.storageVersion}, so objects can only be written as themselves (run without --via status)`;
  }
  return undefined;
}

/** Why the CRD could not be read, as the error the CLI turns into one line. */
export function startError(failure: Failure, resource: string, server: string): Error {
  if (failure.class === 'interrupted')
    return new MigrationInterruptedError(`stopped by a signal before the CRD ${resource} was read`);
  const error = 'error' in failure ? failure.error : undefined;
  if (error instanceof KubeApiError) {
    if (error.code === 404)
      return new MigrationConfigError(`no CustomResourceDefinition named ${resource} at ${server}`);
    if (error.code === 401)
      return new MigrationConfigError(`the API server at ${server} does not accept the credentials: ${error.message}`);
    if (error.code === 403)
      return new MigrationConfigError(`not allowed to read the CRD ${resource}: ${error.message}`);
    return new MigrationConfigError(`cannot read the CRD ${resource}: HTTP ${error.code}: ${error.message}`);
  }
  if (error instanceof KubeTransportError)
    return new MigrationConfigError(`cannot reach the API server at ${server}: ${error.message}`);
  return new MigrationConfigError(
    error instanceof KubeconfigError ? error.message : `cannot read the CRD ${resource}: ${describeError(error)}`,
  );
}
