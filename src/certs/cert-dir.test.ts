import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasServingCert } from './cert-dir-layout.ts';
import { writeCertDir } from './cert-dir.ts';
import { CertificateInputError, createCertificateAuthority, issueCertificate } from './pki.ts';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'crdgate-cert-dir-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const options = { dnsNames: ['crdgate.crdgate-system.svc'], ipAddresses: ['127.0.0.1'], days: 30 };
const certOf = async (path: string): Promise<X509Certificate> => new X509Certificate(await readFile(path));
const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('writeCertDir', () => {
  it('creates the directory with a CA and a serving certificate signed by it', async () => {
    const dir = join(base, 'nested', 'certs');
    const { reusedCa, files } = await writeCertDir(dir, options);
    expect(reusedCa).toBe(false);
    expect((await readdir(dir)).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    expect(files).toEqual({
      caCert: join(dir, 'ca.crt'),
      caKey: join(dir, 'ca.key'),
      tlsCert: join(dir, 'tls.crt'),
      tlsKey: join(dir, 'tls.key'),
    });
    expect(await modeOf(files.caKey)).toBe(0o600);
    expect(await modeOf(files.tlsKey)).toBe(0o600);
    expect(await modeOf(files.tlsCert)).toBe(0o644);

    const ca = await certOf(files.caCert);
    const serving = await certOf(files.tlsCert);
    expect(ca.ca).toBe(true);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.checkHost('crdgate.crdgate-system.svc')).toBe('crdgate.crdgate-system.svc');
    expect(serving.subject).toBe('CN=crdgate.crdgate-system.svc');
  });

  it('keeps an existing CA byte for byte and signs the renewed serving certificate with it', async () => {
    const first = await writeCertDir(base, options);
    const caBefore = await readFile(first.files.caCert);
    const caKeyBefore = await readFile(first.files.caKey);
    const servingBefore = await certOf(first.files.tlsCert);

    const second = await writeCertDir(base, { ...options, dnsNames: ['renewed.example'] });
    expect(second.reusedCa).toBe(true);
    expect(await readFile(second.files.caCert)).toEqual(caBefore);
    expect(await readFile(second.files.caKey)).toEqual(caKeyBefore);
    const servingAfter = await certOf(second.files.tlsCert);
    expect(servingAfter.serialNumber).not.toBe(servingBefore.serialNumber);
    expect(servingAfter.checkHost('renewed.example')).toBe('renewed.example');
    expect(servingAfter.verify((await certOf(second.files.caCert)).publicKey)).toBe(true);
  });

  it('accepts a CA put there by someone else', async () => {
    const ca = createCertificateAuthority({ commonName: 'company-ca', days: 365 });
    await writeFile(join(base, 'ca.crt'), ca.certPem);
    await writeFile(join(base, 'ca.key'), ca.keyPem);
    const { reusedCa, files } = await writeCertDir(base, options);
    expect(reusedCa).toBe(true);
    expect((await certOf(files.tlsCert)).issuer).toBe('CN=company-ca');
  });

  it('refuses a ca.crt without ca.key, naming the files, and writes nothing', async () => {
    const ca = createCertificateAuthority({ commonName: 'orphan', days: 1 });
    await writeFile(join(base, 'ca.crt'), ca.certPem);
    await expect(writeCertDir(base, options)).rejects.toThrow(CertificateInputError);
    await expect(writeCertDir(base, options)).rejects.toThrow(`${join(base, 'ca.crt')} exists without ${join(base, 'ca.key')}`);
    expect(await readdir(base)).toEqual(['ca.crt']);
  });

  it('refuses a ca.key without ca.crt', async () => {
    await writeFile(join(base, 'ca.key'), 'whatever');
    await expect(writeCertDir(base, options)).rejects.toThrow(/ca\.key exists without .*ca\.crt/);
  });

  it('refuses an unparsable CA, or a CA whose key does not match', async () => {
    const ca = createCertificateAuthority({ commonName: 'one', days: 1 });
    const other = createCertificateAuthority({ commonName: 'two', days: 1 });
    await writeFile(join(base, 'ca.crt'), 'not a certificate');
    await writeFile(join(base, 'ca.key'), ca.keyPem);
    await expect(writeCertDir(base, options)).rejects.toThrow(`${join(base, 'ca.crt')} is not a PEM certificate`);

    await writeFile(join(base, 'ca.crt'), ca.certPem);
    await writeFile(join(base, 'ca.key'), other.keyPem);
    await expect(writeCertDir(base, options)).rejects.toThrow(new RegExp(`cannot use the CA in ${base}: CA key does not belong`));
    expect(await hasServingCert(base)).toBe(false);
  });

  it('refuses a leaf certificate in place of the CA', async () => {
    const ca = createCertificateAuthority({ commonName: 'one', days: 1 });
    const leaf = issueCertificate(ca, { commonName: 'leaf', days: 1, usage: 'server' });
    await writeFile(join(base, 'ca.crt'), leaf.certPem);
    await writeFile(join(base, 'ca.key'), leaf.keyPem);
    await expect(writeCertDir(base, options)).rejects.toThrow(/"leaf" is not a CA/);
  });

  it('passes input errors through', async () => {
    await expect(writeCertDir(base, { ...options, ipAddresses: ['999.1.1.1'] })).rejects.toThrow(/"999\.1\.1\.1"/);
    await expect(writeCertDir(base, { ...options, days: 0 })).rejects.toThrow(CertificateInputError);
  });
});
