import type { Contract } from '../contract/contract-definition.ts';
import { dns1123LabelMaxLength, dnsNameRules, isDns1035Label } from '../contract/values/dns-names.ts';

// Names the objects of one install share: the Service the webhooks call, the Secret the Deployment mounts, the labels
// that tie Service, Deployment and PodDisruptionBudget together. One place, so that they cannot drift apart.

/** One install of crdgate: `--name` names every object it renders (cluster-scoped ones too), in `--namespace`. */
export interface Install {
  name: string;
  namespace: string;
}

export const defaultInstallName = 'crdgate';
export const servicePort = 443;
export const certMountPath = '/etc/crdgate/certs';

/** Every object name derived from the install's name, so that two installs in one cluster never share one. */
export function installNames(name: string) {
  return {
    /** The Service, Deployment, ServiceAccount, PodDisruptionBudget, NetworkPolicy and ServiceMonitor. */
    server: name,
    /** Both webhook configurations (cluster-scoped). */
    webhookConfiguration: name,
    /**
     * The Secret holding the serving certificate: type kubernetes.io/tls (tls.crt and tls.key) from `crdgate certs`
     * or cert-manager; type Opaque, with the CA's key and the trusted bundle too, under `crdgate serve --manage-certs`.
     */
    servingCertSecret: `${name}-serving-cert`,
    /** Under `crdgate serve --manage-certs`: the Lease that lets one replica at a time fill and rotate that Secret. */
    certLease: `${name}-certs`,
    /** Under `crdgate serve --manage-certs`: the Role, ClusterRole and their bindings that let the server do so. */
    certAccess: `${name}-certs`,
    /** When a contract's hub has a scale subresource: the ClusterRole and binding that let the server read its objects. */
    scaleReads: `${name}-scale-reads`,
    /** When a contract's CRD is someone else's: the ClusterRole and binding that let the server follow that CRD. */
    ownerCrdReads: `${name}-owner-crds`,
    /** With --crd-reads: the ClusterRole `crdgate check --from-cluster` reads the named CRDs and their objects with (unbound). */
    crdReads: `${name}-crd-reads`,
    /** With --crd-gate: the ClusterRole and binding with which the server lists the objects of the gated CRDs. */
    crdGate: `${name}-crd-gate`,
    /** The migration's ServiceAccount, ClusterRole and ClusterRoleBinding. */
    migration: `${name}-migrate`,
    selfSignedIssuer: `${name}-selfsigned`,
    ca: `${name}-ca`,
    dashboard: `${name}-dashboard`,
  };
}

export function migrationJobName(name: string, contract: Contract): string {
  return `${installNames(name).migration}-${contract.identity.plural}`;
}

export type Component = 'webhook' | 'migration' | 'monitoring' | 'check';

/**
 * The install's name is the app.kubernetes.io/name label: selectors of two installs in one namespace are then
 * disjoint, and the default install keeps the selectors it always had (a Deployment's selector cannot be changed in
 * place, so an upgrade that changed it would fail to apply).
 */
export function componentLabels(name: string, component: Component): Record<string, string> {
  return { 'app.kubernetes.io/name': name, 'app.kubernetes.io/component': component };
}

/** The Service's DNS names, which the serving certificate must carry. */
export function serviceDnsNames(install: Install): string[] {
  const service = installNames(install.name).server;
  return [`${service}.${install.namespace}.svc`, `${service}.${install.namespace}.svc.cluster.local`];
}

/**
 * Why `name` cannot name an install of these contracts, or undefined. It names a Service, so it must be a DNS-1035
 * label (a DNS-1123 label that starts with a letter); each name derived from it must stay a DNS-1123 label too: the
 * Jobs' names end up in their pods' job-name label, and the rest keep to the strictest rule for simplicity.
 */
export function installNameProblem(name: string, contracts: readonly Contract[]): string | undefined {
  if (!isDns1035Label(name)) return `"${name}" must be ${dnsNameRules.dns1035Label}`;
  const derived = [
    ...Object.values(installNames(name)),
    ...contracts.map((contract) => migrationJobName(name, contract)),
  ];
  const longest = derived.reduce((a, b) => (b.length > a.length ? b : a));
  if (longest.length <= dns1123LabelMaxLength) return undefined;
  const room = dns1123LabelMaxLength - (longest.length - name.length);
  return `"${name}" is too long: it would make the object name "${longest}" longer than ${dns1123LabelMaxLength} characters (at most ${Math.max(room, 0)} characters here)`;
}
