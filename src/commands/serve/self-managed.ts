import { hostname } from 'node:os';
import type { CertificateManagerOptions } from '../../certs/self-managed/certificate-manager.ts';
import type { RotationPolicy } from '../../certs/self-managed/rotation.ts';
import type { KubeWatchApi } from '../../kube/kube-api.ts';
import { installNames } from '../../render/in-cluster-names.ts';
import type { ServingCertificate } from '../../certs/serving-certificate.ts';
import { UsageError } from '../command.ts';
import type { ManageCertsFlags } from './flags.ts';

/** What `serve --manage-certs` starts with: the certificate manager's options, and the pair served until it fills. */
export type SelfManagedOptions = CertificateManagerSettings & { placeholder: ServingCertificate };

export type CertificateManagerSettings = Omit<CertificateManagerOptions, 'serve' | 'metrics' | 'logger'>;

/**
 * The certificate manager's settings from the flags. `ownedCrdNames`: the CRDs crdgate installs; one its owner
 * installs holds the owner's conversion webhook and caBundle.
 */
export function certificateManagerSettings(
  flags: ManageCertsFlags,
  api: KubeWatchApi,
  ownedCrdNames: string[],
): CertificateManagerSettings {
  const { name, namespace, policy, leaseDurationMs } = flags;
  const names = installNames(name);
  return {
    api,
    namespace,
    secretName: names.servingCertSecret,
    leaseName: names.certLease,
    webhookConfigurationName: names.webhookConfiguration,
    crdNames: ownedCrdNames,
    identity: process.env.POD_NAME || `${hostname()}-${process.pid}`,
    policy,
    leaseDurationMs,
  };
}

/**
 * What the server presents until the shared Secret has a pair: a self-signed certificate nobody trusts, so that the
 * port and the liveness probe answer while readiness says no. It carries the names asked for, so that a name no
 * certificate can carry (`--cert-ip localhost`) is a usage error now, not a renewal that fails every few seconds.
 */
export async function placeholderCertificate(policy: RotationPolicy): Promise<ServingCertificate> {
  const { createCertificateAuthority, issueCertificate } = await import('../../certs/pki.ts');
  const ca = createCertificateAuthority({ commonName: 'crdgate placeholder', days: 1 });
  try {
    const pair = issueCertificate(ca, {
      commonName: 'crdgate placeholder',
      dnsNames: policy.dnsNames,
      ipAddresses: policy.ipAddresses,
      days: 1,
      usage: 'server',
    });
    return { cert: Buffer.from(pair.certPem), key: Buffer.from(pair.keyPem) };
  } catch (error) {
    throw new UsageError(`--cert-dns/--cert-ip: ${(error as Error).message}`);
  }
}
