import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../cli-runner.fixture.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-manifests-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (...argv: string[]) => runCli(dir, ...argv);

describe('crdgate manifests', () => {
  it('prints URL clientConfigs with the CA bundle for a crdgate outside the cluster', async () => {
    await run('certs', '--out', 'pki');
    const ca = await readFile(join(dir, 'pki', 'ca.crt'));
    const { code, stdout } = await run('manifests', '--url', 'https://127.0.0.1:9443', '--ca-bundle', 'pki/ca.crt');
    expect(code).toBe(0);
    const objects = parseAllDocuments(stdout).map((d) => d.toJS());
    const kinds = objects.map((o) => o.kind);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'CustomResourceDefinition',
        'ValidatingWebhookConfiguration',
        'MutatingWebhookConfiguration',
      ]),
    );
    expect(kinds).not.toContain('Deployment');
    const clientConfigs = [
      ...objects
        .filter((o) => o.kind.endsWith('WebhookConfiguration'))
        .flatMap((o) => o.webhooks.map((w: any) => w.clientConfig)),
      objects.find((o) => o.kind === 'CustomResourceDefinition').spec.conversion.webhook.clientConfig,
    ];
    // Two validating webhooks: the resource's, and its status writes'.
    expect(clientConfigs.map((c) => c.url).sort()).toEqual([
      'https://127.0.0.1:9443/convert',
      'https://127.0.0.1:9443/mutate',
      'https://127.0.0.1:9443/validate',
      'https://127.0.0.1:9443/validate',
    ]);
    for (const config of clientConfigs) expect(Buffer.from(config.caBundle, 'base64')).toEqual(ca);
  });

  it('warns on stderr when the in-cluster webhooks have no caBundle, naming the ways to give one', async () => {
    const caBundles = (yaml: string) =>
      parseAllDocuments(yaml)
        .map((d) => d.toJS())
        .filter((o) => o.kind.endsWith('WebhookConfiguration'))
        .flatMap((o) => o.webhooks.map((w: any) => w.clientConfig.caBundle));
    const warning =
      /^warning: .*no caBundle: the API server cannot trust crdgate's serving certificate, so every write of GeoDatabase\.geo\.example\.com is refused/m;

    const printed = await run('manifests');
    expect(printed.code, printed.stderr).toBe(0);
    expect(caBundles(printed.stdout).length).toBeGreaterThan(0);
    expect(caBundles(printed.stdout).every((caBundle) => caBundle === undefined)).toBe(true);
    expect(printed.stderr).toMatch(warning);
    expect(printed.stderr).toMatch(
      /--ca-bundle FILE .*--out DIR and apply its overlays\/cert-manager or overlays\/self-managed-certs/,
    );

    const tree = await run('manifests', '--out', 'no-ca-tree');
    expect(tree.stderr).toMatch(warning);
    const overlays = tree.stderr.match(/apply (\S+) or (\S+) instead/)!.slice(1);
    expect(overlays).toEqual(['no-ca-tree/overlays/cert-manager', 'no-ca-tree/overlays/self-managed-certs']);
    for (const overlay of overlays) await readFile(join(dir, overlay, 'kustomization.yaml'));

    await run('certs', '--out', 'pki-warning');
    const given = await run('manifests', '--ca-bundle', 'pki-warning/ca.crt');
    expect(given.code, given.stderr).toBe(0);
    expect(caBundles(given.stdout).every((caBundle) => typeof caBundle === 'string')).toBe(true);
    expect(given.stderr).not.toContain('caBundle');
    // Called by URL, the API server's own root CAs may trust crdgate: nothing to warn about.
    expect((await run('manifests', '--url', 'https://127.0.0.1:9443')).stderr).not.toContain('caBundle');
  });

  it('renders the policy floor in its overlay, and says on stderr what it enforces, keeping stdout applicable YAML', async () => {
    const printed = await run('manifests', '--url', 'https://127.0.0.1:9443');
    expect(printed.code).toBe(0);
    expect(parseAllDocuments(printed.stdout).map((d) => d.toJS().kind)).not.toContain('ValidatingAdmissionPolicy');
    expect(parseAllDocuments(printed.stdout).map((d) => d.toJS().kind)).not.toContain('MutatingAdmissionPolicy');
    expect(printed.stderr).toMatch(
      /^policy floor for GeoDatabase: the API server enforces 16 of 16 change kinds and 1 of 1 deletion rules, refuses unseen changes of 1 of 6 fields an older version cannot show, and sets 5 of 5 defaults\n {2}webhook only: an unseen change of spec\.caches\[\*\]\.version written in v1beta1, .*: a field inside a list or a map: .*\n$/,
    );
    await run('certs', '--out', 'pki-floor');
    const written = await run(
      'manifests',
      '--url',
      'https://127.0.0.1:9443',
      '--ca-bundle',
      'pki-floor/ca.crt',
      '--out',
      'floor',
    );
    expect(written.code).toBe(0);
    const objects = parseAllDocuments(
      await readFile(join(dir, 'floor', 'overlays', 'policy-floor', 'admission-policies.yaml'), 'utf8'),
    ).map((d) => d.toJS());
    const policy = objects.find((o) => o.kind === 'ValidatingAdmissionPolicy');
    expect(policy.spec.matchConstraints.resourceRules[0]).toMatchObject({
      apiVersions: ['v1'],
      operations: ['UPDATE', 'DELETE'],
      resources: ['geodatabases'],
    });
    expect(objects.find((o) => o.kind === 'ValidatingAdmissionPolicyBinding').spec).toEqual({
      policyName: policy.metadata.name,
      validationActions: ['Deny'],
    });
    const defaults = objects.find((o) => o.kind === 'MutatingAdmissionPolicy');
    expect(defaults.metadata.name).toBe(policy.metadata.name);
    expect(defaults.spec.mutations).toHaveLength(5);
    expect(objects.find((o) => o.kind === 'MutatingAdmissionPolicyBinding').spec).toEqual({
      policyName: defaults.metadata.name,
    });
  });

  it("writes a kustomize tree for the user's own contract, image and namespace", async () => {
    const defineContract = JSON.stringify(new URL('../contract/define-contract.ts', import.meta.url).href);
    await writeFile(
      join(dir, 'widget-contract.ts'),
      `import { defineContract } from ${defineContract};
export default () => defineContract({
  identity: { group: 'toys.example.com', kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'Namespaced' },
  hub: 'v1',
  versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object' } } } }],
  conversions: {},
});
`,
    );
    const { code, stderr } = await run(
      'manifests',
      '--contract',
      'widget-contract.ts',
      '--image',
      'registry.example/widgets:1',
      '--namespace',
      'toys',
      '--out',
      'tree',
    );
    expect(code, stderr).toBe(0);
    const read = async (path: string) =>
      parseAllDocuments(await readFile(join(dir, 'tree', path), 'utf8')).map((d) => d.toJS());
    expect((await read('kustomization.yaml'))[0].resources).toEqual(['base']);
    expect((await read('base/kustomization.yaml'))[0].resources).toEqual([
      '00-namespace.yaml',
      '10-crdgate-server.yaml',
      '15-network-policy.yaml',
      '20-crd-widgets.toys.example.com.yaml',
      '30-webhook-configurations.yaml',
    ]);
    const deployment = (await read('base/10-crdgate-server.yaml')).find((o) => o.kind === 'Deployment');
    expect(deployment.metadata.namespace).toBe('toys');
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({
      image: 'registry.example/widgets:1',
      args: expect.arrayContaining(['--contract', './widget-contract.ts']),
    });
    // A single version converts nothing: the CA goes to the webhook configuration only (without defaults, there is
    // no mutating one to patch).
    expect(
      (await read('overlays/cert-manager/inject-ca.yaml')).map((o) => [
        o.kind,
        o.metadata.annotations['cert-manager.io/inject-ca-from'],
      ]),
    ).toEqual([['ValidatingWebhookConfiguration', 'toys/crdgate-serving-cert']]);
    expect((await read('overlays/monitoring/service-monitor.yaml'))[0].spec.namespaceSelector).toEqual({
      matchNames: ['toys'],
    });
  });

  it('names every object after --name, and with --url renders a contract without --image', async () => {
    const { code, stdout, stderr } = await run(
      'manifests',
      '--name',
      'toys',
      '--contract',
      'widget-contract.ts',
      '--url',
      'https://127.0.0.1:9443',
    );
    expect(code, stderr).toBe(0);
    const objects = parseAllDocuments(stdout).map((d) => d.toJS());
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'CustomResourceDefinition/widgets.toys.example.com',
      'ValidatingWebhookConfiguration/toys',
      'Namespace/crdgate-system',
      'ServiceAccount/toys-migrate',
      'ClusterRole/toys-migrate',
      'ClusterRoleBinding/toys-migrate',
      'PriorityLevelConfiguration/toys-migrate',
      'FlowSchema/toys-migrate',
      'Job/toys-migrate-widgets',
    ]);
  });

  it("says on stderr that /scale is the webhook's alone, and warns about a scale subresource no classifier reads", async () => {
    const fixture = JSON.stringify(new URL('../admission/scalable-geodatabase.fixture.ts', import.meta.url).href);
    await writeFile(
      join(dir, 'unread-scale.ts'),
      `import { scalableGeoDatabaseContract } from ${fixture};
const contract = scalableGeoDatabaseContract();
const scale = { specReplicasPath: '.spec.storage.replicas', statusReplicasPath: '.status.readyReplicas' };
export default { ...contract, versions: contract.versions.map((v) => (v.name === 'v1' ? { ...v, subresources: { ...v.subresources, scale } } : v)) };
`,
    );
    const scalable = await run(
      'manifests',
      '--contract',
      fileURLToPath(JSON.parse(fixture)),
      '--url',
      'https://127.0.0.1:9443',
    );
    expect(scalable.code, scalable.stderr).toBe(0);
    expect(scalable.stderr).toMatch(
      /^policy floor for GeoDatabase: the API server enforces 16 of 16 change kinds and 1 of 1 deletion rules, refuses unseen changes of 1 of 6 fields an older version cannot show, and sets 5 of 5 defaults\n {2}webhook only: spec changes through \/scale: a Scale carries neither/,
    );
    expect(scalable.stderr).not.toContain('warning');
    const kinds = parseAllDocuments(scalable.stdout).map((d) => `${d.toJS().kind}/${d.toJS().metadata.name}`);
    expect(kinds.slice(0, 2)).toEqual(['ClusterRole/crdgate-scale-reads', 'ClusterRoleBinding/crdgate-scale-reads']);
    const unread = await run('manifests', '--contract', 'unread-scale.ts', '--url', 'https://127.0.0.1:9443');
    expect(unread.code, unread.stderr).toBe(0);
    expect(unread.stderr).toMatch(
      /^warning: contract geodatabases\.geo\.example\.com: the scale subresource of the hub v1 writes spec\.storage\.replicas, which no classifier of the FSA reads/,
    );
  });

  it("stops on a contract whose CEL rules kube-apiserver would refuse, in the API server's words, and writes nothing", async () => {
    const example = JSON.stringify(new URL('../contracts/geodatabase/index.ts', import.meta.url).href);
    // The example's storageClassName rule with a typo: a function the API server's CEL environment does not have.
    await writeFile(
      join(dir, 'typo-rule.ts'),
      `import { geoDatabaseContract } from ${example};
const contract = geoDatabaseContract();
const withTypo = (schema) => JSON.parse(JSON.stringify(schema).replaceAll('format.dns1123Subdomain()', 'format.dns1123Subdomian()'));
export default { ...contract, versions: contract.versions.map((v) => ({ ...v, schema: withTypo(v.schema) })) };
`,
    );
    const refused = await run(
      'manifests',
      '--contract',
      'typo-rule.ts',
      '--url',
      'https://127.0.0.1:9443',
      '--out',
      'typo-tree',
    );
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(
      'contract geodatabases.geo.example.com: kube-apiserver would refuse its CRD: spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[storage].properties[storageClassName].x-kubernetes-validations[0].rule: Invalid value:',
    );
    expect(refused.stderr).toMatch(/compilation failed: ERROR: <input>:1:\d+: undeclared reference to 'format'/);
    await expect(readFile(join(dir, 'typo-tree', 'kustomization.yaml'))).rejects.toThrow(/ENOENT/);

    const example_ = await run('manifests', '--url', 'https://127.0.0.1:9443');
    expect(example_.code, example_.stderr).toBe(0);
    const crd = parseAllDocuments(example_.stdout)
      .map((d) => d.toJS())
      .find((o) => o.kind === 'CustomResourceDefinition');
    const storage = (version: string) =>
      crd.spec.versions.find((v: any) => v.name === version).schema.openAPIV3Schema.properties.spec.properties.storage;
    for (const version of ['v1', 'v1beta1'])
      expect(storage(version).properties.storageClassName['x-kubernetes-validations'][0].rule).toContain(
        'format.dns1123Subdomain()',
      );
  });

  it('renders the migration as Indexed Jobs with --migration-shards, writing through the status subresource with --migration-via status', async () => {
    const { code, stdout, stderr } = await run(
      'manifests',
      '--migration-shards',
      '3',
      '--migration-via',
      'status',
      '--url',
      'https://127.0.0.1:9443',
    );
    expect(code, stderr).toBe(0);
    const objects = parseAllDocuments(stdout).map((d) => d.toJS());
    const job = objects.find((o) => o.kind === 'Job');
    expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 3, parallelism: 3 });
    expect(job.spec.template.spec.containers[0].args).toEqual(
      expect.arrayContaining(['--shard', '$(JOB_COMPLETION_INDEX)/3', '--via', 'status']),
    );
    expect(objects.filter((o) => o.kind === 'ConfigMap').map((o) => o.metadata.name)).toEqual([job.metadata.name]);
  });

  it.each([
    [['--name', 'Team_A'], '--name'],
    [['--name', 'x'.repeat(51)], '--name'],
    [['--url', 'http://127.0.0.1:9443'], '--url'],
    [['--url', 'https://127.0.0.1:9443/hooks'], '--url'],
    [['--ca-bundle', 'absent.crt'], 'absent.crt'],
    [['--ca-bundle', 'not-pem.crt'], 'not-pem.crt'],
    [['--namespace', 'Crdgate_System'], '--namespace'],
    [['--migration-shards', '0'], '--migration-shards'],
    [['--migration-shards', '65'], '--migration-shards'],
    [['--migration-shards', 'two'], '--migration-shards'],
    [['--migration-via', 'main'], '--migration-via'],
    [
      ['--migration-via', 'status', '--contract', 'widget-contract.ts', '--url', 'https://127.0.0.1:9443'],
      'widgets.toys.example.com has no status subresource',
    ],
  ])('exits 2 with one line for %j', async (flags, named) => {
    await writeFile(join(dir, 'not-pem.crt'), 'hello');
    const result = await run('manifests', ...flags);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(named);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('crdgate manifests --format helm', () => {
  it('writes a chart: Chart.yaml, values with their schema, NOTES.txt and the templates (test/e2e/helm-chart.e2e.test.ts renders it with helm)', async () => {
    const { code, stdout, stderr } = await run('manifests', '--format', 'helm', '--name', 'geo', '--out', 'chart');
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('helm install geo');
    const chartYaml = parseAllDocuments(await readFile(join(dir, 'chart', 'Chart.yaml'), 'utf8'))[0]!.toJS();
    expect(chartYaml).toMatchObject({ apiVersion: 'v2', name: 'geo', appVersion: '0.1.0' });
    const schema = JSON.parse(await readFile(join(dir, 'chart', 'values.schema.json'), 'utf8')) as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['global', 'replicas', 'image', 'certificates', 'webhooks', 'crds']),
    );
    expect(await readFile(join(dir, 'chart', 'templates', 'NOTES.txt'), 'utf8')).toContain(
      'rollout status deployment/geo',
    );
    expect(await readFile(join(dir, 'chart', 'templates', 'crds.yaml'), 'utf8')).toContain(
      'name: geodatabases.geo.example.com',
    );
  });

  it.each([
    [['--format', 'helm'], '--out'],
    [['--format', 'helm', '--out', 'c', '--url', 'https://10.0.0.5:8443'], '--url'],
    [['--format', 'helm', '--out', 'c', '--ca-bundle', 'ca.crt'], 'certificates.caBundle'],
    [['--format', 'helm', '--out', 'c', '--namespace', 'ops'], '--namespace'],
    [['--format', 'chart', '--out', 'c'], 'kustomize, helm or olm'],
  ])('refuses %j as a usage error naming %s', async (flags, named) => {
    const { code, stderr } = await run('manifests', ...flags);
    expect(code).toBe(2);
    expect(stderr).toContain(named);
  });
});

