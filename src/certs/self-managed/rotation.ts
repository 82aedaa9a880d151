import { X509Certificate } from 'node:crypto';
import { ipAddressBytes } from '../ip-address-bytes.ts';
import { CLOCK_SKEW_ALLOWANCE_MS, createCertificateAuthority, issueCertificate, type PemPair } from '../pki.ts';
import { bundleHolds, issuerIn, notAfterMs, notBeforeMs, type CertificateMaterial } from './secret-material.ts';

// The rotation as a pure decision: given what the Secret holds, the time and what the caBundles trust, the one step
// to take next (or when to look again). One step per update of the Secret, so that a leader that dies between two
// steps leaves a state its successor reads and continues from.

export interface RotationPolicy {
  caValidityMs: number;
  servingValidityMs: number;
  /**
   * How long a new CA sits in every caBundle before the serving certificate switches to it, and how long the old CA
   * stays after: time for every API server to load the bundle and every replica to load the new pair.
   */
  caOverlapMs: number;
  /** Names the serving certificate carries. */
  dnsNames: string[];
  ipAddresses: string[];
  /** Common names start with it (the install's name), so that a CA found in a cluster says whose it is. */
  commonName: string;
}

export type RotationKind = 'issue' | 'serving' | 'ca_add' | 'ca_switch' | 'ca_retire';

export interface RotationStep {
  kind: RotationKind;
  reason: string;
}

export interface RotationPlan {
  step?: RotationStep;
  /** When something falls due if nothing else changes (ms since the epoch). */
  recheckAt: number;
}

export interface RotationInput {
  material: CertificateMaterial | undefined;
  /** What the Secret's rotate annotation asks for. */
  forced?: 'ca' | 'serving';
  now: number;
  policy: RotationPolicy;
  /** Whether every caBundle crdgate manages holds this CA certificate. */
  caBundlesTrust: (caCertPem: string) => boolean;
}

/**
 * A certificate is renewed once less than a third of its lifetime remains (cert-manager's default, too). The
 * lifetime is the one asked for: certificates start a few minutes early for clocks that lag, which must not count,
 * or a certificate of a few minutes would be due the moment it is made.
 */
export function renewalTime(certPem: string): number {
  const start = notBeforeMs(certPem) + CLOCK_SKEW_ALLOWANCE_MS;
  const end = notAfterMs(certPem);
  return end - Math.max(end - start, 0) / 3;
}

export function planRotation({ material, forced, now, policy, caBundlesTrust }: RotationInput): RotationPlan {
  if (!material) return { step: { kind: 'issue', reason: 'the Secret holds no certificates yet' }, recheckAt: now };
  const overlapEnds = (material.stepAt ?? 0) + policy.caOverlapMs;
  const servingDue = servingRenewal(material, policy, forced, now);

  if (material.nextCa) {
    if (servingDue) return { step: servingDue, recheckAt: now };
    if (now < overlapEnds) return { recheckAt: Math.min(overlapEnds, renewalTime(material.serving.certPem)) };
    // The leader injects the bundle first; until every caBundle shows the new CA, switching would break calls.
    if (!caBundlesTrust(material.nextCa.certPem)) return { recheckAt: now + 1000 };
    return { step: { kind: 'ca_switch', reason: 'the new CA is in every caBundle and the overlap has passed' }, recheckAt: now };
  }
  if (material.caBundle.length > 1) {
    if (servingDue) return { step: servingDue, recheckAt: now };
    if (now < overlapEnds) return { recheckAt: Math.min(overlapEnds, renewalTime(material.serving.certPem)) };
    // Replicas cannot be asked what they serve: the overlap is their time to load the new pair, and one that did not
    // stops being ready once the old CA leaves.
    return { step: { kind: 'ca_retire', reason: 'the overlap since the new CA started signing has passed' }, recheckAt: now };
  }
  const caDue = renewalTime(material.signingCa.certPem);
  if (forced === 'ca') return { step: { kind: 'ca_add', reason: 'a CA rotation was asked for' }, recheckAt: now };
  if (now >= caDue) return { step: { kind: 'ca_add', reason: 'less than a third of the CA lifetime remains' }, recheckAt: now };
  if (servingDue) return { step: servingDue, recheckAt: now };
  return { recheckAt: Math.min(caDue, renewalTime(material.serving.certPem)) };
}

