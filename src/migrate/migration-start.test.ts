import { describe, expect, it } from 'vitest';
import { KubeApiError, KubeTransportError } from '../kube/kube-api.ts';
import { KubeconfigError } from '../kube/kubeconfig-error.ts';
import { readStorageFacts } from './custom-resource-definition.ts';
import { MigrationConfigError, MigrationInterruptedError, startError, startProblem } from './migration-start.ts';

const resource = 'geodatabases.geo.example.com';
const facts = (status: boolean) =>
  readStorageFacts({
    metadata: { name: resource, generation: 1 },
    spec: {
      group: 'geo.example.com',
      names: { plural: 'geodatabases' },
      versions: [{ name: 'v1', served: true, storage: true, ...(status ? { subresources: { status: {} } } : {}) }],
    },
    status: { storedVersions: ['v1'] },
  });
const record = { namespace: 'ops', name: 'mig' };

describe('startProblem: options the CRD or each other rule out', () => {
  it('lets a run start with or without a shard, a record, or --via status where the CRD allows it', () => {
    expect(startProblem({ resource }, facts(false))).toBeUndefined();
    const sharded = { resource, shard: { index: 1, count: 3 }, record, via: 'status' as const };
    expect(startProblem(sharded, facts(true))).toBeUndefined();
    expect(startProblem({ resource, shard: { index: 0, count: 1 }, via: 'object' }, facts(false))).toBeUndefined();
  });

  it('refuses more than one shard without a record, and --via status without a status subresource', () => {
    expect(startProblem({ resource, shard: { index: 0, count: 2 } }, facts(true))).toContain('--record');
    expect(startProblem({ resource, via: 'status' }, facts(false))).toContain('--via status');
  });
});

describe('startError: why the CRD could not be read', () => {
  const stop = (error: Error) => ({ class: 'stop' as const, cause: 'unavailable' as const, error });
  const apiError = (code: number) => new KubeApiError(code, { message: `HTTP ${code}` }, {}, 'GET crd');

  it('is an interruption when a signal came before the answer', () => {
    expect(startError({ class: 'interrupted' }, resource, 'https://api')).toBeInstanceOf(MigrationInterruptedError);
  });

  it.each([
    ['a missing CRD', stop(apiError(404)), resource],
    ['refused credentials', stop(apiError(401)), 'https://api'],
    ['a forbidden read', stop(apiError(403)), resource],
    ['an API server past its retries', stop(apiError(503)), resource],
    ['an API server out of reach', stop(new KubeTransportError('connect ECONNREFUSED')), 'https://api'],
    [
      'a kubeconfig whose credentials cannot be loaded',
      stop(new KubeconfigError({ problem: 'no-credentials', server: 'https://127.0.0.1:6443', detail: 'no token' })),
      'no token',
    ],
  ])('is a configuration error for %s, naming what to look at', (_case, failure, named) => {
    const error = startError(failure, resource, 'https://api');
    expect(error).toBeInstanceOf(MigrationConfigError);
    expect(error.message).toContain(named);
  });
});