describe('crdgate manifests --format olm', () => {
  const objectsIn = async (path: string) =>
    parseAllDocuments(await readFile(join(dir, path), 'utf8')).map((document) => document.toJS());

  it('writes a registry+v1 bundle and says on stderr what it cannot carry (src/render/olm has the rest; test/e2e/workloads-as-kubelet.e2e.test.ts installs it)', async () => {
    const { code, stdout, stderr } = await run(
      'manifests',
      ...['--format', 'olm', '--package', 'geo-guard', '--version', '1.0.0', '--out', 'bundle'],
    );
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('docker build -f');
    const [csv] = await objectsIn('bundle/manifests/geo-guard.clusterserviceversion.yaml');
    expect(csv).toMatchObject({ kind: 'ClusterServiceVersion', metadata: { name: 'geo-guard.v1.0.0' } });
    expect(csv.spec.replaces).toBeUndefined();
    const [annotations] = await objectsIn('bundle/metadata/annotations.yaml');
    expect(annotations.annotations).toMatchObject({
      'operators.operatorframework.io.bundle.mediatype.v1': 'registry+v1',
      'operators.operatorframework.io.bundle.package.v1': 'geo-guard',
      'operators.operatorframework.io.bundle.channel.default.v1': 'stable',
    });
    expect(stderr).toMatch(/^crdgate: what the bundle cannot say, against the kustomize install/m);
    expect(stderr).toMatch(/^ {2}- webhook validate\.geodatabases\.geo\.example\.com: no matchConditions/m);
  });

  it('puts the examples given into alm-examples and the icon into the CSV, refusing an example of a kind it does not own', async () => {
    const example = {
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name: 'example' },
      spec: { postgres: { version: '16.4', postgis: '3.4.2' }, storage: { size: '20Gi' } },
    };
    await writeFile(join(dir, 'example.json'), JSON.stringify(example));
    await writeFile(join(dir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    const olm = ['--format', 'olm', '--version', '1.0.0', '--out', 'presented'];
    const given = await run('manifests', ...olm, '--example', 'example.json', '--icon', 'icon.svg');
    expect(given.code, given.stderr).toBe(0);
    const [csv] = await objectsIn('presented/manifests/crdgate.clusterserviceversion.yaml');
    expect(JSON.parse(csv.metadata.annotations['alm-examples'])).toEqual([example]);
    expect(csv.spec.icon).toEqual([
      {
        mediatype: 'image/svg+xml',
        base64data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64'),
      },
    ]);
    await writeFile(join(dir, 'other.json'), JSON.stringify({ ...example, apiVersion: 'geo.example.com/v2' }));
    const refused = await run('manifests', ...olm, '--example', 'other.json');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--example other.json: a GeoDatabase of geo.example.com/v2 is not of a kind');
  });

  it.each([
    [['--format', 'olm', '--version', '1.0.0'], '--out'],
    [['--format', 'olm', '--out', 'b'], '--version'],
    [['--format', 'olm', '--out', 'b', '--version', '1.0'], 'semantic version'],
    [['--format', 'olm', '--out', 'b', '--version', '1.0.0', '--replaces', '1.0.0'], "the bundle's own --version"],
    [['--format', 'olm', '--out', 'b', '--version', '1.0.0', '--package', 'Geo_Guard'], '--package'],
    [['--format', 'olm', '--out', 'b', '--version', '1.0.0', '--namespace', 'ops'], '--namespace'],
    [['--format', 'olm', '--out', 'b', '--version', '1.0.0', '--url', 'https://10.0.0.5:8443'], '--url'],
    [['--format', 'olm', '--out', 'b', '--version', '1.0.0', '--owner-crds'], '--owner-crds'],
    [['--version', '1.0.0'], 'needs --format olm'],
    [['--icon', 'icon.svg'], 'needs --format olm'],
    [['--format', 'olm', '--out', 'b', '--version', '1.0.0', '--icon', 'icon.bmp'], '.svg, .png, .jpeg or .gif'],
  ])('refuses %j as a usage error naming %s', async (flags, named) => {
    const { code, stderr } = await run('manifests', ...flags);
    expect(code).toBe(2);
    expect(stderr).toContain(named);
  });
});

describe('crdgate manifests: what reaches crdgate, and the settings a platform team chooses', () => {
  const webhooksOf = (stdout: string) =>
    parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .filter((o) => o.kind.endsWith('WebhookConfiguration'))
      .flatMap((o) => o.webhooks);

  it('renders the webhooks with the failure policy, timeout and selectors given, leaving a webhook that can only warn at Ignore', async () => {
    const { code, stdout, stderr } = await run(
      'manifests',
      '--failure-policy',
      'Ignore',
      '--timeout-seconds',
      '5',
      '--namespace-selector',
      'kubernetes.io/metadata.name notin (kube-system)',
      '--object-selector',
      '!crdgate.io/skip',
    );
    expect(code, stderr).toBe(0);
    const webhooks = webhooksOf(stdout);
    expect(webhooks.map((w: any) => w.name)).toEqual([
      'validate.geodatabases.geo.example.com',
      'status.validate.geodatabases.geo.example.com',
      'mutate.geodatabases.geo.example.com',
    ]);
    // The status writes' webhook can only warn: it waits a second at most, whatever the flag.
    expect(webhooks.map((w: any) => w.timeoutSeconds)).toEqual([5, 1, 5]);
    for (const webhook of webhooks) {
      expect(webhook).toMatchObject({
        failurePolicy: 'Ignore',
        namespaceSelector: {
          matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }],
        },
        objectSelector: { matchExpressions: [{ key: 'crdgate.io/skip', operator: 'DoesNotExist' }] },
      });
    }
    const defaults = webhooksOf((await run('manifests')).stdout);
    expect(
      defaults.map((w: any) => [w.failurePolicy, w.timeoutSeconds, w.namespaceSelector, w.objectSelector]),
    ).toEqual([
      ['Fail', 10, undefined, undefined],
      ['Ignore', 1, undefined, undefined],
      ['Fail', 10, undefined, undefined],
    ]);
  });

  it.each([
    [['--failure-policy', 'Never'], '--failure-policy must be Fail or Ignore, got "Never"'],
    [['--timeout-seconds', '60'], '--timeout-seconds must be a whole number of seconds from 1 to 30'],
    [['--namespace-selector', 'team in ()'], '--namespace-selector team in needs at least one value'],
    [['--object-selector', 'a b'], '--object-selector cannot read "a b"'],
  ])('refuses %j with a usage error naming the flag', async (flags, message) => {
    const { code, stdout, stderr } = await run('manifests', ...flags);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
  });

  it('explains per webhook which requests reach crdgate and why, instead of rendering', async () => {
    const { code, stdout } = await run('manifests', '--explain', '--failure-policy', 'Ignore');
    expect(code).toBe(0);
    expect(stdout).not.toContain('apiVersion:');
    expect(stdout).toContain(
      'validating webhook validate.geodatabases.geo.example.com (failurePolicy Ignore, timeoutSeconds 10: crdgate can refuse these)',
    );
    expect(stdout).toMatch(
      /UPDATE of geodatabases: only when one of these changes: .*geo\.example\.com\/postgres-major/,
    );
    expect(stdout).toContain(
      'DELETE of geodatabases: only of an object that carries geo.example.com/deletion-protection: "true"',
    );
    expect(stdout).toContain(
      'validating webhook status.validate.geodatabases.geo.example.com (failurePolicy Ignore, timeoutSeconds 1: crdgate can only warn about these, never refuse one)',
    );
    expect(stdout).toContain('UPDATE of geodatabases/status: only when one of these changes: status.phase');
    // GeoDatabase declares its reads: nothing to warn of.
    expect(stdout).not.toContain('declares no reads');
  });

  it('warns, by a stable code on stderr and in --explain, of a contract that declares no reads', async () => {
    // A contract that declares no reads; the built-in example declares all three.
    const defineContract = JSON.stringify(new URL('../contract/define-contract.ts', import.meta.url).href);
    await writeFile(
      join(dir, 'gadget-contract.ts'),
      `import { defineContract } from ${defineContract};
export default () => defineContract({
  identity: { group: 'toys.example.com', kind: 'Gadget', plural: 'gadgets', singular: 'gadget', scope: 'Namespaced' },
  hub: 'v1',
  versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object' } } } }],
  conversions: {},
});
`,
    );
    const rendered = await run('manifests', '--contract', 'gadget-contract.ts', '--url', 'https://127.0.0.1:9443');
    expect(rendered.code, rendered.stderr).toBe(0);
    const lines = rendered.stderr.split('\n').filter((line) => line.endsWith('(READS_UNDECLARED)'));
    expect(lines).toEqual([
      'warning: contract gadgets.toys.example.com: the contract declares no reads of labels and annotations, so every label and annotation edit of its objects reaches crdgate and waits on it, and is refused while crdgate is down (failurePolicy Fail): declare reads: { labels: [...], annotations: [...] } with the keys its invariants, defaults and update rules read ([] for none) (READS_UNDECLARED)',
    ]);
    const explained = await run(
      'manifests',
      '--contract',
      'gadget-contract.ts',
      '--url',
      'https://127.0.0.1:9443',
      '--explain',
    );
    expect(explained.code, explained.stderr).toBe(0);
    expect(explained.stderr).toContain('(READS_UNDECLARED)');
    expect(explained.stdout).toContain(
      '  warning: the contract declares no reads of labels and annotations, so every label and annotation edit of its objects reaches crdgate',
    );
    const builtIn = await run('manifests', '--url', 'https://127.0.0.1:9443');
    expect(builtIn.stderr).not.toContain('READS_UNDECLARED');
  });
});

