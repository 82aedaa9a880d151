import { describe, expect, it } from 'vitest';
import { caBundleTargets } from './ca-bundle-targets.ts';
import { notReadyBecause, type ReadinessView } from './readiness.ts';
import { applyRotation, type RotationPolicy } from './rotation.ts';

const policy: RotationPolicy = { caValidityMs: 3_600_000, servingValidityMs: 600_000, caOverlapMs: 1000, dnsNames: [], ipAddresses: ['127.0.0.1'], commonName: 'crdgate' };
const material = applyRotation({ kind: 'issue', reason: 'test' }, undefined, policy, Date.now());
const stranger = applyRotation({ kind: 'issue', reason: 'test' }, undefined, policy, Date.now());
const targets = caBundleTargets('crdgate', ['geodatabases.geo.example.com']);
const [validating, mutating, crd] = targets as [(typeof targets)[0], (typeof targets)[0], (typeof targets)[0]];

const b64 = (text: string) => Buffer.from(text).toString('base64');
const webhooksTrusting = (caPem: string) => ({ webhooks: [{ name: 'w.example.com', clientConfig: { url: 'https://127.0.0.1', caBundle: b64(caPem) } }] });
const crdTrusting = (caPem: string) => ({ spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://127.0.0.1', caBundle: b64(caPem) } } } } });

/** A replica serving the Secret's pair, with every caBundle trusting its CA: ready. Each test breaks one thing. */
function readyView(): ReadinessView {
  const ca = material.signingCa.certPem;
  return {
    secret: 'crdgate-system/crdgate-serving-cert',
    secretReading: { state: 'usable', material },
    servedCertPem: material.serving.certPem,
    servingCaPem: ca,
    targets,
    targetObjects: new Map<(typeof targets)[0], unknown>([
      [validating, webhooksTrusting(ca)],
      [mutating, webhooksTrusting(ca)],
      [crd, crdTrusting(ca)],
    ]),
  };
}

describe('notReadyBecause', () => {
  it('is undefined when the served CA is in every caBundle, and when a target does not exist (nothing to miss)', () => {
    expect(notReadyBecause(readyView())).toBeUndefined();
    const view = readyView();
    expect(notReadyBecause({ ...view, targetObjects: new Map([...view.targetObjects, [crd, undefined]]) })).toBeUndefined();
  });

  it('names what has not been listed yet: the Secret and each unread target', () => {
    const view = readyView();
    const reason = notReadyBecause({ ...view, secretReading: undefined, targetObjects: new Map([[validating, view.targetObjects.get(validating)]]) });
    expect(reason).toContain('secrets/crdgate-system/crdgate-serving-cert');
    expect(reason).toContain('mutatingwebhookconfigurations/crdgate');
    expect(reason).toContain('customresourcedefinitions/geodatabases.geo.example.com');
    expect(reason).not.toContain('validatingwebhookconfigurations');
  });

  it('tells a missing or empty Secret from one that cannot be used, and gives the problem', () => {
    const missing = notReadyBecause({ ...readyView(), secretReading: null });
    expect(missing).toContain('holds no certificate yet');
    expect(notReadyBecause({ ...readyView(), secretReading: { state: 'empty' } })).toBe(missing);
    const unusable = notReadyBecause({ ...readyView(), secretReading: { state: 'unusable', problem: 'tls.key does not belong to tls.crt' } });
    expect(unusable).toContain('cannot be used');
    expect(unusable).toContain('tls.key does not belong to tls.crt');
  });

  it('is not ready while the server presents its placeholder, or a certificate whose CA the Secret lost', () => {
    expect(notReadyBecause({ ...readyView(), servedCertPem: undefined })).toContain('has not taken the certificate');
    expect(notReadyBecause({ ...readyView(), servingCaPem: undefined })).toContain('not in ca.crt');
  });

  it('names exactly the targets whose caBundle lacks the served CA', () => {
    const view = readyView();
    const targetObjects = new Map([...view.targetObjects, [crd, crdTrusting(stranger.signingCa.certPem)], [mutating, { webhooks: [{ name: 'w', clientConfig: {} }] }]]);
    const reason = notReadyBecause({ ...view, targetObjects });
    expect(reason).toContain('customresourcedefinitions/geodatabases.geo.example.com');
    expect(reason).toContain('mutatingwebhookconfigurations/crdgate');
    expect(reason).not.toContain('validatingwebhookconfigurations');
  });
});
