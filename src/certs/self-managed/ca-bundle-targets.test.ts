import { describe, expect, it } from 'vitest';
import { caBundlePatch, caBundleTargets, targetTrusts } from './ca-bundle-targets.ts';
import { applyRotation, type RotationPolicy } from './rotation.ts';

const policy: RotationPolicy = { caValidityMs: 3_600_000, servingValidityMs: 600_000, caOverlapMs: 1000, dnsNames: [], ipAddresses: ['127.0.0.1'], commonName: 'crdgate' };
const first = applyRotation({ kind: 'issue', reason: 'test' }, undefined, policy, Date.now());
const second = applyRotation({ kind: 'issue', reason: 'test' }, undefined, policy, Date.now());
const b64 = (text: string) => Buffer.from(text).toString('base64');
const [validating, , crd] = caBundleTargets('crdgate', ['geodatabases.geo.example.com']);

const webhooks = (...bundles: (string | undefined)[]) => ({
  metadata: { resourceVersion: '7' },
  webhooks: bundles.map((caBundle, i) => ({ name: `w${i}.example.com`, clientConfig: { url: 'https://127.0.0.1', ...(caBundle === undefined ? {} : { caBundle }) } })),
});

describe('caBundleTargets', () => {
  it('names both webhook configurations and each CRD', () => {
    expect(caBundleTargets('team-a', ['a.x.io', 'b.x.io']).map((t) => `${t.resource}/${t.name}`)).toEqual([
      'validatingwebhookconfigurations/team-a',
      'mutatingwebhookconfigurations/team-a',
      'customresourcedefinitions/a.x.io',
      'customresourcedefinitions/b.x.io',
    ]);
  });
});

describe('targetTrusts', () => {
  it('holds only when every webhook carries the CA', () => {
    expect(targetTrusts(validating!, webhooks(b64(first.signingCa.certPem), b64(first.signingCa.certPem)), first.signingCa.certPem)).toBe(true);
    expect(targetTrusts(validating!, webhooks(b64(first.signingCa.certPem), undefined), first.signingCa.certPem)).toBe(false);
    expect(targetTrusts(validating!, webhooks(b64(first.signingCa.certPem), b64(second.signingCa.certPem)), first.signingCa.certPem)).toBe(false);
    expect(targetTrusts(validating!, webhooks(b64('garbage')), first.signingCa.certPem)).toBe(false);
  });

  it('finds the CA among several in a bundle', () => {
    const both = b64(first.signingCa.certPem + second.signingCa.certPem);
    expect(targetTrusts(validating!, webhooks(both), second.signingCa.certPem)).toBe(true);
  });

  it('has nothing to miss in a CRD without a conversion webhook, or an object that is not there', () => {
    expect(targetTrusts(crd!, { spec: { conversion: { strategy: 'None' } } }, first.signingCa.certPem)).toBe(true);
    expect(targetTrusts(crd!, undefined, first.signingCa.certPem)).toBe(true);
  });
});

describe('caBundlePatch', () => {
  it('sets each stale caBundle, guarded by the resourceVersion and the webhook name at that index', () => {
    const bundle = first.signingCa.certPem;
    const patch = caBundlePatch(validating!, webhooks(b64(bundle), ''), bundle);
    expect(patch).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '7' },
      { op: 'test', path: '/webhooks/1/name', value: 'w1.example.com' },
      { op: 'add', path: '/webhooks/1/clientConfig/caBundle', value: b64(bundle) },
    ]);
    expect(caBundlePatch(validating!, webhooks(b64(bundle)), bundle)).toBeUndefined();
  });

  it("sets a CRD's conversion caBundle only while its strategy is Webhook", () => {
    const object = { metadata: { resourceVersion: '3' }, spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x' } } } } };
    expect(caBundlePatch(crd!, object, first.signingCa.certPem)).toContainEqual({ op: 'test', path: '/spec/conversion/strategy', value: 'Webhook' });
    expect(caBundlePatch(crd!, { spec: { conversion: { strategy: 'None' } } }, first.signingCa.certPem)).toBeUndefined();
  });
});