describe("crdgate manifests for an operator's CRD", () => {
  it("renders no CRD and no migration for it, and with --owner-crds the owner's CRD as it is", async () => {
    const crdgate = JSON.stringify(new URL('../index.ts', import.meta.url).href);
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'pools.ops.example.com', annotations: { 'helm.sh/chart': 'ops-1.0.0' } },
      spec: {
        group: 'ops.example.com',
        names: { kind: 'Pool', plural: 'pools' },
        scope: 'Namespaced',
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    };
    await writeFile(join(dir, 'pools.json'), JSON.stringify(crd));
    await writeFile(
      join(dir, 'pool-contract.ts'),
      `import { defineContract, fromCrd, readCrdFile } from ${crdgate};\n` +
        `export default () => defineContract({ ...fromCrd(readCrdFile(new URL('./pools.json', import.meta.url)), { crdOwner: 'external' }) });\n`,
    );
    const kindsOf = (stdout: string) =>
      parseAllDocuments(stdout)
        .map((d) => d.toJS())
        .map((o) => `${o.kind}/${o.metadata.name}`);
    const plain = await run('manifests', '--contract', 'pool-contract.ts', '--url', 'https://127.0.0.1:9443');
    expect(plain.code).toBe(0);
    // Called by URL too, the server follows the owner's CRD (drift reports): its RBAC is rendered, by name.
    expect(kindsOf(plain.stdout)).toEqual([
      'ClusterRole/crdgate-owner-crds',
      'ClusterRoleBinding/crdgate-owner-crds',
      'ValidatingWebhookConfiguration/crdgate',
    ]);
    // A guard with no rules of its own: creates and updates of what it reads (everything) reach crdgate, and no
    // defaults, no deletion rules, no status check: no mutating webhook, no DELETE, no status webhook.
    const configurations = parseAllDocuments(plain.stdout)
      .map((d) => d.toJS())
      .filter((o) => o.kind.endsWith('WebhookConfiguration'));
    expect(
      configurations.map((o) =>
        (o.webhooks as any[]).map((w) => [
          w.name,
          w.rules.map((r: any) => `${r.operations.join('+')} ${r.resources.join()}`),
        ]),
      ),
    ).toEqual([[['validate.pools.ops.example.com', ['CREATE+UPDATE pools']]]]);
    const role = parseAllDocuments(plain.stdout)
      .map((d) => d.toJS())
      .find((o) => o.kind === 'ClusterRole');
    expect(role.rules).toEqual([
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['pools.ops.example.com'],
        verbs: ['get', 'list', 'watch'],
      },
    ]);
    const local = await run(
      'manifests',
      '--contract',
      'pool-contract.ts',
      '--url',
      'https://127.0.0.1:9443',
      '--owner-crds',
    );
    const owners = parseAllDocuments(local.stdout)
      .map((d) => d.toJS())
      .filter((o) => o.kind === 'CustomResourceDefinition');
    expect(owners).toEqual([crd]);
  });
});

