import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { renderCertManagerOverlay } from './cert-manager.ts';
import { clusterWidgetContract } from './cluster-widget-contract.fixture.ts';
import type { Manifest } from './manifest.ts';
import { renderServerWorkload } from './server-workload.ts';

const overlay = renderCertManagerOverlay('overlays/cert-manager', [geoDatabaseContract(), clusterWidgetContract()], {
  name: 'crdgate',
  namespace: 'ops',
});
const manifestsOf = (name: string): Manifest[] =>
  overlay.find((file) => file.path === `overlays/cert-manager/${name}`)!.manifests;
const spec = (manifest: Manifest | undefined): any => manifest?.['spec'];
const certificate = (name: string) =>
  manifestsOf('certificates.yaml').find((m) => m.kind === 'Certificate' && m.metadata.name === name);

describe('renderCertManagerOverlay', () => {
  it('issues the serving certificate for the Service DNS names into the Secret the Deployment mounts', () => {
    const [, service, deployment] = renderServerWorkload({ name: 'crdgate', namespace: 'ops' }, 'img');
    const serving = spec(certificate('crdgate-serving-cert'));
    expect(serving.dnsNames).toEqual([
      `${service!.metadata.name}.ops.svc`,
      `${service!.metadata.name}.ops.svc.cluster.local`,
    ]);
    expect(spec(deployment).template.spec.volumes).toContainEqual(
      expect.objectContaining({ secret: expect.objectContaining({ secretName: serving.secretName }) }),
    );
    expect(serving.usages).toContain('server auth');
  });

  it('chains self-signed Issuer -> CA Certificate -> CA Issuer -> serving Certificate', () => {
    const issuers = new Map(
      manifestsOf('certificates.yaml')
        .filter((m) => m.kind === 'Issuer')
        .map((m) => [m.metadata.name, spec(m)]),
    );
    const ca = spec(certificate('crdgate-ca'));
    expect(ca.isCA).toBe(true);
    expect(issuers.get(ca.issuerRef.name)).toEqual({ selfSigned: {} });
    const servingIssuer = issuers.get(spec(certificate('crdgate-serving-cert')).issuerRef.name);
    expect(servingIssuer).toEqual({ ca: { secretName: ca.secretName } });
    for (const m of manifestsOf('certificates.yaml')) expect(m.metadata.namespace).toBe('ops');
  });

  it('injects the CA from that Certificate into both webhook configurations and the CRD that converts by webhook only', () => {
    const patched = manifestsOf('inject-ca.yaml').map((m) => [m.kind, m.metadata.name, m.metadata.annotations]);
    const annotations = { 'cert-manager.io/inject-ca-from': 'ops/crdgate-serving-cert' };
    expect(patched).toEqual([
      ['ValidatingWebhookConfiguration', 'crdgate', annotations],
      ['MutatingWebhookConfiguration', 'crdgate', annotations],
      ['CustomResourceDefinition', 'geodatabases.geo.example.com', annotations],
    ]);
  });

  it('patches nothing but annotations: no caBundle is written by hand', () => {
    for (const m of manifestsOf('inject-ca.yaml'))
      expect(Object.keys(m).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
  });
});
