import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import type { PemPair } from '../pki.ts';

// What the shared Secret holds, and how its bytes map to the CA, the serving pair and a rollover in progress. The
// keys are those a kubernetes.io/tls Secret and cert-manager use (tls.crt, tls.key, ca.crt), so the monitoring
// overlay's ServiceMonitor verifies scrapes against ca.crt here as it does with the other two certificate ways.

export const secretKeys = {
  servingCert: 'tls.crt',
  servingKey: 'tls.key',
  /** Every CA the API servers must trust: the caBundle of each webhook and CRD. */
  caBundle: 'ca.crt',
  /** The key of the CA that signs the serving certificate (one of the bundle's). */
  caKey: 'ca.key',
  /** A CA joining the bundle, not yet signing: the first step of a rollover. */
  nextCaCert: 'next-ca.crt',
  nextCaKey: 'next-ca.key',
} as const;

export const secretAnnotations = {
  /** When the last rotation step changed the Secret (RFC 3339): the overlap of a rollover counts from it. */
  stepAt: 'crdgate.dev/rotation-step-at',
  /** Set by a person (`ca` or `serving`) to rotate now; the leader removes it as it starts. */
  rotate: 'crdgate.dev/rotate',
} as const;

export interface CertificateMaterial {
  serving: PemPair;
  /** The PEM certificates of ca.crt, in order. */
  caBundle: string[];
  /** The bundle's certificate whose key is ca.key. */
  signingCa: PemPair;
  nextCa?: PemPair;
  stepAt?: number;
}

export type MaterialReading = { state: 'empty' } | { state: 'unusable'; problem: string } | { state: 'usable'; material: CertificateMaterial };

/** Reads a Secret's `data` (base64 values) and annotations; says what is wrong when it holds something else. */
export function readMaterial(data: Record<string, string> | undefined, annotations: Record<string, string> | undefined): MaterialReading {
  const text = (key: string) => (data?.[key] === undefined ? undefined : Buffer.from(data[key], 'base64').toString('utf8'));
  const present = Object.values(secretKeys).filter((key) => text(key) !== undefined);
  if (present.length === 0) return { state: 'empty' };
  const missing = [secretKeys.servingCert, secretKeys.servingKey, secretKeys.caBundle, secretKeys.caKey].filter((key) => !text(key)?.trim());
  if (missing.length > 0) return { state: 'unusable', problem: `the Secret has no ${missing.join(', ')}` };
  try {
    const caBundle = splitPem(text(secretKeys.caBundle)!);
    const caKeyPem = text(secretKeys.caKey)!;
    const signingCert = caBundle.find((cert) => keyMatches(cert, caKeyPem));
    if (!signingCert) return { state: 'unusable', problem: `${secretKeys.caKey} belongs to none of the certificates in ${secretKeys.caBundle}` };
    const serving = { certPem: text(secretKeys.servingCert)!, keyPem: text(secretKeys.servingKey)! };
    if (!keyMatches(serving.certPem, serving.keyPem)) return { state: 'unusable', problem: `${secretKeys.servingKey} does not belong to ${secretKeys.servingCert}` };
    const nextCertPem = text(secretKeys.nextCaCert);
    const nextKeyPem = text(secretKeys.nextCaKey);
    let nextCa: PemPair | undefined;
    if (nextCertPem !== undefined || nextKeyPem !== undefined) {
      if (!nextCertPem || !nextKeyPem || !keyMatches(nextCertPem, nextKeyPem)) {
        return { state: 'unusable', problem: `${secretKeys.nextCaCert} and ${secretKeys.nextCaKey} must both be there and belong together` };
      }
      nextCa = { certPem: nextCertPem, keyPem: nextKeyPem };
    }
    const stepAt = Date.parse(annotations?.[secretAnnotations.stepAt] ?? '');
    return {
      state: 'usable',
      material: {
        serving,
        caBundle,
        signingCa: { certPem: signingCert, keyPem: caKeyPem },
        ...(nextCa ? { nextCa } : {}),
        ...(Number.isFinite(stepAt) ? { stepAt } : {}),
      },
    };
  } catch (error) {
    return { state: 'unusable', problem: `the Secret's certificates cannot be read: ${(error as Error).message}` };
  }
}

/** The Secret's `data` and the annotation that go with `material`. */
export function materialData(material: CertificateMaterial): { data: Record<string, string>; stepAt: string | undefined } {
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
  const data: Record<string, string> = {
    [secretKeys.servingCert]: b64(material.serving.certPem),
    [secretKeys.servingKey]: b64(material.serving.keyPem),
    [secretKeys.caBundle]: b64(material.caBundle.join('')),
    [secretKeys.caKey]: b64(material.signingCa.keyPem),
  };
  if (material.nextCa) {
    data[secretKeys.nextCaCert] = b64(material.nextCa.certPem);
    data[secretKeys.nextCaKey] = b64(material.nextCa.keyPem);
  }
  return { data, stepAt: material.stepAt === undefined ? undefined : new Date(material.stepAt).toISOString() };
}

/** The certificates of a PEM bundle, each normalised to one PEM block ending in a newline. */
export function splitPem(bundle: string): string[] {
  const blocks = bundle.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('no PEM certificate found');
  return blocks.map((block) => new X509Certificate(block).toString());
}

/** Whether the bundle holds this very certificate (compared by its DER bytes, whatever the PEM's line breaks). */
export function bundleHolds(bundle: readonly string[], certPem: string): boolean {
  const wanted = new X509Certificate(certPem).fingerprint256;
  return bundle.some((cert) => new X509Certificate(cert).fingerprint256 === wanted);
}

/** The bundle's certificate that issued (and signed) `certPem`, if any. */
export function issuerIn(bundle: readonly string[], certPem: string): string | undefined {
  const leaf = new X509Certificate(certPem);
  return bundle.find((candidate) => {
    const ca = new X509Certificate(candidate);
    return leaf.checkIssued(ca) && leaf.verify(ca.publicKey);
  });
}

/** When the certificate ends, in milliseconds since the epoch. */
export function notAfterMs(certPem: string): number {
  return new X509Certificate(certPem).validToDate.getTime();
}

export function notBeforeMs(certPem: string): number {
  return new X509Certificate(certPem).validFromDate.getTime();
}

function keyMatches(certPem: string, keyPem: string): boolean {
  const fromKey = createPublicKey(createPrivateKey(keyPem)).export({ type: 'spki', format: 'der' });
  const fromCert = new X509Certificate(certPem).publicKey.export({ type: 'spki', format: 'der' });
  return Buffer.compare(fromKey, fromCert) === 0;
}
