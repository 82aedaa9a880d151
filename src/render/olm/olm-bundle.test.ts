import { describe, expect, it } from 'vitest';
import { type Contract } from '../../contract/contract-definition.ts';
import { geoDatabaseContract } from '../../contracts/geodatabase/index.ts';
import type { Manifest, ManifestFile } from '../manifest.ts';
import { operatorOwnedContract } from '../operator-owned-contract.fixture.ts';
import { renderManifestFiles } from '../manifest-files.ts';
import { manifestDefaults } from '../manifest-options.ts';
import { renderOlmBundle, type BundleIdentity } from './olm-bundle.ts';
import { olmServingCertDir } from './olm-install.ts';

const identity: BundleIdentity = { packageName: 'geo-guard', channel: 'stable', version: '1.2.0' };

const manifestsIn = (files: ReturnType<typeof renderOlmBundle>['files']) =>
  files.filter((file): file is ManifestFile => 'manifests' in file).flatMap((file) => file.manifests);
const csvOf = (files: ReturnType<typeof renderOlmBundle>['files']) =>
  manifestsIn(files).find((manifest) => manifest.kind === 'ClusterServiceVersion') as Manifest & { spec: any };
/** The webhooks of the kustomize install of the same contracts: what the CSV must describe, one for one. */
const kustomizeWebhooks = (contracts: Contract[]) =>
  renderManifestFiles(contracts, manifestDefaults)
    .flatMap((file) => file.manifests)
    .filter((manifest) => manifest.kind.endsWith('WebhookConfiguration'))
    .flatMap((configuration) =>
      (configuration['webhooks'] as any[]).map((webhook) => ({ kind: configuration.kind, ...webhook })),
    );

