import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runCli } from '../../src/cli-runner.fixture.ts';
import { createCertificateAuthority } from '../../src/certs/pki.ts';
import { builtHelm } from '../tools/suite-tools.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { comparable, helm, yamlObjects, type KubeObject } from './support/helm.ts';
import { kubectl } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const namespace = 'crdgate-system';

/**
 * The chart `crdgate manifests --format helm` writes, held to the kustomize tree of the same contracts and flags:
 * `helm template` with a setting renders, object for object, what the matching overlay (or flag) renders through
 * `kubectl kustomize`, so the two installs cannot drift apart. And the chart passes `helm lint --strict`, and its
 * values.schema.json refuses each mistyped value, naming it. No cluster is touched: helm-install.e2e.test.ts installs.
 */
describe.skipIf(!controlPlane)('the Helm chart, rendered by helm, against the kustomize tree', () => {
  const cp = controlPlane as ProvidedControlPlane;
  let helmPath: string;
  let workDir: string;
  let caPem: string;

  const run = async (...argv: string[]) => {
    const result = await runCli(repoRoot, ...argv);
    expect(result.code, result.stderr).toBe(0);
  };
  const helmIn = (args: string[]) => helm(helmPath, join(workDir, 'helm-home'), undefined, args);

  async function template(chart: string, values: Record<string, unknown> = {}): Promise<KubeObject[]> {
    const valuesFile = join(workDir, `values-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(valuesFile, stringify(values));
    const rendered = await helmIn(['template', 'crdgate', chart, '--namespace', namespace, '-f', valuesFile]);
    expect(rendered.exitCode, rendered.stderr).toBe(0);
    return yamlObjects(rendered.stdout);
  }

  /** What kubectl applies: a kustomization's objects, or those of a plain folder's files (migration/). */
  async function kustomize(...dirs: string[]): Promise<KubeObject[]> {
    const objects: KubeObject[] = [];
    for (const dir of dirs) {
      if (dir.endsWith('/migration')) {
        objects.push(...yamlObjects(await readFile(join(dir, 'storage-migration.yaml'), 'utf8')));
        continue;
      }
      const built = await kubectl(cp, ['kustomize', dir]);
      expect(built.exitCode, built.stderr).toBe(0);
      objects.push(...yamlObjects(built.stdout));
    }
    return objects;
  }

  /** The chart and the kustomize tree of the same flags, in folders of their own. */
  async function renderBoth(name: string, flags: string[]): Promise<{ chart: string; tree: string }> {
    const chart = join(workDir, `${name}-chart`);
    const tree = join(workDir, `${name}-tree`);
    await run('manifests', ...flags, '--format', 'helm', '--out', chart);
    await run('manifests', ...flags, '--out', tree);
    return { chart, tree };
  }

  beforeAll(async () => {
    // helm as a user gets it (docs/deploying.md): `crdgate kube-bin --helm` prints the one the test run's setup built.
    const printed = await runCli(repoRoot, 'kube-bin', '--helm');
    expect({ code: printed.code, stdout: printed.stdout }).toEqual({ code: 0, stdout: `${await builtHelm()}\n` });
    helmPath = printed.stdout.trim();
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-helm-chart-'));
    caPem = createCertificateAuthority({ commonName: 'helm-chart-test-ca', days: 1 }).certPem;
  });

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  describe('the built-in example', () => {
    let chart: string;
    let tree: string;
    beforeAll(async () => {
      ({ chart, tree } = await renderBoth('example', []));
    });

    it('passes helm lint --strict, with the default values and with every certificate mode and option on', async () => {
      for (const sets of [
        [],
        [
          'certificates.mode=cert-manager,policyFloor.enabled=true,monitoring.serviceMonitor.enabled=true,monitoring.dashboard.enabled=true',
        ],
        ['certificates.mode=secret,migration.enabled=true,migration.dryRun=true'],
      ]) {
        const linted = await helmIn(['lint', '--strict', chart, ...sets.flatMap((set) => ['--set', set])]);
        expect(linted.exitCode, `${linted.stdout}\n${linted.stderr}`).toBe(0);
        expect(linted.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
      }
    });

    const cases: Array<{ setting: string; values: Record<string, unknown>; kustomize: (tree: string) => string[] }> = [
      {
        setting: 'the defaults: crdgate managing its own certificates',
        values: {},
        kustomize: (t) => [join(t, 'overlays/self-managed-certs')],
      },
      {
        setting: 'certificates.mode cert-manager',
        values: { certificates: { mode: 'cert-manager' } },
        kustomize: (t) => [join(t, 'overlays/cert-manager')],
      },
      {
        setting: 'certificates.mode secret: the base',
        values: { certificates: { mode: 'secret' } },
        kustomize: (t) => [t],
      },
      {
        setting: 'the policy floor (over cert-manager)',
        values: { certificates: { mode: 'cert-manager' }, policyFloor: { enabled: true } },
        kustomize: (t) => [join(t, 'overlays/policy-floor')],
      },
      {
        setting: 'the ServiceMonitor and the dashboard',
        values: {
          certificates: { mode: 'secret' },
          monitoring: { serviceMonitor: { enabled: true }, dashboard: { enabled: true } },
        },
        kustomize: (t) => [t, join(t, 'overlays/monitoring')],
      },
      {
        setting: 'the migration',
        values: { certificates: { mode: 'secret' }, migration: { enabled: true } },
        kustomize: (t) => [t, join(t, 'migration')],
      },
    ];
    for (const { setting, values, kustomize: dirs } of cases) {
      it(`helm template with ${setting} renders the objects kubectl kustomize renders`, async () => {
        const helmObjects = comparable(await template(chart, values));
        const kustomizeObjects = comparable(await kustomize(...dirs(tree)));
        expect([...helmObjects.keys()]).toEqual([...kustomizeObjects.keys()]);
        expect(helmObjects).toEqual(kustomizeObjects);
      });
    }

    it("refuses the policy floor over a Secret of the user's without its CA: Ignore would skip the webhooks in silence", async () => {
      const rendered = await helmIn([
        'template',
        'crdgate',
        chart,
        '--set',
        'policyFloor.enabled=true,certificates.mode=secret',
      ]);
      expect(rendered.exitCode).not.toBe(0);
      expect(rendered.stderr).toContain('certificates.caBundle');
      const withCa = await template(chart, {
        policyFloor: { enabled: true },
        certificates: { mode: 'secret', caBundle: caPem },
      });
      expect(withCa.filter((object) => object.kind === 'ValidatingAdmissionPolicy').length).toBeGreaterThan(0);
    });

    it('renders the same text on every helm template: nothing generated, nothing looked up', async () => {
      const [first, second] = await Promise.all([
        helmIn(['template', 'crdgate', chart, '-n', namespace]),
        helmIn(['template', 'crdgate', chart, '-n', namespace]),
      ]);
      expect(first.exitCode, first.stderr).toBe(0);
      expect(second.stdout).toBe(first.stdout);
    });

    it('runs the migration Jobs as a hook, with --dry-run when asked', async () => {
      const jobs = (await template(chart, { migration: { enabled: true, dryRun: true } })).filter(
        (object) => object.kind === 'Job',
      );
      expect(jobs.length).toBeGreaterThan(0);
      for (const job of jobs) {
        expect(job.metadata.annotations?.['helm.sh/hook']).toBe('post-install,post-upgrade');
        const containers = (job['spec'] as { template: { spec: { containers: Array<{ args: string[] }> } } }).template
          .spec.containers;
        expect(containers[0]?.args).toContain('--dry-run');
      }
    });

    it('keeps the CRDs on uninstall unless told otherwise', async () => {
      const crds = (objects: KubeObject[]) => objects.filter((object) => object.kind === 'CustomResourceDefinition');
      const kept = crds(await template(chart));
      expect(kept.length).toBeGreaterThan(0);
      for (const crd of kept) expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBe('keep');
      for (const crd of crds(await template(chart, { crds: { keep: false } })))
        expect(crd.metadata.annotations?.['helm.sh/resource-policy']).toBeUndefined();
      expect(crds(await template(chart, { crds: { enabled: false } }))).toEqual([]);
    });

    it('sets the pod values where the anchors set them, and keeps the selector labels', async () => {
      const values = {
        replicas: 3,
        image: {
          repository: 'registry.example:5000/team/crdgate',
          digest: `sha256:${'a'.repeat(64)}`,
          pullPolicy: 'Always',
        },
        imagePullSecrets: [{ name: 'pull' }],
        resources: { requests: { cpu: '50m', memory: '100Mi' } },
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [{ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule' }],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'pool', operator: 'In', values: ['system'] }] }],
            },
          },
        },
        topologySpreadConstraints: [],
        priorityClassName: 'system-cluster-critical',
        podAnnotations: { 'example.com/owner': 'platform' },
        podLabels: { team: 'platform' },
        logLevel: 'debug',
        podDisruptionBudget: { minAvailable: 2 },
      };
      const objects = await template(chart, values);
      const deployment = objects.find((object) => object.kind === 'Deployment')!;
      const spec = deployment['spec'] as {
        replicas: number;
        selector: { matchLabels: Record<string, string> };
        template: {
          metadata: { annotations: unknown; labels: Record<string, string> };
          spec: Record<string, unknown> & { containers: Array<Record<string, unknown>> };
        };
      };
      expect(spec.replicas).toBe(3);
      expect(spec.template.metadata.annotations).toEqual(values.podAnnotations);
      expect(spec.template.metadata.labels).toEqual({ ...spec.selector.matchLabels, team: 'platform' });
      const pod = spec.template.spec;
      expect(pod).toMatchObject({
        imagePullSecrets: values.imagePullSecrets,
        nodeSelector: values.nodeSelector,
        tolerations: values.tolerations,
        affinity: values.affinity,
        priorityClassName: 'system-cluster-critical',
      });
      expect(pod['topologySpreadConstraints']).toBeUndefined();
      const [container] = pod.containers;
      expect(container).toMatchObject({
        image: `registry.example:5000/team/crdgate@sha256:${'a'.repeat(64)}`,
        imagePullPolicy: 'Always',
        resources: values.resources,
      });
      expect((container!['args'] as string[]).slice(-2)).toEqual(['--log-level', 'debug']);
      const budget = objects.find((object) => object.kind === 'PodDisruptionBudget')!;
      expect((budget['spec'] as { minAvailable: number }).minAvailable).toBe(2);
      const withoutOptional = await template(chart, {
        podDisruptionBudget: { enabled: false },
        networkPolicy: { enabled: false },
      });
      expect(
        withoutOptional.filter((object) => object.kind === 'PodDisruptionBudget' || object.kind === 'NetworkPolicy'),
      ).toEqual([]);
    });

    it('puts the CA of certificates.caBundle where crdgate manifests --ca-bundle puts it', async () => {
      const caFile = join(workDir, 'ca.crt');
      await writeFile(caFile, caPem);
      const withCa = join(workDir, 'ca-bundle-tree');
      await run('manifests', '--ca-bundle', caFile, '--out', withCa);
      const helmObjects = comparable(await template(chart, { certificates: { mode: 'secret', caBundle: caPem } }));
      expect(helmObjects).toEqual(comparable(await kustomize(withCa)));
    });
  });

  it('the webhook settings as values render what the flags render, and the flags become the defaults', async () => {
    const flags = [
      '--failure-policy',
      'Ignore',
      '--timeout-seconds',
      '5',
      '--namespace-selector',
      'team in (maps,geo)',
      '--object-selector',
      '!skip-crdgate',
    ];
    const plain = join(workDir, 'plain-chart');
    await run('manifests', '--format', 'helm', '--out', plain);
    const { chart, tree } = await renderBoth('webhook-flags', flags);
    const fromFlags = comparable(await kustomize(tree));
    const values = {
      certificates: { mode: 'secret' },
      webhooks: {
        failurePolicy: 'Ignore',
        timeoutSeconds: 5,
        namespaceSelector: { matchExpressions: [{ key: 'team', operator: 'In', values: ['maps', 'geo'] }] },
        objectSelector: { matchExpressions: [{ key: 'skip-crdgate', operator: 'DoesNotExist' }] },
      },
    };
    expect(comparable(await template(plain, values))).toEqual(fromFlags);
    expect(comparable(await template(chart, { certificates: { mode: 'secret' } }))).toEqual(fromFlags);
  });

  it('several contracts in one named install, one of them on a CRD an operator owns, and one with a scale subresource: the same objects', async () => {
    const contracts = ['geodatabase.ts', 'db-cluster.ts', 'db-pooler.ts'].flatMap((file) => [
      '--contract',
      `test/e2e/support/contracts/${file}`,
    ]);
    const { chart, tree } = await renderBoth('named', [
      '--name',
      'fleet',
      '--image',
      'registry.example/fleet-crdgate:1.2.3',
      ...contracts,
    ]);
    const helmObjects = comparable(await template(chart));
    expect(helmObjects).toEqual(comparable(await kustomize(join(tree, 'overlays/self-managed-certs'))));
    const kinds = [...helmObjects.values()].map((object) => `${object.kind}/${object.metadata.name}`);
    // The operator's CRD is not the chart's; the built-in's is; the server may read what it scales and the CRD it follows.
    expect(kinds).toContain('CustomResourceDefinition/geodatabases.geo.example.com');
    expect(kinds).not.toContain('CustomResourceDefinition/dbclusters.dbops.example.com');
    expect(kinds.filter((kind) => kind.startsWith('ClusterRole/'))).toEqual(
      expect.arrayContaining([
        'ClusterRole/fleet-owner-crds',
        'ClusterRole/fleet-scale-reads',
        'ClusterRole/fleet-certs',
      ]),
    );
    const validating = helmObjects.get('ValidatingWebhookConfiguration//fleet') as
      { webhooks: Array<{ name: string; failurePolicy: string }> } | undefined;
    expect(validating?.webhooks.map((webhook) => webhook.name)).toContain(
      'scale.validate.dbclusters.dbops.example.com',
    );
    // Under the policy floor, /scale's webhook stays Fail: no policy can judge a Scale.
    const floor = comparable(await template(chart, { policyFloor: { enabled: true } })).get(
      'ValidatingWebhookConfiguration//fleet',
    ) as typeof validating;
    expect(floor?.webhooks.find((webhook) => webhook.name.startsWith('scale.'))?.failurePolicy).toBe('Fail');
    expect(
      floor?.webhooks.find((webhook) => webhook.name === 'validate.dbclusters.dbops.example.com')?.failurePolicy,
    ).toBe('Ignore');
    const chartYaml = await helmIn(['show', 'chart', chart]);
    expect(chartYaml.stdout).toMatch(/^name: fleet$/m);
    expect(chartYaml.stdout).toMatch(/^appVersion: 1\.2\.3$/m);
  });

  it("an operator's CRD guarded without defaults: no mutating configuration, no CRD values, in every certificate mode", async () => {
    const { chart, tree } = await renderBoth('guard', [
      '--image',
      'registry.example/db-guard:1.0.0',
      '--contract',
      'test/e2e/support/contracts/db-cluster.ts',
    ]);
    const linted = await helmIn(['lint', '--strict', chart]);
    expect(linted.exitCode, `${linted.stdout}\n${linted.stderr}`).toBe(0);
    for (const [values, dirs] of [
      [{}, [join(tree, 'overlays/self-managed-certs')]],
      // kustomize refuses a patch of an object the base lacks: cert-manager's overlay patched the empty mutating one.
      [{ certificates: { mode: 'cert-manager' } }, [join(tree, 'overlays/cert-manager')]],
      [
        { certificates: { mode: 'cert-manager' }, policyFloor: { enabled: true } },
        [join(tree, 'overlays/policy-floor')],
      ],
      [{ certificates: { mode: 'secret' } }, [tree]],
    ] as const) {
      const helmObjects = comparable(await template(chart, values));
      expect(helmObjects).toEqual(comparable(await kustomize(...dirs)));
      const kinds = [...helmObjects.values()].map((object) => object.kind);
      expect(kinds).toContain('ValidatingWebhookConfiguration');
      expect(kinds).not.toContain('MutatingWebhookConfiguration');
      expect(kinds).not.toContain('CustomResourceDefinition');
    }
    expect(await readFile(join(chart, 'values.yaml'), 'utf8')).not.toMatch(/^crds:/m);
  });

  describe('values.schema.json', () => {
    let chart: string;
    beforeAll(async () => {
      chart = join(workDir, 'schema-chart');
      await run('manifests', '--format', 'helm', '--out', chart);
    });

    // Each mistyped value, and the path helm's schema error must name.
    const refused: Array<[string, Record<string, unknown>, string]> = [
      ['replicas as a word', { replicas: 'two' }, '/replicas'],
      ['replicas of zero', { replicas: 0 }, '/replicas'],
      ['a misspelt key', { replica: 3 }, 'replica'],
      ['the image tag as a number', { image: { tag: 1.2 } }, '/image/tag'],
      ['an unknown pull policy', { image: { pullPolicy: 'Sometimes' } }, '/image/pullPolicy'],
      ['a digest without its algorithm', { image: { digest: 'abc123' } }, '/image/digest'],
      ['a lower-case failure policy', { webhooks: { failurePolicy: 'fail' } }, '/webhooks/failurePolicy'],
      ["a timeout beyond the API server's 30 s", { webhooks: { timeoutSeconds: 31 } }, '/webhooks/timeoutSeconds'],
      ['a timeout as a string', { webhooks: { timeoutSeconds: '10' } }, '/webhooks/timeoutSeconds'],
      [
        'a selector in kubectl syntax instead of a LabelSelector',
        { webhooks: { namespaceSelector: 'team=maps' } },
        '/webhooks/namespaceSelector',
      ],
      [
        'a selector operator that does not exist',
        { webhooks: { objectSelector: { matchExpressions: [{ key: 'team', operator: 'Is' }] } } },
        '/webhooks/objectSelector/matchExpressions/0/operator',
      ],
      ['an unknown certificate mode', { certificates: { mode: 'vault' } }, '/certificates/mode'],
      ['a word for a boolean', { crds: { keep: 'always' } }, '/crds/keep'],
      ['a pod annotation that is not a string', { podAnnotations: { replicas: 2 } }, '/podAnnotations/replicas'],
      ['tolerations as an object', { tolerations: { key: 'dedicated' } }, '/tolerations'],
      ['a NetworkPolicy switch without its key', { networkPolicy: true }, '/networkPolicy'],
      ['an unknown log level', { logLevel: 'verbose' }, '/logLevel'],
      [
        'a PodDisruptionBudget with a negative minimum',
        { podDisruptionBudget: { minAvailable: -1 } },
        '/podDisruptionBudget/minAvailable',
      ],
    ];
    for (const [what, values, path] of refused) {
      it(`refuses ${what}, naming ${path}`, async () => {
        const valuesFile = join(workDir, `refused-${path.replaceAll('/', '_')}.yaml`);
        await writeFile(valuesFile, stringify(values));
        const rendered = await helmIn(['template', 'crdgate', chart, '-f', valuesFile]);
        expect(rendered.exitCode).not.toBe(0);
        expect(rendered.stderr).toContain('schema');
        expect(rendered.stderr).toContain(path);
      });
    }

    it('accepts any key under global, as a parent chart passes them', async () => {
      const objects = await template(chart, {
        global: { imageRegistry: 'mirror.example', nested: { anything: [1, 'two'] } },
      });
      expect(objects.length).toBeGreaterThan(0);
    });
  });
});
