import { describe, expect, it } from 'vitest';
import { type Contract } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import type { Manifest, ManifestFile } from './manifest.ts';
import { operatorOwnedContract } from './operator-owned-contract.fixture.ts';
import { renderManifestFiles, renderManifestTree } from './manifest-files.ts';
import { manifestDefaults } from './manifest-options.ts';
import { renderHelmChart } from './helm/helm-chart.ts';

const paths = (files: readonly { path: string }[]) => files.map((file) => file.path);
const manifestsOf = (files: readonly ManifestFile[]) => files.flatMap((file) => file.manifests);

describe('a contract that does not own its CRD', () => {
  it('renders the webhooks, the workload and its RBAC, and no CRD, conversion or migration', () => {
    const files = renderManifestFiles([operatorOwnedContract()], manifestDefaults);
    expect(paths(files)).toEqual([
      'base/00-namespace.yaml',
      'base/10-crdgate-server.yaml',
      'base/13-owner-crd-reads.yaml',
      'base/15-network-policy.yaml',
      'base/30-webhook-configurations.yaml',
    ]);
    expect(manifestsOf(files).map((m) => m.kind)).not.toContain('CustomResourceDefinition');
  });

  it('registers the webhooks for the hub with matchPolicy Equivalent, so the owner converts every other version', () => {
    const [validating] = renderManifestFiles([operatorOwnedContract()], manifestDefaults).find((file) =>
      file.path.endsWith('webhook-configurations.yaml'),
    )!.manifests;
    const webhooks = (
      validating as Manifest & { webhooks: { matchPolicy: string; rules: { apiVersions: string[] }[] }[] }
    ).webhooks;
    expect(webhooks.map((webhook) => [webhook.matchPolicy, webhook.rules.map((rule) => rule.apiVersions)])).toEqual([
      ['Equivalent', [['v1']]],
      ['Equivalent', [['v1']]],
    ]);
  });

  it('injects no caBundle into the CRD: not through cert-manager, not by crdgate itself', () => {
    const tree = renderManifestTree([operatorOwnedContract()], manifestDefaults) as ManifestFile[];
    const injected = tree.find((file) => file.path === 'overlays/cert-manager/inject-ca.yaml')!.manifests;
    expect(injected.map((m) => m.kind)).toEqual(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
    const rbac = tree.find((file) => file.path === 'overlays/self-managed-certs/rbac.yaml')!.manifests;
    expect(JSON.stringify(rbac)).not.toContain('customresourcedefinitions');
  });

  it('keeps the migration of the CRDs crdgate owns beside it', () => {
    const files = renderManifestFiles(
      [
        operatorOwnedContract(),
        { ...geoDatabaseContract(), identity: { ...geoDatabaseContract().identity, group: 'other.example.com' } },
      ],
      manifestDefaults,
    );
    const jobs = manifestsOf(files)
      .filter((m) => m.kind === 'Job')
      .map((m) => m.metadata.name);
    expect(jobs).toEqual(['crdgate-migrate-geodatabases']);
    expect(
      manifestsOf(files)
        .filter((m) => m.kind === 'CustomResourceDefinition')
        .map((m) => m.metadata.name),
    ).toEqual(['geodatabases.other.example.com']);
  });

  it('renders the owner CRD as the owner has it only when asked, for a local cluster', () => {
    const contract = operatorOwnedContract();
    const files = renderManifestFiles([contract], {
      ...manifestDefaults,
      url: 'https://127.0.0.1:8443',
      ownerCrds: true,
    });
    const crds = manifestsOf(files).filter((m) => m.kind === 'CustomResourceDefinition');
    expect(crds).toEqual([contract.ownerCrd]);
  });
});

describe('a contract that does not own its CRD and has no defaults', () => {
  // An operator's CRD guarded by rules alone: the webhooks validate, none mutates.
  const guard = (): Contract => {
    const { defaults: _defaults, ...rest } = operatorOwnedContract();
    return defineContract(rest);
  };
  const options = { ...manifestDefaults, image: 'registry.example/crdgate:1.0.0' };

  it('renders no mutating webhook configuration, in the base and in no overlay', () => {
    const tree = renderManifestTree([guard()], options);
    const kinds = tree.flatMap((file) => ('manifests' in file ? file.manifests.map((m) => m.kind) : []));
    expect(kinds).toContain('ValidatingWebhookConfiguration');
    // An empty one (webhooks: []) was rendered, and cert-manager's overlay patched it.
    expect(kinds).not.toContain('MutatingWebhookConfiguration');
    // A contract with defaults still has one.
    const withDefaults = renderManifestFiles([operatorOwnedContract()], options).flatMap((file) => file.manifests);
    expect(withDefaults.map((m) => m.kind)).toContain('MutatingWebhookConfiguration');
  });

  it('makes a chart whose NOTES.txt and values say nothing of CRDs or a mutating configuration', () => {
    const chart = renderHelmChart([guard()], options, { version: '1.0.0' });
    const text = (path: string) => (chart.find((file) => file.path === path) as { text: string }).text;
    const notes = text('templates/NOTES.txt');
    expect(notes).not.toMatch(/\bCRDs?\b|\.Values\.crds/);
    expect(notes).not.toMatch(/mutating/i);
    expect(notes).toContain('kubectl get validatingwebhookconfiguration crdgate');
    expect(notes).toContain('crdgate writes its CA into the webhooks;');
    expect(text('values.yaml')).not.toMatch(/^crds:/m);
    expect(text('templates/webhook-configurations.yaml')).not.toContain('MutatingWebhookConfiguration');
    expect(chart.map((file) => file.path)).not.toContain('templates/crds.yaml');
    // The built-in example owns its CRD and has defaults: its notes keep both.
    const owned = renderHelmChart([geoDatabaseContract()], options, { version: '1.0.0' });
    const ownedNotes = (owned.find((file) => file.path === 'templates/NOTES.txt') as { text: string }).text;
    expect(ownedNotes).toContain('{{- if .Values.crds.keep }}');
    expect(ownedNotes).toContain('validatingwebhookconfiguration,mutatingwebhookconfiguration');
  });
});

describe('defineContract with crdOwner', () => {
  const geo = geoDatabaseContract();
  it('demands no conversion of an external CRD, and still does of its own', () => {
    expect(() => defineContract({ ...geo, conversions: {}, crdOwner: 'external' })).not.toThrow();
    expect(() => defineContract({ ...geo, conversions: {} })).toThrow(
      /version v1alpha1 has no conversion to the hub v1/,
    );
  });

  it('refuses an ownerCrd without crdOwner external, or one of another resource', () => {
    const ownerCrd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'geodatabases.geo.example.com' },
    };
    expect(() => defineContract({ ...geo, ownerCrd })).toThrow(
      /ownerCrd is only for a contract whose CRD someone else owns/,
    );
    expect(() =>
      defineContract({
        ...geo,
        crdOwner: 'external',
        ownerCrd: { ...ownerCrd, metadata: { name: 'other.example.com' } },
      }),
    ).toThrow(/ownerCrd must be the CustomResourceDefinition geodatabases\.geo\.example\.com/);
    expect(() => defineContract({ ...geo, crdOwner: 'someone' as never })).toThrow(
      /crdOwner must be 'crdgate' or 'external'/,
    );
  });

  it("refuses an ownerCrd whose kind is not the contract's: the API server sends the CRD's kind", () => {
    const ownerCrd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'geodatabases.geo.example.com' },
      spec: { names: { kind: 'geodatabase', plural: 'geodatabases' } },
    };
    expect(() => defineContract({ ...geo, crdOwner: 'external', ownerCrd })).toThrow(
      'identity.kind is "GeoDatabase", but ownerCrd\'s spec.names.kind is "geodatabase": the API server sends the CRD\'s kind ' +
        "in every object and request, so make the contract's kind equal the CRD's spec.names.kind",
    );
    const same = { ...ownerCrd, spec: { names: { kind: 'GeoDatabase', plural: 'geodatabases' } } };
    expect(defineContract({ ...geo, crdOwner: 'external', ownerCrd: same }).identity.kind).toBe('GeoDatabase');
  });

  it('needs a served hub, the version its webhooks are called in', () => {
    const versions = geo.versions.map((version) =>
      version.name === 'v1'
        ? { ...version, served: false, storage: false }
        : { ...version, storage: version.name === 'v1beta1' },
    );
    expect(() => defineContract({ ...geo, versions, crdOwner: 'external' })).toThrow(/the hub v1 must be served/);
  });

  it('takes a CRD that serves no version, as the API server does: nothing reaches the webhooks', () => {
    const versions = geo.versions.map((version) => ({ ...version, served: false }));
    expect(defineContract({ ...geo, versions, conversions: {}, crdOwner: 'external' }).hub).toBe('v1');
    // Owned, its storage migration could never read the storage version.
    expect(() => defineContract({ ...geo, versions })).toThrow(/storage version v1 must be served/);
  });
});
