import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCertDir } from '../../src/certs/cert-dir.ts';

export interface FreshCertDir {
  dir: string;
  /** The CA that signed the serving certificate: what the load generator trusts. */
  ca: Buffer;
  remove(): Promise<void>;
}

/** A throw-away cert dir made by crdgate's own code, so both servers present the very same certificate. */
export async function makeFreshCertDir(): Promise<FreshCertDir> {
  const dir = await mkdtemp(join(tmpdir(), 'crdgate-bench-'));
  await writeCertDir(dir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], days: 1 });
  const ca = await readFile(join(dir, 'ca.crt'));
  return { dir, ca, remove: () => rm(dir, { recursive: true, force: true }) };
}
