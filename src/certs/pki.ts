import { generateKeyPairSync, randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { dns1123SubdomainMaxLength, isDns1123Label } from '../contract/values/dns-names.ts';
import { ipAddressBytes } from './ip-address-bytes.ts';

export interface PemPair {
  certPem: string;
  keyPem: string;
}

/** How long a certificate is valid: whole days (`crdgate certs`), or milliseconds (a rotating manager's lifetimes). */
export interface Validity {
  days?: number;
  validityMs?: number;
}

export type CertificateAuthorityOptions = { commonName: string } & Validity;

export type CertificateOptions = CertificateFields & Validity;

interface CertificateFields {
  commonName: string;
  /** Subject O= entries; Kubernetes reads them as the groups of a client certificate. */
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  usage: 'server' | 'client';
}

/** A caller asked for a certificate that cannot or must not be made; the message names the bad value. */
export class CertificateInputError extends Error {
  override name = 'CertificateInputError';
}

// Clocks of the API server, the webhook host and the developer's laptop disagree by seconds to
// minutes; a certificate that is "not yet valid" for one of them breaks TLS for no good reason.
export const CLOCK_SKEW_ALLOWANCE_MS = 5 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export function createCertificateAuthority(opts: CertificateAuthorityOptions): PemPair {
  checkCommonName(opts.commonName);
  const validityMs = validityMsOf(opts);
  const keys = generateRsaKeyPair();
  const cert = newCertificate(keys.publicKey, validityMs);
  const subject = [{ name: 'commonName', value: opts.commonName }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', critical: true, digitalSignature: true, keyCertSign: true, cRLSign: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}

export function issueCertificate(ca: PemPair, opts: CertificateOptions): PemPair {
  checkCommonName(opts.commonName);
  const validityMs = validityMsOf(opts);
  const organizations = opts.organizations ?? [];
  for (const organization of organizations) {
    if (organization.trim() === '') throw new CertificateInputError('organization must not be empty');
  }
  const dnsNames = opts.dnsNames ?? [];
  for (const name of dnsNames) checkDnsName(name);
  const ipAltNames = (opts.ipAddresses ?? []).map((ip) => {
    const bytes = ipAddressBytes(ip);
    if (!bytes) throw new CertificateInputError(`IP address "${ip}" is not a valid IPv4 or IPv6 address`);
    return { type: 7, value: forge.util.binary.raw.encode(bytes) };
  });
  const authority = parseCertificateAuthority(ca);

  const keys = generateRsaKeyPair();
  const cert = newCertificate(keys.publicKey, validityMs);
  cert.setSubject([
    { name: 'commonName', value: opts.commonName },
    ...organizations.map((value) => ({ name: 'organizationName', value })),
  ]);
  cert.setIssuer(authority.cert.subject.attributes);
  const altNames = [...dnsNames.map((value) => ({ type: 2, value })), ...ipAltNames];
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', critical: true, digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: opts.usage === 'server', clientAuth: opts.usage === 'client' },
    ...(altNames.length > 0 ? [{ name: 'subjectAltName', altNames }] : []),
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: authority.keyIdentifier },
  ]);
  cert.sign(authority.key, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: forge.pki.privateKeyToPem(keys.privateKey) };
}

interface ParsedAuthority {
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
  /** Raw bytes (forge binary string) for the authorityKeyIdentifier of certificates it issues. */
  keyIdentifier: string;
}

