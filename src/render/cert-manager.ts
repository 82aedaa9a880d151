import type { Contract } from '../contract/contract-definition.ts';
import { convertsByWebhook, resourceName } from './custom-resource-definition.ts';
import { installNames, serviceDnsNames, type Install } from './in-cluster-names.ts';
import { renderKustomization } from './kustomization.ts';
import type { Manifest, ManifestFile } from './manifest.ts';
import { hasMutatingWebhooks } from './webhook-configurations.ts';

const overlayComment = `crdgate with its serving certificate from cert-manager (which must be installed first):
a self-signed Issuer makes a CA, the CA's Issuer signs the certificate for the Service's DNS names into the Secret
the Deployment mounts, and cert-manager's CA injector writes that CA into the webhook configurations and the CRDs'
conversion webhooks (the cert-manager.io/inject-ca-from annotations). No caBundle is rendered by hand.
crdgate reloads the renewed certificate from the Secret volume without a restart.`;

/** The cert-manager overlay: the base, plus the issuers and certificates, plus the annotations that inject the CA. */
export function renderCertManagerOverlay(
  dir: string,
  contracts: readonly Contract[],
  install: Install,
): ManifestFile[] {
  return [
    {
      path: `${dir}/kustomization.yaml`,
      comment: overlayComment,
      manifests: [
        renderKustomization('crdgate-cert-manager', {
          resources: ['../../base', 'certificates.yaml'],
          patches: [{ path: 'inject-ca.yaml' }],
        }),
      ],
    },
    { path: `${dir}/certificates.yaml`, manifests: certificates(install) },
    { path: `${dir}/inject-ca.yaml`, manifests: injectCaPatches(contracts, install) },
  ];
}

function certificates(install: Install): Manifest[] {
  const { namespace } = install;
  const { selfSignedIssuer: selfSignedIssuerName, ca: caName, servingCertSecret } = installNames(install.name);
  const issuerRef = (name: string) => ({ group: 'cert-manager.io', kind: 'Issuer', name });
  return [
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Issuer',
      metadata: { name: selfSignedIssuerName, namespace },
      spec: { selfSigned: {} },
    },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: caName, namespace },
      spec: {
        isCA: true,
        commonName: caName,
        secretName: caName,
        // Ten years: a new CA key means a new caBundle everywhere, and the serving certificate is not reissued by
        // itself when its CA changes (the runbook says how to rotate the CA).
        duration: '87600h',
        privateKey: { algorithm: 'ECDSA', size: 256 },
        issuerRef: issuerRef(selfSignedIssuerName),
      },
    },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Issuer',
      metadata: { name: caName, namespace },
      spec: { ca: { secretName: caName } },
    },
    {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: servingCertificateName(install), namespace },
      spec: {
        secretName: servingCertSecret,
        dnsNames: serviceDnsNames(install),
        // 90 days, renewed 30 days before the end: a month to notice a renewal that fails (the dashboard shows
        // the certificate's remaining days).
        duration: '2160h',
        renewBefore: '720h',
        privateKey: { algorithm: 'ECDSA', size: 256, rotationPolicy: 'Always' },
        usages: ['server auth', 'digital signature'],
        issuerRef: issuerRef(caName),
      },
    },
  ];
}

/** Strategic-merge patches: the annotation on the webhook configurations and on each CRD that converts by webhook. */
function injectCaPatches(contracts: readonly Contract[], install: Install): Manifest[] {
  const annotations = { 'cert-manager.io/inject-ca-from': `${install.namespace}/${servingCertificateName(install)}` };
  const { webhookConfiguration } = installNames(install.name);
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: webhookConfiguration, annotations },
    },
    // kustomize refuses a patch of an object the base does not have.
    ...(hasMutatingWebhooks(contracts)
      ? [
          {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'MutatingWebhookConfiguration',
            metadata: { name: webhookConfiguration, annotations },
          },
        ]
      : []),
    ...contracts.filter(convertsByWebhook).map((contract) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: resourceName(contract.identity), annotations },
    })),
  ];
}

/** The Certificate has the Secret's name: cert-manager's CA injector is told the Certificate, the Deployment mounts the Secret. */
function servingCertificateName(install: Install): string {
  return installNames(install.name).servingCertSecret;
}
