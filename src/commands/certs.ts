import { resolve } from 'node:path';
import { writeCertDir } from '../certs/cert-dir.ts';
import { CertificateInputError } from '../certs/pki.ts';
import { positiveInteger, requiredString, stringList, UsageError, type Command } from './command.ts';
import { asSystemError } from './system-error.ts';

export const certsCommand: Command = {
  name: 'certs',
  summary: 'make a CA and a serving certificate (ca.crt, ca.key, tls.crt, tls.key)',
  usage: `crdgate certs --out DIR [--dns NAME]... [--ip ADDR]... [--days N]

  Without --dns and --ip the certificate names localhost and 127.0.0.1.
  If DIR already holds ca.crt and ca.key, that CA is kept and only a new serving certificate is issued,
  so the caBundle given to the API server stays valid (renewal).`,
  options: {
    out: { type: 'string' },
    dns: { type: 'string', multiple: true },
    ip: { type: 'string', multiple: true },
    days: { type: 'string' },
  },
  async run(values, io) {
    const dir = resolve(io.cwd, requiredString(values, 'out'));
    let dnsNames = stringList(values, 'dns');
    let ipAddresses = stringList(values, 'ip');
    if (dnsNames.length === 0 && ipAddresses.length === 0) {
      dnsNames = ['localhost'];
      ipAddresses = ['127.0.0.1'];
    }
    try {
      const result = await writeCertDir(dir, { dnsNames, ipAddresses, days: positiveInteger(values, 'days', 365) });
      io.stdout(
        `${result.reusedCa ? 'kept the CA in' : 'made a new CA in'} ${dir}; issued tls.crt for ${[...dnsNames, ...ipAddresses].join(', ')}\n`,
      );
      return 0;
    } catch (error) {
      if (error instanceof CertificateInputError) throw new UsageError(error.message);
      return asSystemError(error, `cannot write the certificates to ${dir}`);
    }
  },
};
