import { X509Certificate, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import { request, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import forge from 'node-forge';
import { beforeAll, describe, expect, it } from 'vitest';
import { CertificateInputError, createCertificateAuthority, issueCertificate } from './pki.ts';
import type { PemPair } from './pki.ts';

const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';

let ca: PemPair;
let otherCa: PemPair;
beforeAll(() => {
  ca = createCertificateAuthority({ commonName: 'crdgate-test-ca', days: 30 });
  otherCa = createCertificateAuthority({ commonName: 'crdgate-other-ca', days: 30 });
});

const x509 = (pair: PemPair): X509Certificate => new X509Certificate(pair.certPem);

function expectKeyMatches(pair: PemPair): void {
  expect(x509(pair).checkPrivateKey(createPrivateKey(pair.keyPem))).toBe(true);
}

describe('createCertificateAuthority', () => {
  it('makes a self-signed CA valid for the requested days, backdated for clock skew', () => {
    const cert = x509(ca);
    expect(cert.ca).toBe(true);
    expect(cert.subject).toBe('CN=crdgate-test-ca');
    expect(cert.issuer).toBe('CN=crdgate-test-ca');
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(cert.validFromDate.getTime()).toBeLessThan(Date.now() - 60_000);
    const daysValid = (cert.validToDate.getTime() - Date.now()) / 86_400_000;
    expect(daysValid).toBeGreaterThan(29.99);
    expect(daysValid).toBeLessThanOrEqual(30);
    expectKeyMatches(ca);
  });

  it('signs with SHA-256 and marks basicConstraints critical', () => {
    // node:crypto exposes neither the signature algorithm nor criticality, so look at the DER.
    const der = x509(ca).raw.toString('hex');
    expect(der).toContain('06092a864886f70d01010b'); // OID sha256WithRSAEncryption
    expect(der).toContain('0603551d130101ff040530030101ff'); // basicConstraints, critical, cA TRUE
  });

  it('rejects bad input with a CertificateInputError naming the value', () => {
    expect(() => createCertificateAuthority({ commonName: 'x', days: 0 })).toThrow(CertificateInputError);
    expect(() => createCertificateAuthority({ commonName: 'x', days: 1.5 })).toThrow(/days.*1\.5/);
    expect(() => createCertificateAuthority({ commonName: '', days: 1 })).toThrow(CertificateInputError);
  });
});

describe('issueCertificate', () => {
  it('issues a serving certificate with DNS and IP SANs that verifies against its CA only', () => {
    const leaf = issueCertificate(ca, {
      commonName: 'crdgate.crdgate-system.svc',
      dnsNames: ['crdgate', 'crdgate.crdgate-system.svc', 'localhost'],
      ipAddresses: ['127.0.0.1', '::1'],
      days: 10,
      usage: 'server',
    });
    const cert = x509(leaf);
    expect(cert.ca).toBe(false);
    expect(cert.subject).toBe('CN=crdgate.crdgate-system.svc');
    expect(cert.issuer).toBe('CN=crdgate-test-ca');
    expect(cert.subjectAltName).toBe(
      'DNS:crdgate, DNS:crdgate.crdgate-system.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    expect(cert.checkHost('crdgate.crdgate-system.svc')).toBe('crdgate.crdgate-system.svc');
    expect(cert.checkHost('example.com')).toBeUndefined();
    expect(cert.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(cert.checkIP('::1')).toBe('::1');
    expect(cert.checkIP('10.0.0.1')).toBeUndefined();
    expect(cert.keyUsage).toEqual([SERVER_AUTH]);
    expect(cert.verify(x509(ca).publicKey)).toBe(true);
    expect(cert.verify(x509(otherCa).publicKey)).toBe(false);
    expect(cert.checkIssued(x509(ca))).toBe(true);
    expectKeyMatches(leaf);
  });

  it('issues a client certificate whose organizations become subject O entries', () => {
    const client = issueCertificate(ca, { commonName: 'admin', organizations: ['system:masters', 'team'], days: 1, usage: 'client' });
    const cert = x509(client);
    expect(cert.subject).toBe('CN=admin\nO=system:masters\nO=team');
    expect(cert.keyUsage).toEqual([CLIENT_AUTH]);
    expect(cert.subjectAltName).toBeUndefined();
    expect(cert.verify(x509(ca).publicKey)).toBe(true);
  });

  it('links to the CA through the authority key identifier', () => {
    const leaf = issueCertificate(ca, { commonName: 'a', days: 1, usage: 'server' });
    const ski = (forge.pki.certificateFromPem(ca.certPem).getExtension('subjectKeyIdentifier') as { subjectKeyIdentifier: string })
      .subjectKeyIdentifier;
    expect(ski).toMatch(/^[0-9a-f]{40}$/);
    // authorityKeyIdentifier (OID 2.5.29.35) holding [0] keyIdentifier = the CA's 20-byte subject key identifier
    expect(x509(leaf).raw.toString('hex')).toMatch(new RegExp(`0603551d23.{0,12}8014${ski}`));
  });

  it('gives every certificate a different positive 128-bit serial', () => {
    const serials = [ca, otherCa, ...Array.from({ length: 3 }, () => issueCertificate(ca, { commonName: 'a', days: 1, usage: 'server' }))].map(
      (pair) => x509(pair).serialNumber,
    );
    expect(new Set(serials).size).toBe(serials.length);
    for (const serial of serials) {
      expect(serial).toMatch(/^[4-7][0-9A-F]{31}$/);
    }
  });

  it('rejects invalid names, addresses and days, naming the bad value', () => {
    const bad = (opts: Partial<Parameters<typeof issueCertificate>[1]>): (() => unknown) =>
      () => issueCertificate(ca, { commonName: 'a', days: 1, usage: 'server', ...opts });
    expect(bad({ ipAddresses: ['127.0.0.1', '300.1.1.1'] })).toThrow(/"300\.1\.1\.1"/);
    expect(bad({ ipAddresses: ['localhost'] })).toThrow(CertificateInputError);
    expect(bad({ dnsNames: ['under_score.example'] })).toThrow(/"under_score\.example"/);
    expect(bad({ dnsNames: ['-leading.example'] })).toThrow(CertificateInputError);
    expect(bad({ dnsNames: ['a..b'] })).toThrow(CertificateInputError);
    expect(bad({ dnsNames: ['a.*.b'] })).toThrow(CertificateInputError);
    expect(bad({ dnsNames: [`${'a'.repeat(64)}.example`] })).toThrow(CertificateInputError);
    expect(bad({ days: -3 })).toThrow(/-3/);
    expect(bad({ dnsNames: ['*.crdgate.svc', 'UPPER.example', 'x'] })).not.toThrow();
  });

  it('refuses a CA whose key does not match or that is not a CA', () => {
    expect(() => issueCertificate({ certPem: ca.certPem, keyPem: otherCa.keyPem }, { commonName: 'a', days: 1, usage: 'server' })).toThrow(
      /does not belong/,
    );
    const leaf = issueCertificate(ca, { commonName: 'leaf', days: 1, usage: 'server' });
    expect(() => issueCertificate(leaf, { commonName: 'a', days: 1, usage: 'server' })).toThrow(/"leaf" is not a CA/);
    expect(() => issueCertificate({ certPem: 'garbage', keyPem: ca.keyPem }, { commonName: 'a', days: 1, usage: 'server' })).toThrow(
      CertificateInputError,
    );
  });
});

describe('issued certificates in a real TLS handshake', () => {
  async function withServer(serving: PemPair, clientCa: PemPair, run: (port: number) => Promise<void>): Promise<void> {
    const server = createServer(
      { cert: serving.certPem, key: serving.keyPem, ca: clientCa.certPem, requestCert: true, rejectUnauthorized: false },
      (req, res) => {
        const socket = req.socket as TLSSocket;
        res.end(JSON.stringify({ authorized: socket.authorized, client: socket.getPeerCertificate().subject?.CN ?? null }));
      },
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await run((server.address() as AddressInfo).port);
    } finally {
      server.close();
      server.closeAllConnections();
    }
  }

  function get(port: number, trust: PemPair, client?: PemPair): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/', ca: trust.certPem, cert: client?.certPem, key: client?.keyPem, agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve(body));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('succeeds when the client trusts the issuing CA, and fails with another CA', async () => {
    const serving = issueCertificate(ca, { commonName: 'crdgate', ipAddresses: ['127.0.0.1'], days: 1, usage: 'server' });
    const client = issueCertificate(ca, { commonName: 'kube-apiserver', days: 1, usage: 'client' });
    await withServer(serving, ca, async (port) => {
      expect(JSON.parse(await get(port, ca))).toEqual({ authorized: false, client: null });
      expect(JSON.parse(await get(port, ca, client))).toEqual({ authorized: true, client: 'kube-apiserver' });
      // OpenSSL completes the server's chain from its `ca` option, so the client is shown our CA
      // as an untrusted self-signed root.
      await expect(get(port, otherCa)).rejects.toMatchObject({ code: 'SELF_SIGNED_CERT_IN_CHAIN' });
    });
  });

  it('fails host verification when the address is not in the SANs', async () => {
    const serving = issueCertificate(ca, { commonName: 'crdgate', dnsNames: ['localhost'], ipAddresses: ['10.0.0.1'], days: 1, usage: 'server' });
    await withServer(serving, ca, async (port) => {
      await expect(get(port, ca)).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    });
  });
});
