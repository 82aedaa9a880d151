import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import type { Manifest } from './manifest.ts';
import { MIGRATE_STOP_BOUND_SECONDS } from '../migrate/stop.ts';
import { renderStorageMigration, viaStatusProblem } from './storage-migration.ts';

const find = (manifests: Manifest[], kind: string): any[] => manifests.filter((m) => m.kind === kind);

describe('renderStorageMigration', () => {
  const manifests = renderStorageMigration(
    [geoDatabaseContract(), clusterWidgetContract()],
    { name: 'crdgate', namespace: 'ops' },
    'crdgate:9.9.9',
  );

  it("lets the job rewrite every object of each resource, and read and trim only the contracts' own CRDs", () => {
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

  it("binds the role to the job's ServiceAccount in the namespace", () => {
    const [account] = find(manifests, 'ServiceAccount');
    const [binding] = find(manifests, 'ClusterRoleBinding');
    expect(account.metadata).toMatchObject({ name: 'crdgate-migrate', namespace: 'ops' });
    expect(binding.roleRef).toEqual({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: find(manifests, 'ClusterRole')[0].metadata.name,
    });
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'crdgate-migrate', namespace: 'ops' }]);
  });

  it('runs one plain Job per contract as that ServiceAccount, never restarting in place, unsharded by default', () => {
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
      expect(job.spec.podFailurePolicy.rules[0].onExitCodes.containerName).toBe(
        job.spec.template.spec.containers[0].name,
      );
      expect(job.spec.completionMode).toBeUndefined();
      expect(job.spec.template.spec.containers[0].env.map((entry: { name: string }) => entry.name)).toEqual([
        'NODE_OPTIONS',
      ]);
    }
    // Nothing to record without shards.
    expect(find(manifests, 'ConfigMap')).toEqual([]);
    expect(find(manifests, 'Role')).toEqual([]);
  });

  it('gives the pod more time after SIGTERM than `crdgate migrate` takes to stop, so a stopped Job reports instead of dying with 137', () => {
    for (const job of find(manifests, 'Job')) {
      // Kubernetes' default is 30 s; an explicit value keeps the margin when the bound changes.
      expect(job.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
        MIGRATE_STOP_BOUND_SECONDS + 10,
      );
    }
  });

  it("caps the heap well inside the memory limit, in NODE_OPTIONS of its own rather than the image's server-sized ones", () => {
    const [container] = find(manifests, 'Job')[0].spec.template.spec.containers;
    const options = container.env.find((entry: { name: string }) => entry.name === 'NODE_OPTIONS').value as string;
    const megabytes = (flag: string) => Number(new RegExp(`--${flag}=(\\d+)`).exec(options)?.[1]);
    const limit = Number(/^(\d+)Mi$/.exec(container.resources.limits.memory)?.[1]);
    // The young generation is three semi-spaces; code, TLS and sockets live outside the heap (about 65 MiB measured; 80 allowed).
    expect(megabytes('max-old-space-size') + 3 * megabytes('max-semi-space-size') + 80).toBeLessThanOrEqual(limit);
    expect(options).not.toMatch(/min-semi-space/);
  });

  describe('API Priority and Fairness', () => {
    const [level] = find(manifests, 'PriorityLevelConfiguration');
    const [schema] = find(manifests, 'FlowSchema');

    it("puts the ServiceAccount's requests in a priority level of its own, ahead of the defaults that would take them", () => {
      expect(schema.spec.priorityLevelConfiguration).toEqual({ name: level.metadata.name });
      expect(level.metadata.name).toBe('crdgate-migrate');
      expect(schema.spec.rules.map((rule: any) => rule.subjects)).toEqual([
        [{ kind: 'ServiceAccount', serviceAccount: { name: 'crdgate-migrate', namespace: 'ops' } }],
      ]);
      // service-accounts (9000) and global-default (9900) would match the Job's requests; the system's own go first.
      expect(schema.spec.matchingPrecedence).toBeLessThan(9000);
      expect(schema.spec.matchingPrecedence).toBeGreaterThan(900);
      expect(schema.spec.distinguisherMethod).toEqual({ type: 'ByUser' });
    });

    it('limits the level to a small share with queues, and never borrows production seats', () => {
      expect(level.spec.type).toBe('Limited');
      expect(level.spec.limited.nominalConcurrencyShares).toBeLessThanOrEqual(20);
      expect(level.spec.limited.borrowingLimitPercent).toBe(0);
      expect(level.spec.limited.limitResponse.type).toBe('Queue');
      expect(level.spec.limited.limitResponse.queuing.handSize).toBeLessThanOrEqual(
        level.spec.limited.limitResponse.queuing.queues,
      );
    });

    it("classifies every request the Job's roles allow", () => {
      const sharded = renderStorageMigration(
        [geoDatabaseContract()],
        { name: 'crdgate', namespace: 'ops' },
        'crdgate:9.9.9',
        { shards: 4, via: 'status' },
      );
      const [shardedSchema] = find(sharded, 'FlowSchema');
      const resourceRules = shardedSchema.spec.rules[0].resourceRules;
      const roles = [...find(sharded, 'ClusterRole'), ...find(sharded, 'Role')];
      expect(roles).toHaveLength(2);
      for (const role of roles) {
        for (const rule of role.rules) {
          for (const resource of rule.resources) {
            const matching = resourceRules.find(
              (candidate: any) =>
                candidate.apiGroups.includes(rule.apiGroups[0]) && candidate.resources.includes(resource),
            );
            expect(matching, `${rule.apiGroups[0]} ${resource}`).toBeDefined();
            expect(matching.verbs).toEqual(expect.arrayContaining(rule.verbs));
            if (role.kind === 'Role') expect(matching.namespaces).toEqual(['ops']);
            else expect(matching).toMatchObject({ clusterScope: true, namespaces: ['*'] });
          }
        }
      }
    });
  });

  describe('--migration-shards 4', () => {
    const sharded = renderStorageMigration(
      [geoDatabaseContract(), clusterWidgetContract()],
      { name: 'crdgate', namespace: 'ops' },
      'crdgate:9.9.9',
      { shards: 4 },
    );
    const jobs = find(sharded, 'Job');

    it('runs each Job as an Indexed Job of 4 pods at once, retrying a failed index on its own', () => {
      for (const job of jobs) {
        expect(job.spec).toMatchObject({
          completionMode: 'Indexed',
          completions: 4,
          parallelism: 4,
          backoffLimitPerIndex: 3,
        });
        // backoffLimit would count every index's failures together.
        expect(job.spec.backoffLimit).toBeUndefined();
      }
    });

    it('gives each pod its shard from the completion index and the record in its own namespace', () => {
      expect(jobs.map((job) => job.spec.template.spec.containers[0].args)).toEqual([
        [
          'migrate',
          '--resource',
          'geodatabases.geo.example.com',
          '--shard',
          '$(JOB_COMPLETION_INDEX)/4',
          '--record',
          '$(POD_NAMESPACE)/crdgate-migrate-geodatabases',
        ],
        [
          'migrate',
          '--resource',
          'widgets.widgets.example.org',
          '--shard',
          '$(JOB_COMPLETION_INDEX)/4',
          '--record',
          '$(POD_NAMESPACE)/crdgate-migrate-widgets',
        ],
      ]);
      for (const job of jobs) {
        // $(VAR) in args is expanded only from the container's own env.
        const env = job.spec.template.spec.containers[0].env;
        expect(env.slice(1)).toEqual([
          {
            name: 'JOB_COMPLETION_INDEX',
            valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } },
          },
          { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        ]);
        for (const variable of job.spec.template.spec.containers[0].args.join(' ').match(/\$\((\w+)\)/g) ?? []) {
          expect(env.map((entry: any) => `$(${entry.name})`)).toContain(variable);
        }
      }
    });

    it('ends the Job on bad configuration, only the index when its objects were refused', () => {
      for (const job of jobs) {
        const byCode = Object.fromEntries(
          job.spec.podFailurePolicy.rules
            .filter((rule: any) => rule.onExitCodes)
            .flatMap((rule: any) => rule.onExitCodes.values.map((code: number) => [code, rule.action])),
        );
        expect(byCode).toEqual({ 1: 'FailIndex', 2: 'FailJob' });
      }
    });

    it('ships each Job its results ConfigMap empty, and lets the ServiceAccount read and update only those', () => {
      const configMaps = find(sharded, 'ConfigMap');
      expect(
        configMaps.map((configMap) => [configMap.metadata.name, configMap.metadata.namespace, configMap.data]),
      ).toEqual([
        ['crdgate-migrate-geodatabases', 'ops', undefined],
        ['crdgate-migrate-widgets', 'ops', undefined],
      ]);
      const [role] = find(sharded, 'Role');
      expect(role.metadata).toMatchObject({ name: 'crdgate-migrate', namespace: 'ops' });
      // No create: the ConfigMaps exist before the Job runs.
      expect(role.rules).toEqual([
        {
          apiGroups: [''],
          resources: ['configmaps'],
          resourceNames: ['crdgate-migrate-geodatabases', 'crdgate-migrate-widgets'],
          verbs: ['get', 'update'],
        },
      ]);
      const [binding] = find(sharded, 'RoleBinding');
      expect(binding.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'crdgate-migrate' });
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'crdgate-migrate', namespace: 'ops' }]);
    });
  });

  describe('--migration-via status', () => {
    const viaStatus = renderStorageMigration(
      [geoDatabaseContract()],
      { name: 'crdgate', namespace: 'ops' },
      'crdgate:9.9.9',
      { shards: 1, via: 'status' },
    );

    it('runs the Job with --via status, and lets it update the status subresource instead of the objects', () => {
      const [job] = find(viaStatus, 'Job');
      expect(job.spec.template.spec.containers[0].args).toEqual([
        'migrate',
        '--resource',
        'geodatabases.geo.example.com',
        '--via',
        'status',
      ]);
      const [role] = find(viaStatus, 'ClusterRole');
      expect(
        role.rules.filter((rule: any) =>
          rule.resources.some((resource: string) => resource.startsWith('geodatabases')),
        ),
      ).toEqual([
        { apiGroups: ['geo.example.com'], resources: ['geodatabases'], verbs: ['list'] },
        { apiGroups: ['geo.example.com'], resources: ['geodatabases/status'], verbs: ['update'] },
      ]);
    });

    it('is refused for a contract whose storage version has no status subresource', () => {
      expect(viaStatusProblem([geoDatabaseContract()])).toBeUndefined();
      expect(viaStatusProblem([geoDatabaseContract(), clusterWidgetContract()])).toBe(
        'widgets.widgets.example.org has no status subresource in the storage version',
      );
    });
  });
});