describe("crdgate manifests: the server's memory, from what it guards", () => {
  const crdgate = JSON.stringify(new URL('../index.ts', import.meta.url).href);
  const shapes = fileURLToPath(
    new URL('../../test/fixtures/controller-gen/crds/shapes.fixtures.crdgate.example.com_shapes.yaml', import.meta.url),
  );
  const deploymentOf = (stdout: string) => {
    const deployment = parseAllDocuments(stdout)
      .map((d) => d.toJS())
      .find((o) => o.kind === 'Deployment');
    const container = deployment.spec.template.spec.containers[0];
    const mi = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)![1]);
    return {
      requestMi: mi(container.resources.requests.memory),
      limitMi: mi(container.resources.limits.memory),
      heapMi: Number(/--max-old-space-size=(\d+)/.exec(container.env[0].value)![1]),
    };
  };

  it("adds what a large CRD's schemas hold to the example's figures, says so on stderr, and yields to the flags", async () => {
    await writeFile(
      join(dir, 'shape-contract.ts'),
      `import { defineContract, fromCrd, readCrdFile } from ${crdgate};\n` +
        `export default () => defineContract({ ...fromCrd(readCrdFile(${JSON.stringify(shapes)}), { crdOwner: 'external' }) });\n`,
    );
    const example = deploymentOf((await run('manifests')).stdout);
    const rendered = await run('manifests', '--contract', 'shape-contract.ts', '--image', 'registry.example/shapes:1');
    expect(rendered.code).toBe(0);
    const sized = deploymentOf(rendered.stdout);
    // The same amount on the request and the limit, and the heap cap raised with them.
    expect(sized.limitMi - example.limitMi).toBeGreaterThan(0);
    expect(sized.requestMi - example.requestMi).toBe(sized.limitMi - example.limitMi);
    expect(sized.heapMi).toBeGreaterThan(example.heapMi);
    expect(rendered.stderr).toContain(
      `the server's memory: request ${sized.requestMi}Mi, limit ${sized.limitMi}Mi, heap cap ${sized.heapMi} MiB, for 1 kind (`,
    );
    // The built-in example alone says nothing of it.
    expect((await run('manifests')).stderr).not.toContain("the server's memory");

    const given = await run('manifests', '--contract', 'shape-contract.ts', '--image', 'i:1', '--memory-limit', '2Gi');
    const large = deploymentOf(given.stdout);
    expect(large.limitMi).toBe(2048);
    expect(large.heapMi).toBeGreaterThan(sized.heapMi);
    expect(large.heapMi).toBeLessThan(2048);
    expect(given.stderr).toContain('as given');
    expect(given.stderr).not.toContain('MEMORY_BELOW_ESTIMATE');

    const small = await run(
      'manifests',
      '--contract',
      'shape-contract.ts',
      '--image',
      'i:1',
      '--memory-limit',
      '300Mi',
    );
    expect(deploymentOf(small.stdout)).toMatchObject({ limitMi: 300 });
    expect(small.stderr).toMatch(
      /^warning: --memory-limit 300Mi is below the \d+Mi measured .*\(MEMORY_BELOW_ESTIMATE\)$/m,
    );

    for (const bad of [
      ['--memory-limit', 'lots'],
      ['--memory-request', '10Mi'],
      ['--memory-request', '1Gi', '--memory-limit', '512Mi'],
    ]) {
      const refused = await run('manifests', ...bad);
      expect(refused.code, bad.join(' ')).toBe(2);
      expect(refused.stderr, bad.join(' ')).toContain('--memory-');
    }
  });
});
