import { watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { certDirFiles } from '../certs/cert-dir-layout.ts';
import type { ServingCertificate } from '../certs/serving-certificate.ts';
import type { Logger } from '../log.ts';

export async function readServingCertificate(certDir: string): Promise<ServingCertificate> {
  const pair = await readPairBytes(certDir);
  assertUsable(pair);
  return pair;
}

async function readPairBytes(certDir: string): Promise<ServingCertificate> {
  const files = certDirFiles(certDir);
  const [cert, key] = await Promise.all([readFile(files.tlsCert), readFile(files.tlsKey)]);
  return { cert, key };
}

/** Fails on a key that does not match the certificate, before anything is served with it. */
export function assertUsable(pair: ServingCertificate): void {
  createSecureContext(pair);
}

/** The notAfter of the first certificate in a PEM (the leaf), in seconds since the Unix epoch. */
export function certificateNotAfterSeconds(cert: Buffer): number {
  return new X509Certificate(cert).validToDate.getTime() / 1000;
}

export interface CertificateReloader {
  stop(): void;
}

/**
 * Follows tls.crt/tls.key on disk and swaps them into the server without dropping a connection: new handshakes
 * use the new pair, open connections keep theirs. A Secret volume updates by swapping a `..data` symlink, which
 * inotify reports on the directory, not the files; a slow poll covers the filesystems where watching fails.
 * A half-written or mismatched pair is logged and skipped; the server keeps the pair it has.
 */
export function watchServingCertificate(options: {
  certDir: string;
  current: ServingCertificate;
  apply: (certificate: ServingCertificate) => void;
  /** Told of every changed pair seen on disk: loaded (and applied), or refused (the current one kept). */
  onReload?: (result: 'loaded' | 'refused', loaded?: ServingCertificate) => void;
  logger: Logger;
  pollMs?: number;
}): CertificateReloader {
  const { certDir, apply, logger } = options;
  let current = options.current;
  let checking: Promise<void> | undefined;
  let again = false;

  async function check(): Promise<void> {
    try {
      const next = await readPairBytes(certDir);
      if (next.cert.equals(current.cert) && next.key.equals(current.key)) return;
      // Parsing the pair blocks the event loop (a few hundred µs, more for big keys): only for a changed one, not
      // at every poll of an unchanged pair.
      assertUsable(next);
      apply(next);
      current = next;
      logger.info({ certDir }, 'serving certificate reloaded');
      options.onReload?.('loaded', next);
    } catch (error) {
      logger.warn({ certDir, err: error }, 'serving certificate not reloaded: keeping the current one');
      options.onReload?.('refused');
    }
  }

  function schedule(): void {
    if (checking) {
      again = true;
      return;
    }
    checking = check().finally(() => {
      checking = undefined;
      if (again) {
        again = false;
        schedule();
      }
    });
  }

  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(certDir, { persistent: false }, schedule);
    watcher.on('error', () => watcher?.close());
  } catch {
    watcher = undefined;
  }
  const timer = setInterval(schedule, options.pollMs ?? 10_000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      watcher?.close();
    },
  };
}
