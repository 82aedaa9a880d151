import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import type { Manifest } from './manifest.ts';
import { MIGRATE_STOP_BOUND_SECONDS } from '../migrate/stop.ts';
import { renderStorageMigration } from './storage-migration.ts';

const find = (manifests: Manifest[], kind: string): any[] => manifests.filter((m) => m.kind === kind);

describe('renderStorageMigration', () => {
  const manifests = renderStorageMigration([geoDatabaseContract(), clusterWidgetContract()], { name: 'crdgate', namespace: 'ops' }, 'crdgate:9.9.9');

  it('lets the job rewrite every object of each resource, and read and trim only the contracts\' own CRDs', () => {
    const [role] = find(manifests, 'ClusterRole');
    expect(role.rules).toEqual([
      { apiGroups: ['geo.example.com'], resources: ['geodatabases'], verbs: ['list', 'update'] },
      { apiGroups: ['widgets.example.org'], resources: ['widgets'], verbs: ['list', 'update'] },
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['geodatabases.geo.example.com', 'widgets.widgets.example.org'],
        verbs: ['get'],
      },
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions/status'],
        resourceNames: ['geodatabases.geo.example.com', 'widgets.widgets.example.org'],
        verbs: ['update'],
      },
    ]);
  });

  it('binds the role to the job\'s ServiceAccount in the namespace', () => {
    const [account] = find(manifests, 'ServiceAccount');
    const [binding] = find(manifests, 'ClusterRoleBinding');
    expect(account.metadata).toMatchObject({ name: 'crdgate-migrate', namespace: 'ops' });
    expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: find(manifests, 'ClusterRole')[0].metadata.name });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'crdgate-migrate', namespace: 'ops' }]);
  });

  it('runs one Job per contract as that ServiceAccount, never restarting in place', () => {
    const jobs = find(manifests, 'Job');
    expect(jobs.map((job) => [job.metadata.name, job.spec.template.spec.containers[0].args])).toEqual([
      ['crdgate-migrate-geodatabases', ['migrate', '--resource', 'geodatabases.geo.example.com']],
      ['crdgate-migrate-widgets', ['migrate', '--resource', 'widgets.widgets.example.org']],
    ]);
    for (const job of jobs) {
      expect(job.metadata.namespace).toBe('ops');
      expect(job.spec.template.spec).toMatchObject({ serviceAccountName: 'crdgate-migrate', restartPolicy: 'Never' });
      expect(job.spec.template.spec.containers[0].image).toBe('crdgate:9.9.9');
      // The container the failure policy names must be the one that runs.
      expect(job.spec.podFailurePolicy.rules[0].onExitCodes.containerName).toBe(job.spec.template.spec.containers[0].name);
    }
  });

  it('gives the pod more time after SIGTERM than `crdgate migrate` takes to stop, so a stopped Job reports instead of dying with 137', () => {
    for (const job of find(manifests, 'Job')) {
      // Kubernetes' default is 30 s; an explicit value keeps the margin when the bound changes.
      expect(job.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(MIGRATE_STOP_BOUND_SECONDS + 10);
    }
  });
});