describe('renderOlmBundle', () => {
  it('describes every webhook of the kustomize install in the CSV, with its rules, policies and path, and converts each owned CRD', () => {
    const contracts = [geoDatabaseContract()];
    const { files } = renderOlmBundle(contracts, manifestDefaults, identity, '0.1.0');
    const csv = csvOf(files);
    const admission = (csv.spec.webhookdefinitions as any[]).filter((webhook) => webhook.type !== 'ConversionWebhook');
    const expected = kustomizeWebhooks(contracts);
    expect(admission.map((webhook) => webhook.generateName)).toEqual(expected.map((webhook) => webhook.name));
    for (const [index, webhook] of expected.entries())
      expect(admission[index], webhook.name).toMatchObject({
        type:
          webhook.kind === 'ValidatingWebhookConfiguration' ? 'ValidatingAdmissionWebhook' : 'MutatingAdmissionWebhook',
        deploymentName: csv.spec.install.spec.deployments[0].name,
        rules: webhook.rules,
        failurePolicy: webhook.failurePolicy,
        timeoutSeconds: webhook.timeoutSeconds,
        matchPolicy: webhook.matchPolicy,
        sideEffects: webhook.sideEffects,
        admissionReviewVersions: webhook.admissionReviewVersions,
        webhookPath: webhook.clientConfig.service.path,
      });
    const deploymentSpec = csv.spec.install.spec.deployments[0].spec;
    const container = deploymentSpec.template.spec.containers[0];
    const containerPort = container.ports[0].containerPort;
    for (const webhook of csv.spec.webhookdefinitions) expect(webhook.targetPort).toBe(containerPort);
    expect((csv.spec.webhookdefinitions as any[]).filter((webhook) => webhook.type === 'ConversionWebhook')).toEqual([
      expect.objectContaining({ conversionCRDs: ['geodatabases.geo.example.com'], webhookPath: '/convert' }),
    ]);
    expect(csv.spec.installModes.filter((mode: any) => mode.supported).map((mode: any) => mode.type)).toEqual([
      'AllNamespaces',
    ]);
  });

  it("reads the serving pair where OLM mounts it, and mounts no Secret of the kustomize install's", () => {
    const { files } = renderOlmBundle([geoDatabaseContract()], manifestDefaults, identity, '0.1.0');
    const pod = csvOf(files).spec.install.spec.deployments[0].spec.template.spec;
    const args: string[] = pod.containers[0].args;
    expect(args[args.indexOf('--cert-dir') + 1]).toBe(olmServingCertDir);
    expect(JSON.stringify(pod)).not.toContain('secretName');
    expect(pod.containers[0].resources.limits.memory).toMatch(/Mi$/);
  });

  it('carries the CRD each contract owns, listed as owned in its hub version, and nothing of a CRD someone else owns', () => {
    const owned = geoDatabaseContract();
    const guarded = operatorOwnedContract();
    const ownedBundle = renderOlmBundle([owned], manifestDefaults, identity, '0.1.0');
    expect(
      manifestsIn(ownedBundle.files)
        .filter((manifest) => manifest.kind === 'CustomResourceDefinition')
        .map((crd) => crd.metadata.name),
    ).toEqual(['geodatabases.geo.example.com']);
    expect(csvOf(ownedBundle.files).spec.customresourcedefinitions.owned).toEqual([
      expect.objectContaining({ name: 'geodatabases.geo.example.com', version: owned.hub, kind: owned.identity.kind }),
    ]);

    const guardBundle = renderOlmBundle([guarded], manifestDefaults, identity, '0.1.0');
    const csv = csvOf(guardBundle.files);
    expect(manifestsIn(guardBundle.files).map((manifest) => manifest.kind)).not.toContain('CustomResourceDefinition');
    expect(csv.spec.customresourcedefinitions).toEqual({});
    expect(csv.spec.webhookdefinitions.map((webhook: any) => webhook.type)).not.toContain('ConversionWebhook');
    // The server follows the owner's CRD: the rules of the ClusterRole the kustomize install binds to it.
    const followRules = renderManifestFiles([guarded], manifestDefaults)
      .flatMap((file) => file.manifests)
      .filter((manifest) => manifest.kind === 'ClusterRole' && manifest.metadata.name === 'crdgate-owner-crds')
      .flatMap((role) => role['rules'] as unknown[]);
    expect(followRules.length).toBeGreaterThan(0);
    expect(csv.spec.install.spec.clusterPermissions).toEqual([{ serviceAccountName: 'crdgate', rules: followRules }]);
    expect(guardBundle.losses.join('\n')).not.toMatch(/migration/);
  });

  it('says what the bundle loses: each webhook with matchConditions, the Namespace, the migration Job', () => {
    const contracts = [geoDatabaseContract()];
    const { losses } = renderOlmBundle(contracts, manifestDefaults, identity, '0.1.0');
    const conditioned = kustomizeWebhooks(contracts).filter((webhook) => webhook.matchConditions !== undefined);
    expect(conditioned.length).toBeGreaterThan(0);
    // An outage refuses what a Fail webhook is sent; an Ignore webhook (one that can only warn) lets it through.
    expect(new Set(conditioned.map((webhook) => webhook.failurePolicy))).toEqual(new Set(['Fail', 'Ignore']));
    for (const webhook of conditioned) {
      const line = losses.find((loss) => loss.startsWith(`webhook ${webhook.name}: no matchConditions`));
      expect(line, webhook.name).toContain(`its failurePolicy ${webhook.failurePolicy}`);
      expect(line, webhook.name).toMatch(webhook.failurePolicy === 'Fail' ? /refuses them all/ : /lets them through/);
    }
    expect(losses.some((loss) => loss.includes('Namespace crdgate-system'))).toBe(true);
    expect(losses.some((loss) => loss.startsWith('the storage-version migration Job'))).toBe(true);
  });

  it('names the bundle alike in annotations.yaml, the Dockerfile and the CSV, and replaces the version given', () => {
    const { files } = renderOlmBundle(
      [geoDatabaseContract()],
      manifestDefaults,
      { ...identity, replaces: '1.1.0' },
      '0.1.0',
    );
    const annotations = manifestsIn(files).find((manifest) => 'annotations' in manifest && !('kind' in manifest)) as
      { annotations: Record<string, string> } | undefined;
    expect(annotations?.annotations['operators.operatorframework.io.bundle.package.v1']).toBe('geo-guard');
    const dockerfile = files.find((file) => file.path === 'bundle.Dockerfile') as { text: string };
    for (const [key, value] of Object.entries(annotations!.annotations))
      expect(dockerfile.text).toContain(`LABEL ${key}=${value}\n`);
    const csv = csvOf(files);
    expect(csv.metadata.name).toBe('geo-guard.v1.2.0');
    expect(csv.spec).toMatchObject({ version: '1.2.0', replaces: 'geo-guard.v1.1.0' });
  });
});
