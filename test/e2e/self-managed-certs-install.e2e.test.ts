import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { runCli } from '../../src/cli-runner.fixture.ts';
import { installNames } from '../../src/render/in-cluster-names.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { kubectl, warningLines, type KubectlResult, crdNotBeingDeleted } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const crdName = 'geodatabases.geo.example.com';

/**
 * The self-managed-certs overlay as a user installs it inside the cluster: `crdgate manifests --out DIR`, then
 * `kubectl apply --server-side -k DIR/overlays/self-managed-certs`, with strict field validation. No controller-manager
 * or kubelet runs here, so no pod starts: what is checked is what the API server stored, what its RBAC allows the
 * server's ServiceAccount (asked of the API server's own authorizer, and done for real by impersonating it), and that
 * applying the overlay again keeps what crdgate wrote into the objects it shares with the manifests. The runtime
 * itself is test/e2e/self-managed-certs.e2e.test.ts. The CRD is shared with the other e2e files, which run one at a
 * time; this file removes it and every other cluster-scoped object it made again, webhooks first.
 */
describe.skipIf(!controlPlane)(
  'overlays/self-managed-certs applied with kubectl apply -k to the real API server',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const id = randomUUID().slice(0, 8);
    const installName = `selfcerts-${id}`;
    const namespace = `crdgate-e2e-self-certs-install-${id}`;
    const names = installNames(installName);
    const serviceAccount = `system:serviceaccount:${namespace}:${names.server}`;
    // Another install's objects of the same kinds, which this install's ServiceAccount must not touch.
    const other = `other-${id}`;
    const otherCrd = `widgets.other-${id}.example.com`;
    let workDir: string | undefined;
    let overlay: string;
    let stored: Map<string, any>;
    /** A real PEM certificate as a caBundle: the test control plane's CA. */
    let caBundle: string;

    const key = (o: any) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
    const succeeded = (result: KubectlResult): string => {
      expect(result.exitCode, result.stderr).toBe(0);
      return result.stdout;
    };
    const asServiceAccount = (args: string[]) => kubectl(cp, ['--as', serviceAccount, ...args]);
    const canI = async (verb: string, resource: string, inNamespace = namespace) =>
      (await asServiceAccount(['auth', 'can-i', verb, resource, '-n', inNamespace])).stdout.trim();
    const apply = async (): Promise<KubectlResult> => {
      const applied = await kubectl(cp, ['apply', '--server-side', '--validate=strict', '-k', overlay]);
      succeeded(applied);
      return applied;
    };
    const readStored = async (): Promise<Map<string, any>> => {
      const items = (JSON.parse(succeeded(await kubectl(cp, ['get', '-k', overlay, '-o', 'json']))) as { items: any[] })
        .items;
      return new Map(items.map((object) => [key(object), object]));
    };
    const writeJson = async (name: string, object: unknown): Promise<string> => {
      const file = join(workDir!, name);
      await writeFile(file, JSON.stringify(object));
      return file;
    };

    beforeAll(async () => {
      workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-self-certs-install-'));
      const tree = join(workDir, 'deploy');
      overlay = join(tree, 'overlays', 'self-managed-certs');
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cp.kubeconfigPath);
      caBundle = kubeConfig.getCurrentCluster()!.caData!;
      const rendered = await runCli(
        workDir,
        'manifests',
        '--name',
        installName,
        '--namespace',
        namespace,
        '--out',
        tree,
      );
      expect(rendered.code, rendered.stderr).toBe(0);

      // The previous file's CRD may still be going (its instances are deleted first); applying to it would fail.
      await crdNotBeingDeleted(cp, crdName);
      const applied = await apply();
      // The namespace warns on pods that break the restricted Pod Security Standard: the patched Deployment must not.
      expect(warningLines(applied)).toEqual([]);
      stored = await readStored();
    });

    afterAll(async () => {
      if (!controlPlane) return;
      // Webhooks first, so that no later write of a GeoDatabase is sent to a crdgate that is not running; then the
      // CRD, which names it for conversion, and the rest that is cluster-scoped.
      await kubectl(cp, [
        'delete',
        '--ignore-not-found',
        ...['validating', 'mutating'].flatMap((kind) => [
          `${kind}webhookconfiguration/${installName}`,
          `${kind}webhookconfiguration/${other}`,
        ]),
      ]);
      const crdDeleted = await kubectl(cp, [
        'delete',
        '--ignore-not-found',
        '--wait=true',
        '--timeout=60s',
        `crd/${crdName}`,
      ]);
      const rbacDeleted = await kubectl(cp, [
        'delete',
        '--ignore-not-found',
        `clusterrolebinding/${names.certAccess}`,
        `clusterrole/${names.certAccess}`,
      ]);
      // No controller-manager runs, so the namespace stays Terminating; its name is unique to this run.
      await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
      if (workDir) await rm(workDir, { recursive: true, force: true });
      expect(crdDeleted.exitCode, crdDeleted.stderr).toBe(0);
      expect(rbacDeleted.exitCode, rbacDeleted.stderr).toBe(0);
    });

    it('stores the base with the empty Secret and Lease, and the RBAC for the ServiceAccount', async () => {
      const built = parseAllDocuments(succeeded(await kubectl(cp, ['kustomize', overlay]))).map((doc) => doc.toJS());
      expect(built.map(key).sort()).toEqual(
        [
          `Namespace//${namespace}`,
          `ServiceAccount/${namespace}/${names.server}`,
          `Service/${namespace}/${names.server}`,
          `Deployment/${namespace}/${names.server}`,
          `PodDisruptionBudget/${namespace}/${names.server}`,
          `NetworkPolicy/${namespace}/${names.server}`,
          `CustomResourceDefinition//${crdName}`,
          `ValidatingWebhookConfiguration//${installName}`,
          `MutatingWebhookConfiguration//${installName}`,
          `Secret/${namespace}/${names.servingCertSecret}`,
          `Lease/${namespace}/${names.certLease}`,
          `Role/${namespace}/${names.certAccess}`,
          `RoleBinding/${namespace}/${names.certAccess}`,
          `ClusterRole//${names.certAccess}`,
          `ClusterRoleBinding//${names.certAccess}`,
        ].sort(),
      );
      for (const object of built) expect(stored.get(key(object))?.metadata.uid, key(object)).toBeTruthy();
      const secret = stored.get(`Secret/${namespace}/${names.servingCertSecret}`);
      expect(secret.type).toBe('Opaque');
      expect(secret).not.toHaveProperty('data');
      expect(stored.get(`Lease/${namespace}/${names.certLease}`).spec).toEqual({});
      const clientConfigs = [
        ...['Validating', 'Mutating'].flatMap((kind) =>
          stored.get(`${kind}WebhookConfiguration//${installName}`).webhooks.map((w: any) => w.clientConfig),
        ),
        stored.get(`CustomResourceDefinition//${crdName}`).spec.conversion.webhook.clientConfig,
      ];
      // The resource's and its status writes' validating webhooks, the mutating one, the conversion.
      expect(clientConfigs).toHaveLength(4);
      for (const config of clientConfigs) expect(config).not.toHaveProperty('caBundle');
    });

    it('stores the Deployment running serve --manage-certs with its API token, the pod identity and no Secret volume', () => {
      const pod = stored.get(`Deployment/${namespace}/${names.server}`).spec.template.spec;
      expect(pod.automountServiceAccountToken).toBe(true);
      expect(pod.serviceAccountName).toBe(names.server);
      expect(pod.volumes).toBeUndefined();
      const [container] = pod.containers;
      expect(container.args).toEqual(['serve', '--manage-certs', '--name', installName, '--namespace', namespace]);
      expect(container.volumeMounts).toBeUndefined();
      expect(container.env.map((e: any) => [e.name, e.valueFrom?.fieldRef?.fieldPath ?? 'value'])).toEqual([
        ['POD_NAME', 'metadata.name'],
        ['POD_NAMESPACE', 'metadata.namespace'],
        ['NODE_OPTIONS', 'value'],
      ]);
    });

    it('stores the NetworkPolicy with ingress to https only and egress to the API server ports only', () => {
      const policy = stored.get(`NetworkPolicy/${namespace}/${names.server}`).spec;
      expect(policy.policyTypes).toEqual(['Ingress', 'Egress']);
      expect(policy.ingress).toEqual([{ ports: [{ port: 'https', protocol: 'TCP' }] }]);
      expect(policy.egress).toEqual([
        {
          ports: [
            { port: 443, protocol: 'TCP' },
            { port: 6443, protocol: 'TCP' },
          ],
        },
      ]);
    });

    it('lets the ServiceAccount follow and write its own Secret, Lease, webhook configurations and CRD, by name', async () => {
      const allowed: Array<[string, string]> = [
        ...['get', 'list', 'watch', 'update'].flatMap((verb): Array<[string, string]> => [
          [verb, `secret/${names.servingCertSecret}`],
          [verb, `lease.coordination.k8s.io/${names.certLease}`],
        ]),
        ...['get', 'list', 'watch', 'patch'].flatMap((verb): Array<[string, string]> => [
          [verb, `validatingwebhookconfiguration/${installName}`],
          [verb, `mutatingwebhookconfiguration/${installName}`],
          [verb, `customresourcedefinition/${crdName}`],
        ]),
      ];
      const answers = await Promise.all(
        allowed.map(async ([verb, resource]) => `${verb} ${resource}: ${await canI(verb, resource)}`),
      );
      expect(answers).toEqual(allowed.map(([verb, resource]) => `${verb} ${resource}: yes`));
    });

    it('lets the ServiceAccount do nothing else: no other Secret, no create, no delete, no list of all, no other webhook or CRD', async () => {
      const refused: Array<[string, string, string?]> = [
        ['update', `secret/${other}`],
        ['get', `secret/${other}`],
        ['create', 'secrets'],
        ['list', 'secrets'],
        ['watch', 'secrets'],
        ['delete', `secret/${names.servingCertSecret}`],
        ['patch', `secret/${names.servingCertSecret}`],
        ['update', `secret/${names.servingCertSecret}`, 'default'],
        ['create', 'leases.coordination.k8s.io'],
        ['update', `lease.coordination.k8s.io/${other}`],
        ['delete', `lease.coordination.k8s.io/${names.certLease}`],
        ['patch', `validatingwebhookconfiguration/${other}`],
        ['patch', `mutatingwebhookconfiguration/${other}`],
        ['list', 'validatingwebhookconfigurations'],
        ['delete', `validatingwebhookconfiguration/${installName}`],
        ['patch', `customresourcedefinition/${otherCrd}`],
        ['get', `customresourcedefinition/${otherCrd}`],
        ['list', 'customresourcedefinitions'],
        ['update', `customresourcedefinition/${crdName}`],
        ['get', 'configmaps'],
      ];
      const answers = await Promise.all(
        refused.map(
          async ([verb, resource, inNamespace]) =>
            `${verb} ${resource} -n ${inNamespace ?? namespace}: ${await canI(verb, resource, inNamespace)}`,
        ),
      );
      expect(answers).toEqual(
        refused.map(([verb, resource, inNamespace]) => `${verb} ${resource} -n ${inNamespace ?? namespace}: no`),
      );

      // And for real, on objects that exist: another install's Secret and webhook configuration.
      succeeded(await kubectl(cp, ['create', 'secret', 'generic', other, '-n', namespace, '--from-literal=key=value']));
      succeeded(
        await kubectl(cp, [
          'create',
          '-f',
          await writeJson('other-webhooks.json', {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingWebhookConfiguration',
            metadata: { name: other },
          }),
        ]),
      );
      const addLabel = JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { touched: 'yes' } }]);
      for (const args of [
        ['patch', 'secret', other, '-n', namespace, '--type=json', '-p', addLabel],
        ['patch', 'validatingwebhookconfiguration', other, '--type=json', '-p', addLabel],
        ['create', 'secret', 'generic', `${other}-new`, '-n', namespace, '--from-literal=key=value'],
        ['get', 'secrets', '-n', namespace],
      ]) {
        const result = await asServiceAccount(args);
        expect(result.exitCode, `${args.join(' ')}: ${result.stdout}`).not.toBe(0);
        expect(result.stderr, args.join(' ')).toMatch(/\bforbidden\b/i);
      }
    });

    it('keeps what the ServiceAccount wrote when the overlay is applied again: the keys, the Lease holder, every caBundle', async () => {
      // As crdgate writes them: update (PUT) of the Secret and the Lease, JSON patches of the caBundles, all as the
      // ServiceAccount, so that its RBAC is exercised too and the fields belong to another field manager than kubectl's.
      const base64 = (text: string) => Buffer.from(text).toString('base64');
      const secret = JSON.parse(
        succeeded(await asServiceAccount(['get', 'secret', names.servingCertSecret, '-n', namespace, '-o', 'json'])),
      );
      secret.data = {
        'ca.crt': caBundle,
        'ca.key': base64('ca key'),
        'tls.crt': caBundle,
        'tls.key': base64('serving key'),
      };
      secret.metadata.annotations = { 'crdgate.dev/rotation-step-at': '2030-01-01T00:00:00Z' };
      succeeded(await asServiceAccount(['replace', '-f', await writeJson('secret.json', secret)]));
      const lease = JSON.parse(
        succeeded(await asServiceAccount(['get', 'lease', names.certLease, '-n', namespace, '-o', 'json'])),
      );
      lease.spec = { holderIdentity: 'replica-a', leaseDurationSeconds: 15 };
      succeeded(await asServiceAccount(['replace', '-f', await writeJson('lease.json', lease)]));
      const addCaBundle = (path: string) => JSON.stringify([{ op: 'add', path, value: caBundle }]);
      for (const kind of ['validatingwebhookconfiguration', 'mutatingwebhookconfiguration']) {
        succeeded(
          await asServiceAccount([
            'patch',
            kind,
            installName,
            '--type=json',
            '-p',
            addCaBundle('/webhooks/0/clientConfig/caBundle'),
          ]),
        );
      }
      succeeded(
        await asServiceAccount([
          'patch',
          'crd',
          crdName,
          '--type=json',
          '-p',
          addCaBundle('/spec/conversion/webhook/clientConfig/caBundle'),
        ]),
      );

      // No conflict either: the apply sets none of those fields.
      await apply();
      const after = await readStored();
      const kept = after.get(`Secret/${namespace}/${names.servingCertSecret}`);
      expect(kept.data).toEqual(secret.data);
      expect(kept.metadata.annotations).toEqual(secret.metadata.annotations);
      expect(kept.type).toBe('Opaque');
      expect(after.get(`Lease/${namespace}/${names.certLease}`).spec).toEqual({
        holderIdentity: 'replica-a',
        leaseDurationSeconds: 15,
      });
      for (const kind of ['Validating', 'Mutating']) {
        expect(after.get(`${kind}WebhookConfiguration//${installName}`).webhooks[0].clientConfig.caBundle, kind).toBe(
          caBundle,
        );
      }
      expect(after.get(`CustomResourceDefinition//${crdName}`).spec.conversion.webhook.clientConfig.caBundle).toBe(
        caBundle,
      );
    });
  },
);
