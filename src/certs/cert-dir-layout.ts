import { access } from 'node:fs/promises';
import { join } from 'node:path';

// Where a certificate directory keeps its files, apart from cert-dir.ts, which makes them: `serve` asks whether a
// serving certificate is there on every start, and must not load node-forge to find out.

export interface CertDirFiles {
  caCert: string;
  caKey: string;
  tlsCert: string;
  tlsKey: string;
}

export function certDirFiles(dir: string): CertDirFiles {
  return {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    tlsCert: join(dir, 'tls.crt'),
    tlsKey: join(dir, 'tls.key'),
  };
}

/** True when dir holds a serving certificate and key (it does not check that they are valid). */
export async function hasServingCert(dir: string): Promise<boolean> {
  const files = certDirFiles(dir);
  return (await exists(files.tlsCert)) && (await exists(files.tlsKey));
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