// A CA may come from disk (an earlier `crdgate certs`, or another tool), so check everything
// that would otherwise produce a certificate nobody can verify.
function parseCertificateAuthority(ca: PemPair): ParsedAuthority {
  let cert: forge.pki.Certificate;
  try {
    cert = forge.pki.certificateFromPem(ca.certPem);
  } catch (error) {
    throw new CertificateInputError(`CA certificate is not a PEM RSA certificate: ${(error as Error).message}`);
  }
  let key: forge.pki.rsa.PrivateKey;
  try {
    key = forge.pki.privateKeyFromPem(ca.keyPem);
  } catch (error) {
    throw new CertificateInputError(`CA key is not a PEM RSA private key: ${(error as Error).message}`);
  }
  const publicKey = cert.publicKey as forge.pki.rsa.PublicKey;
  if (publicKey.n.compareTo(key.n) !== 0 || publicKey.e.compareTo(key.e) !== 0) {
    throw new CertificateInputError(`CA key does not belong to the CA certificate "${commonNameOf(cert)}"`);
  }
  const basicConstraints = cert.getExtension('basicConstraints') as { cA?: boolean } | undefined;
  if (!basicConstraints?.cA) {
    throw new CertificateInputError(`certificate "${commonNameOf(cert)}" is not a CA (basicConstraints cA is not set)`);
  }
  // Reuse the CA's own identifier when it has one, so the chain links even if the CA was made
  // by a tool that derives it differently.
  const ski = cert.getExtension('subjectKeyIdentifier') as { subjectKeyIdentifier?: string } | undefined;
  const keyIdentifier = ski?.subjectKeyIdentifier
    ? forge.util.hexToBytes(ski.subjectKeyIdentifier)
    : cert.generateSubjectKeyIdentifier().getBytes();
  return { cert, key, keyIdentifier };
}

function commonNameOf(cert: forge.pki.Certificate): string {
  return String(cert.subject.getField('CN')?.value ?? '');
}

// node:crypto generates RSA keys natively in tens of milliseconds; forge's pure-JS keygen takes
// seconds per key, which adds up in tests that make many certificates.
function generateRsaKeyPair(): forge.pki.rsa.KeyPair {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const forgeKey = forge.pki.privateKeyFromPem(privateKey);
  return { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e) };
}

function newCertificate(publicKey: forge.pki.rsa.PublicKey, validityMs: number): forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = publicKey;
  cert.serialNumber = randomSerialNumber();
  const now = Date.now();
  cert.validity.notBefore = new Date(now - CLOCK_SKEW_ALLOWANCE_MS);
  cert.validity.notAfter = new Date(now + validityMs);
  return cert;
}

// 16 random bytes with the top bit cleared (DER integers are signed; serials must be positive)
// and the next bit set (so the encoding never needs, nor has, a non-minimal leading zero byte,
// which strict parsers such as Go's reject).
function randomSerialNumber(): string {
  const bytes = randomBytes(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes.toString('hex');
}

function validityMsOf(validity: Validity): number {
  if (validity.validityMs !== undefined && validity.days !== undefined) {
    throw new CertificateInputError('a certificate takes days or validityMs, not both');
  }
  if (validity.validityMs !== undefined) {
    if (!Number.isInteger(validity.validityMs) || validity.validityMs < 1000) {
      throw new CertificateInputError(`validity must be a whole number of milliseconds, at least a second, got ${String(validity.validityMs)}`);
    }
    return validity.validityMs;
  }
  const days = validity.days;
  if (days === undefined || !Number.isInteger(days) || days <= 0) {
    throw new CertificateInputError(`days must be a positive integer, got ${String(days)}`);
  }
  return days * DAY_MS;
}

function checkCommonName(commonName: string): void {
  // RFC 5280 upper bound for the CN attribute.
  if (commonName.trim() === '' || commonName.length > 64) {
    throw new CertificateInputError(`common name "${commonName}" must be 1 to 64 characters`);
  }
}

// RFC 1123 host names in any case, plus a leading "*." wildcard label (a wildcard anywhere else is not honoured by
// TLS clients).
function checkDnsName(name: string): void {
  const labels = name.startsWith('*.') ? name.slice(2).split('.') : name.split('.');
  if (name.length > dns1123SubdomainMaxLength || !labels.every((label) => isDns1123Label(label.toLowerCase()))) {
    throw new CertificateInputError(`DNS name "${name}" is not a valid host name`);
  }
}
