import { X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { certDirFiles, type CertDirFiles } from './cert-dir-layout.ts';
import { CertificateInputError, createCertificateAuthority, issueCertificate } from './pki.ts';
import type { PemPair } from './pki.ts';

export interface CertDirOptions {
  dnsNames: string[];
  ipAddresses: string[];
  /** Validity of the serving certificate (and of a new CA, which lives at least 10 years). */
  days: number;
}

export interface CertDirResult {
  /** True when an existing CA was kept, so the caBundle already given to the API server stays valid. */
  reusedCa: boolean;
  files: CertDirFiles;
}

const CA_COMMON_NAME = 'crdgate-ca';
const MIN_CA_DAYS = 3650;

/**
 * Writes ca.crt, ca.key, tls.crt and tls.key into dir. A CA already in dir is kept and signs the
 * new serving certificate: renewing the serving certificate must not change the caBundle that
 * webhook configurations and CRDs carry.
 */
export async function writeCertDir(dir: string, opts: CertDirOptions): Promise<CertDirResult> {
  const files = certDirFiles(dir);
  await mkdir(dir, { recursive: true });
  const existingCa = await readExistingCa(files);
  const ca = existingCa ?? createCertificateAuthority({ commonName: CA_COMMON_NAME, days: Math.max(opts.days, MIN_CA_DAYS) });

  const commonName = opts.dnsNames[0] ?? opts.ipAddresses[0] ?? 'crdgate';
  let serving: PemPair;
  try {
    serving = issueCertificate(ca, { commonName, dnsNames: opts.dnsNames, ipAddresses: opts.ipAddresses, days: opts.days, usage: 'server' });
  } catch (error) {
    if (existingCa && error instanceof CertificateInputError) {
      throw new CertificateInputError(`cannot use the CA in ${dir}: ${error.message}`);
    }
    throw error;
  }

  if (!existingCa) {
    await writeFileAtomically(files.caKey, ca.keyPem, 0o600);
    await writeFileAtomically(files.caCert, ca.certPem, 0o644);
  }
  // Key before certificate: a server reloading on change of tls.crt then finds the new key already there.
  await writeFileAtomically(files.tlsKey, serving.keyPem, 0o600);
  await writeFileAtomically(files.tlsCert, serving.certPem, 0o644);
  return { reusedCa: existingCa !== undefined, files };
}

async function readExistingCa(files: CertDirFiles): Promise<PemPair | undefined> {
  const [certPem, keyPem] = await Promise.all([readIfExists(files.caCert), readIfExists(files.caKey)]);
  if (certPem === undefined && keyPem === undefined) return undefined;
  if (certPem === undefined) {
    throw new CertificateInputError(`${files.caKey} exists without ${files.caCert}; restore ca.crt or remove ca.key to make a new CA`);
  }
  if (keyPem === undefined) {
    throw new CertificateInputError(
      `${files.caCert} exists without ${files.caKey}; a new serving certificate cannot be signed by that CA ` +
        '(restore ca.key, or remove ca.crt to make a new CA, which changes the caBundle)',
    );
  }
  let caCert: X509Certificate;
  try {
    caCert = new X509Certificate(certPem);
  } catch {
    throw new CertificateInputError(`${files.caCert} is not a PEM certificate`);
  }
  if (caCert.validToDate.getTime() <= Date.now()) {
    throw new CertificateInputError(
      `the CA in ${files.caCert} expired on ${caCert.validTo}; remove ca.crt and ca.key to make a new CA (this changes the caBundle)`,
    );
  }
  return { certPem, keyPem };
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

// Readers (a server watching the directory, a kubectl create secret) never see half a file.
async function writeFileAtomically(path: string, content: string, mode: number): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, content, { mode });
  await chmod(temporary, mode); // the umask may have narrowed or the file may have pre-existed
  await rename(temporary, path);
}