function servingRenewal(material: CertificateMaterial, policy: RotationPolicy, forced: RotationInput['forced'], now: number): RotationStep | undefined {
  if (forced === 'serving') return { kind: 'serving', reason: 'a serving certificate renewal was asked for' };
  if (issuerIn([material.signingCa.certPem], material.serving.certPem) === undefined) {
    return { kind: 'serving', reason: 'the serving certificate was not issued by the signing CA' };
  }
  if (!namesMatch(material.serving.certPem, policy)) return { kind: 'serving', reason: 'the serving certificate does not carry the names asked for' };
  if (now >= renewalTime(material.serving.certPem)) return { kind: 'serving', reason: 'less than a third of the serving certificate lifetime remains' };
  return undefined;
}

function namesMatch(certPem: string, policy: RotationPolicy): boolean {
  const wanted = [...policy.dnsNames.map((name) => `DNS:${name.toLowerCase()}`), ...policy.ipAddresses.map(ipName)].sort();
  return subjectAltNames(certPem).sort().join(',') === wanted.join(',');
}

// Node prints IPv6 addresses in its own spelling; compared as bytes, "::1" and "0:0:0:0:0:0:0:1" are one name.
function ipName(ip: string): string {
  return `IP:${Buffer.from(ipAddressBytes(ip) ?? []).toString('hex')}`;
}

function subjectAltNames(certPem: string): string[] {
  return (new X509Certificate(certPem).subjectAltName ?? '')
    .split(', ')
    .filter((entry) => entry !== '')
    .map((entry) => (entry.startsWith('IP Address:') ? ipName(entry.slice('IP Address:'.length)) : entry.toLowerCase().replace(/^dns:/, 'DNS:')));
}

/** The Secret's content after `step`: new keys and certificates where the step makes them, the rest as it was. */
export function applyRotation(step: RotationStep, material: CertificateMaterial | undefined, policy: RotationPolicy, now: number): CertificateMaterial {
  switch (step.kind) {
    case 'issue': {
      const ca = newCa(policy, now);
      return { serving: newServing(ca, policy), caBundle: [ca.certPem], signingCa: ca, stepAt: now };
    }
    case 'serving':
      return { ...must(material), serving: newServing(must(material).signingCa, policy) };
    case 'ca_add': {
      const next = newCa(policy, now);
      return { ...must(material), caBundle: [...must(material).caBundle, next.certPem], nextCa: next, stepAt: now };
    }
    case 'ca_switch': {
      const { nextCa, ...rest } = must(material);
      const signing = must(nextCa);
      return { ...rest, signingCa: signing, serving: newServing(signing, policy), stepAt: now };
    }
    case 'ca_retire': {
      const current = must(material);
      return { ...current, caBundle: current.caBundle.filter((cert) => bundleHolds([current.signingCa.certPem], cert)), stepAt: now };
    }
  }
}

function newCa(policy: RotationPolicy, now: number): PemPair {
  // Two CAs share the bundle during a rollover; distinct names keep them apart for people and for verifiers that
  // look issuers up by subject.
  const stamp = new Date(now).toISOString().replace(/[-:]|\.\d+/g, '');
  return normalised(createCertificateAuthority({ commonName: `${policy.commonName.slice(0, 40)} CA ${stamp}`, validityMs: policy.caValidityMs }));
}

/** The PEM as it reads back from the Secret (node's spelling, not forge's CRLFs), so that equal means equal. */
function normalised(pair: PemPair): PemPair {
  return { certPem: new X509Certificate(pair.certPem).toString(), keyPem: pair.keyPem.replace(/\r\n/g, '\n') };
}

function newServing(ca: PemPair, policy: RotationPolicy): PemPair {
  return normalised(issueCertificate(ca, {
    commonName: policy.commonName.slice(0, 64),
    dnsNames: policy.dnsNames,
    ipAddresses: policy.ipAddresses,
    validityMs: policy.servingValidityMs,
    usage: 'server',
  }));
}

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('a rotation step was planned for a Secret that cannot take it');
  return value;
}
