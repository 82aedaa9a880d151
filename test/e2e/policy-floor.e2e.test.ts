import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { join } from 'node:path';
import { CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { eventually } from '../../src/local-loop/eventually.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { refusal, type ApiErrorStatus } from './support/api-error.ts';
import { metricSum, scrapeApiServer } from './support/api-server-metrics.ts';
import type { CrdgateProcess } from './support/crdgate-restartable-process.ts';
import { removeGeoDatabaseInstall, renderGeoDatabaseInstall, type RenderedInstall } from './support/floor-install.ts';
import { geoDatabases, invalidGeoDatabase, validGeoDatabase } from './support/geodatabases.ts';
import { kubectl, warningLines } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const crdName = 'geodatabases.geo.example.com';
const validatingWebhook = `validate.${crdName}`;
const mutatingWebhook = `mutate.${crdName}`;
// Status writes that move the phase, about which crdgate can only warn: Ignore in both modes.
const statusWebhook = `status.validate.${crdName}`;
const deletionProtected = { 'geo.example.com/deletion-protection': 'true' };

// Every object here is created from validGeoDatabase: storage 20Gi, PostgreSQL 16.4, PostGIS 3.4.2.
const storageShrink = { spec: { storage: { size: '10Gi' } } };
const growAndUpgradeTogether = { spec: { storage: { size: '40Gi' }, postgres: { version: '16.6' } } };
// A PostGIS upgrade the machine allows in Ready, to a release the contract's invariants do not support: only crdgate
// itself can refuse it.
const unsupportedPostgis = (release: string) => ({ spec: { postgres: { postgis: release } } });
const scaleTo = (readReplicas: number) => ({ spec: { readReplicas } });

function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/**
 * The availability mode, as a user installs it: `crdgate manifests --url ... --out DIR`, then `kubectl apply -k
 * DIR/overlays/policy-floor`, with crdgate serving as a separate process on 127.0.0.1 that is SIGKILLed, restarted,
 * frozen and killed again. The objects are written in v1, the CRD's storage version and hub, so that no request
 * needs the conversion webhook while crdgate is down (one request in v1beta1 shows that it would). The CRD is
 * shared with the other e2e files, which run one at a time and each install and remove their own; this file
 * removes its CRD, webhook configurations, policy and binding again, webhooks first.
 */
describe.skipIf(!controlPlane)(
  'overlays/policy-floor: the API server keeps the policy floor while crdgate is down',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const id = randomUUID().slice(0, 8);
    const installName = `floor-${id}`;
    const namespace = `crdgate-e2e-policy-floor-${id}`;
    const policyName = `${installName}.${crdName}`;
    const policyDenial = `ValidatingAdmissionPolicy '${policyName}' with binding '${policyName}' denied request: `;
    const webhookDenial = `admission webhook "${validatingWebhook}" denied the request: `;
    let install: RenderedInstall | undefined;
    let tree: string;
    let gate: CrdgateProcess | undefined;
    let customObjects: CustomObjectsApi;
    /** What `kubectl kustomize DIR/overlays/policy-floor` builds, as applied. */
    let built: any[];

    const get = (name: string): Promise<any> =>
      customObjects.getNamespacedCustomObject({ ...geoDatabases, namespace, name });
    const dryRun = (yes: boolean) => (yes ? { dryRun: 'All' } : {});
    const create = (body: object, isDryRun = false): Promise<any> =>
      customObjects.createNamespacedCustomObject({ ...geoDatabases, namespace, body, ...dryRun(isDryRun) });
    const patch = (name: string, body: object, isDryRun = false): Promise<any> =>
      customObjects.patchNamespacedCustomObject(
        { ...geoDatabases, namespace, name, body, ...dryRun(isDryRun) },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    const remove = (name: string) => customObjects.deleteNamespacedCustomObject({ ...geoDatabases, namespace, name });
    // kubectl where the user's view is the point: the warnings it prints.
    const kubectlPatch = (name: string, body: object) =>
      kubectl(cp, ['patch', 'geodatabase', name, '-n', namespace, '--type=merge', '-p', JSON.stringify(body)]);
    // The operator's move: status.phase is written through the status subresource only.
    const setPhase = async (name: string, phase: string) => {
      const moved = await kubectl(cp, [
        'patch',
        'geodatabase',
        name,
        '-n',
        namespace,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { phase } }),
      ]);
      expect(moved.exitCode, moved.stderr).toBe(0);
    };
    const byPolicy = (status: ApiErrorStatus, reason: string) => {
      expect(status.code).toBe(403);
      expect(status.message).toContain(policyDenial);
      expect(status.message).toContain(reason);
    };
    const webhookConfigurationFailurePolicies = async () => {
      const read = await kubectl(cp, [
        'get',
        `validatingwebhookconfiguration/${installName}`,
        `mutatingwebhookconfiguration/${installName}`,
        '-o',
        'json',
      ]);
      expect(read.exitCode, read.stderr).toBe(0);
      return (JSON.parse(read.stdout) as { items: any[] }).items
        .flatMap((item) => item.webhooks.map((webhook: any) => `${webhook.name}: ${webhook.failurePolicy}`))
        .sort();
    };

    beforeAll(async () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cp.kubeconfigPath);
      customObjects = kubeConfig.makeApiClient(CustomObjectsApi);
      install = await renderGeoDatabaseInstall(cp, installName, namespace);
      ({ tree, gate } = install);
      const overlay = join(tree, 'overlays', 'policy-floor');
      const kustomized = await kubectl(cp, ['kustomize', overlay]);
      expect(kustomized.exitCode, kustomized.stderr).toBe(0);
      built = parseAllDocuments(kustomized.stdout).map((doc) => doc.toJS());
      const applied = await kubectl(cp, ['apply', '--server-side', '-k', overlay]);
      expect(applied.exitCode, applied.stderr).toBe(0);
      const established = await kubectl(cp, ['wait', '--for=condition=Established', '--timeout=60s', `crd/${crdName}`]);
      expect(established.exitCode, established.stderr).toBe(0);

      // The API server picks configurations up from a watch, a moment after they are stored; with Ignore, a write in
      // that moment would pass unchecked, so nothing is written until both webhooks and the policy answer.
      await eventually('the validating webhook to refuse an invalid GeoDatabase', async () => {
        const status = await refusal(create(invalidGeoDatabase(namespace, 'probe-invalid'), true)).catch(
          () => undefined,
        );
        return status?.message.includes(webhookDenial) ? true : undefined;
      });
      await eventually('the mutating webhook to default a GeoDatabase', async () =>
        (await create(validGeoDatabase(namespace, 'probe-defaults'), true)).spec.readReplicas === 0 ? true : undefined,
      );
      await create(validGeoDatabase(namespace, 'ready'));
      await setPhase('ready', 'Ready');
      await eventually('the policy to refuse a storage shrink', async () => {
        const status = await refusal(patch('ready', storageShrink, true)).catch(() => undefined);
        return status?.message.includes(policyDenial) ? true : undefined;
      });

      await create(validGeoDatabase(namespace, 'upgrading'));
      await setPhase('upgrading', 'Upgrading');
      await create(validGeoDatabase(namespace, 'protected', deletionProtected));
      await create(validGeoDatabase(namespace, 'disposable'));
    });

    afterAll(async () => {
      if (!controlPlane) return;
      const crdDeleted = await removeGeoDatabaseInstall(cp, installName, namespace, install ?? {});
      expect(crdDeleted.exitCode, crdDeleted.stderr).toBe(0);
    });

    it('installs with kubectl apply -k DIR/overlays/policy-floor: the base and the policies, with only the webhooks at failurePolicy Ignore', async () => {
      expect(built.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
        [
          `CustomResourceDefinition/${crdName}`,
          `MutatingAdmissionPolicy/${policyName}`,
          `MutatingAdmissionPolicyBinding/${policyName}`,
          `MutatingWebhookConfiguration/${installName}`,
          `ValidatingAdmissionPolicy/${policyName}`,
          `ValidatingAdmissionPolicyBinding/${policyName}`,
          `ValidatingWebhookConfiguration/${installName}`,
        ].sort(),
      );
      // As the API server stored them: kustomize merged the patch into the webhooks by name, leaving the rest.
      expect(await webhookConfigurationFailurePolicies()).toEqual([
        `${mutatingWebhook}: Ignore`,
        `${statusWebhook}: Ignore`,
        `${validatingWebhook}: Ignore`,
      ]);
      const stored = await kubectl(cp, [
        'get',
        `validatingwebhookconfiguration/${installName}`,
        `validatingadmissionpolicy/${policyName}`,
        `validatingadmissionpolicybinding/${policyName}`,
        '-o',
        'json',
      ]);
      expect(stored.exitCode, stored.stderr).toBe(0);
      const items = (JSON.parse(stored.stdout) as { items: any[] }).items;
      const [webhooks, policy, binding] = [
        'ValidatingWebhookConfiguration',
        'ValidatingAdmissionPolicy',
        'ValidatingAdmissionPolicyBinding',
      ].map((kind) => items.find((item) => item.kind === kind));
      expect(webhooks.webhooks[0]).toMatchObject({
        clientConfig: { url: `https://127.0.0.1:${gate!.port}/validate` },
        timeoutSeconds: 10,
        matchPolicy: 'Equivalent',
      });
      // The policy itself fails closed: only crdgate's webhooks are let through when they cannot answer.
      expect(policy.spec.failurePolicy).toBe('Fail');
      expect(binding.spec).toEqual({ policyName, validationActions: ['Deny'] });
    });

    it('crdgate up: the policy answers first for what it compiles, the webhook for the rest, and a supported change is defaulted', async () => {
      // The API server runs ValidatingAdmissionPolicies before validating webhooks: with crdgate up, what the policy
      // compiles is refused by the policy, in the webhook's words.
      byPolicy(
        await refusal(patch('ready', storageShrink)),
        'spec.storage.size: shrinking storage from 20Gi to 10Gi is unsupported: volumes cannot shrink',
      );
      byPolicy(
        await refusal(patch('upgrading', scaleTo(1))),
        'spec.readReplicas: changing read replicas from 0 to 1 is not allowed while the database is Upgrading',
      );
      byPolicy(
        await refusal(patch('ready', growAndUpgradeTogether)),
        'storage.grow, postgres.minor cannot be combined in one update',
      );
      byPolicy(await refusal(remove('protected')), `GeoDatabase ${namespace}/protected is deletion-protected`);

      const invariant = await refusal(patch('ready', unsupportedPostgis('3.6.0')));
      expect(invariant.code).toBe(422);
      expect(invariant.message).toContain(webhookDenial);
      expect(invariant.message).toContain('"ready" is invalid: spec.postgres.postgis: PostGIS 3.6 is not supported');

      expect((await patch('ready', scaleTo(3))).spec).toMatchObject({
        readReplicas: 3,
        caches: [{ name: 'tiles', version: '7.2', replicas: 1 }],
      });
      const scaledDown = await kubectlPatch('ready', scaleTo(2));
      expect(scaledDown.exitCode, scaledDown.stderr).toBe(0);
      expect(warningLines(scaledDown)).toEqual(['Warning: spec.readReplicas: reducing read replicas from 3 to 2']);
    });

    it('crdgate SIGKILLed: the policies still refuse what they compile and set the defaults; invariants, warnings and conversion are gone', async () => {
      const exit = await gate!.kill();
      expect(exit.signal).toBe('SIGKILL');
      expect(await connectionRefused(gate!.port)).toBe(true);
      // The API server may pick the MutatingAdmissionPolicy up a moment after the validating one: with crdgate dead,
      // a label only the policy can set says it is in effect.
      await eventually('the MutatingAdmissionPolicy to default a GeoDatabase', async () =>
        (await create(validGeoDatabase(namespace, 'probe-floor-defaults'), true)).metadata.labels?.[
          'geo.example.com/postgres-major'
        ] === '16'
          ? true
          : undefined,
      );
      const before = await scrapeApiServer(cp);

      // Refused by the API server itself, each with the reason crdgate would give.
      byPolicy(
        await refusal(patch('ready', storageShrink)),
        'spec.storage.size: shrinking storage from 20Gi to 10Gi is unsupported: volumes cannot shrink',
      );
      byPolicy(
        await refusal(patch('upgrading', scaleTo(1))),
        'spec.readReplicas: changing read replicas from 0 to 1 is not allowed while the database is Upgrading',
      );
      byPolicy(
        await refusal(patch('ready', growAndUpgradeTogether)),
        'storage.grow, postgres.minor cannot be combined in one update',
      );
      byPolicy(await refusal(remove('protected')), `GeoDatabase ${namespace}/protected is deletion-protected`);
      expect((await get('protected')).metadata.name).toBe('protected');

      // Admitted, as with crdgate up: a supported change (but without the scale-down warning), an overridden one, an
      // unprotected deletion.
      const scaledDown = await kubectlPatch('ready', scaleTo(1));
      expect(scaledDown.exitCode, scaledDown.stderr).toBe(0);
      expect(warningLines(scaledDown)).toEqual([]);
      const overridden = await patch(
        'upgrading',
        { metadata: { annotations: { 'geo.example.com/override-transitions': 'INC-7: outage drill' } }, ...scaleTo(1) },
        true,
      );
      expect(overridden.spec.readReplicas).toBe(1);
      await remove('disposable');
      expect(await refusal(get('disposable'))).toMatchObject({ code: 404 });

      // The trade-off: what only crdgate checks is let through and stored.
      expect((await patch('ready', unsupportedPostgis('3.6.0'))).spec.postgres.postgis).toBe('3.6.0');
      expect((await create(invalidGeoDatabase(namespace, 'unchecked'))).spec.postgres.version).toBe('18.1');
      // What the CRD says in CEL in place of crdgate's formats holds: a size of 50GB is refused, in crdgate's words.
      const schemaInvalid = validGeoDatabase(namespace, 'schema-invalid');
      const refusedSize = await refusal(
        create({ ...schemaInvalid, spec: { ...(schemaInvalid.spec as object), storage: { size: '50GB' } } }),
      );
      expect(refusedSize).toMatchObject({ code: 422 });
      expect(refusedSize.message).toContain(
        'spec.storage.size: Invalid value: "50GB": must be a Kubernetes quantity such as 500m, 64Mi, 2Gi or 1.5e3',
      );
      // The policy matches the resource, not its status: the operator's status writes go through unchecked.
      await setPhase('protected', 'Provisioning');
      // The defaults, from the MutatingAdmissionPolicy (test/e2e/mutating-floor.e2e.test.ts compares them all).
      const bare = await create(validGeoDatabase(namespace, 'bare'));
      expect(bare.spec).toEqual({
        ...(validGeoDatabase(namespace, 'bare').spec as object),
        readReplicas: 0,
        caches: [{ name: 'tiles', memory: '1Gi', version: '7.2', replicas: 1 }],
      });
      expect(bare.metadata.labels).toEqual({ 'geo.example.com/postgres-major': '16' });

      // Conversion has no failure policy: a request in another version fails, in either mode.
      const converted = await kubectl(cp, [
        'patch',
        `geodatabases.v1beta1.geo.example.com/ready`,
        '-n',
        namespace,
        '--type=merge',
        '-p',
        '{"spec":{"replicas":2}}',
      ]);
      expect(converted.exitCode).toBe(1);
      expect(converted.stderr).toContain('conversion webhook for geo.example.com/v1, Kind=GeoDatabase failed');

      // What an operator sees: the policy's denials, and the webhook calls the API server skipped (failed open).
      const after = await scrapeApiServer(cp);
      const delta = (name: string, labels: Record<string, string>) =>
        metricSum(after, name, labels) - metricSum(before, name, labels);
      expect(
        delta('apiserver_validating_admission_policy_check_total', { policy: policyName, enforcement_action: 'deny' }),
      ).toBe(4);
      // The admitted scale-down, override, PostGIS change and two creates; the unprotected deletion never reaches the
      // webhook (its matchConditions skip it), and the phase move is the status webhook's.
      expect(delta('apiserver_admission_webhook_fail_open_count', { name: validatingWebhook })).toBe(5);
      expect(delta('apiserver_admission_webhook_fail_open_count', { name: statusWebhook })).toBe(1);
      expect(delta('apiserver_admission_webhook_fail_open_count', { name: mutatingWebhook })).toBeGreaterThan(0);
    });

    it('crdgate restarted on the same port and certificate: the webhook judges again, and tolerates what the outage let in until it changes', async () => {
      await gate!.start();
      await eventually('the validating webhook to answer again', async () => {
        const status = await refusal(create(invalidGeoDatabase(namespace, 'probe-invalid'), true)).catch(
          () => undefined,
        );
        return status?.message.includes(webhookDenial) ? true : undefined;
      });

      const invariant = await refusal(patch('ready', unsupportedPostgis('3.7.0')));
      expect(invariant.code).toBe(422);
      expect(invariant.message).toContain(webhookDenial);
      expect(invariant.message).toContain('PostGIS 3.7 is not supported');
      byPolicy(await refusal(patch('ready', storageShrink)), 'volumes cannot shrink');

      // The PostGIS release stored during the outage is left alone by this write: tolerated, with a warning.
      const scaledDown = await kubectlPatch('ready', scaleTo(0));
      expect(scaledDown.exitCode, scaledDown.stderr).toBe(0);
      expect(warningLines(scaledDown)).toEqual([
        'Warning: spec.postgres.postgis: PostGIS 3.6 is not supported (supported: 3.3, 3.4, 3.5) (tolerated: unchanged since before the rule)',
        'Warning: spec.readReplicas: reducing read replicas from 1 to 0',
      ]);

      // The object created during the outage got its defaults from the policy: the webhook's next write adds nothing.
      const defaulted = await patch('bare', { metadata: { labels: { team: 'geo' } } });
      expect(defaulted.spec).toEqual({
        ...(validGeoDatabase(namespace, 'bare').spec as object),
        readReplicas: 0,
        caches: [{ name: 'tiles', memory: '1Gi', version: '7.2', replicas: 1 }],
      });
      expect(defaulted.metadata.labels).toEqual({ team: 'geo', 'geo.example.com/postgres-major': '16' });
    });

    it('crdgate frozen (SIGSTOP), so calls time out instead of being refused: the same floor once the webhooks time out', async () => {
      gate!.freeze();
      try {
        // Each request waits for the mutating and then the validating webhook's timeoutSeconds (10 s each, as
        // rendered) before the API server goes on without them; side by side, the file waits that out once.
        const [supported, forbidden] = await Promise.all([
          patch('ready', scaleTo(2)),
          refusal(patch('upgrading', scaleTo(1))),
        ]);
        expect(supported.spec.readReplicas).toBe(2);
        byPolicy(forbidden, 'is not allowed while the database is Upgrading');
      } finally {
        gate!.resume();
      }
    });

    it('for contrast, the base (failurePolicy Fail): with crdgate killed, even a supported change is refused', async () => {
      const applied = await kubectl(cp, ['apply', '--server-side', '-k', tree]);
      expect(applied.exitCode, applied.stderr).toBe(0);
      expect(await webhookConfigurationFailurePolicies()).toEqual([
        `${mutatingWebhook}: Fail`,
        `${statusWebhook}: Ignore`,
        `${validatingWebhook}: Fail`,
      ]);
      expect((await gate!.kill()).signal).toBe('SIGKILL');

      // Until the API server has picked up Fail, it still ignores the unreachable webhook: probe with dry runs.
      await eventually('the API server to refuse for want of crdgate', async () => {
        const status = await refusal(patch('ready', scaleTo(3), true)).catch(() => undefined);
        return status?.message.includes('failed calling webhook') ? true : undefined;
      });
      const scale = await refusal(patch('ready', scaleTo(3)));
      expect(scale.code).toBe(500);
      expect(scale.message).toContain(`failed calling webhook "${mutatingWebhook}"`);
      expect(scale.message).toContain('connect: connection refused');
      const created = await refusal(create(validGeoDatabase(namespace, 'while-down')));
      expect(created.message).toContain(`failed calling webhook "${mutatingWebhook}"`);
      expect((await get('ready')).spec.readReplicas).toBe(2);
      // What crdgate has nothing to refuse never reaches it, and goes on: a delete no protection holds, a phase move
      // (crdgate would only warn), a label its rules do not read.
      await remove('bare');
      expect(await refusal(get('bare'))).toMatchObject({ code: 404 });
      const status = await kubectl(cp, [
        'patch',
        'geodatabase',
        'ready',
        '-n',
        namespace,
        '--subresource=status',
        '--type=merge',
        '-p',
        '{"status":{"phase":"Scaling"}}',
      ]);
      expect(status.exitCode, status.stderr).toBe(0);
      expect((await patch('ready', { metadata: { labels: { team: 'geo' } } })).metadata.labels).toMatchObject({
        team: 'geo',
      });
    });
  },
);
