import { bundleHolds, splitPem } from './secret-material.ts';

// Where the API server reads the CA it trusts crdgate with: every webhook of the two webhook configurations, and the
// conversion webhook of each contract's CRD. A caBundle is base64 of a PEM bundle.

export type TargetResource = 'validatingwebhookconfigurations' | 'mutatingwebhookconfigurations' | 'customresourcedefinitions';

export interface CaBundleTarget {
  resource: TargetResource;
  name: string;
  /** The collection the object lives in, for list and watch by name. */
  collectionPath: string;
}

export interface JsonPatchOperation {
  op: 'test' | 'add';
  path: string;
  value: unknown;
}

export function caBundleTargets(webhookConfigurationName: string, crdNames: readonly string[]): CaBundleTarget[] {
  return [
    { resource: 'validatingwebhookconfigurations', name: webhookConfigurationName, collectionPath: '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations' },
    { resource: 'mutatingwebhookconfigurations', name: webhookConfigurationName, collectionPath: '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations' },
    ...crdNames.map((name) => ({ resource: 'customresourcedefinitions' as const, name, collectionPath: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions' })),
  ];
}

interface BundleSlot {
  /** JSON pointer of the caBundle field. */
  path: string;
  /** What must still hold for the pointer to mean the same field when the patch lands. */
  guard?: JsonPatchOperation;
  caBundle: string | undefined;
}

interface TargetObject {
  metadata?: { resourceVersion?: string };
  webhooks?: { name?: string; clientConfig?: { caBundle?: string } }[];
  spec?: { conversion?: { strategy?: string; webhook?: { clientConfig?: { caBundle?: string } } } };
}

function slotsOf(target: CaBundleTarget, object: unknown): BundleSlot[] {
  const typed = object as TargetObject;
  if (target.resource === 'customresourcedefinitions') {
    const conversion = typed.spec?.conversion;
    if (conversion?.strategy !== 'Webhook' || !conversion.webhook?.clientConfig) return [];
    return [
      {
        path: '/spec/conversion/webhook/clientConfig/caBundle',
        guard: { op: 'test', path: '/spec/conversion/strategy', value: 'Webhook' },
        caBundle: conversion.webhook.clientConfig.caBundle,
      },
    ];
  }
  return (typed.webhooks ?? []).flatMap((webhook, index) =>
    webhook.clientConfig
      ? [{ path: `/webhooks/${index}/clientConfig/caBundle`, guard: { op: 'test' as const, path: `/webhooks/${index}/name`, value: webhook.name }, caBundle: webhook.clientConfig.caBundle }]
      : [],
  );
}

/** Whether every caBundle of the object holds `caCertPem`; an object with none (or no object) has nothing to miss. */
export function targetTrusts(target: CaBundleTarget, object: unknown, caCertPem: string): boolean {
  if (object === undefined) return true;
  return slotsOf(target, object).every((slot) => {
    if (!slot.caBundle) return false;
    try {
      return bundleHolds(splitPem(Buffer.from(slot.caBundle, 'base64').toString('utf8')), caCertPem);
    } catch {
      return false;
    }
  });
}

/**
 * The JSON patch that sets every caBundle of the object to `bundlePem`, or undefined when each already is. It fails
 * (and is retried from a fresh read) if the object changed since it was read, so it never writes into a webhook
 * that moved to another index.
 */
export function caBundlePatch(target: CaBundleTarget, object: unknown, bundlePem: string): JsonPatchOperation[] | undefined {
  const wanted = Buffer.from(bundlePem, 'utf8').toString('base64');
  const stale = slotsOf(target, object).filter((slot) => slot.caBundle !== wanted);
  if (stale.length === 0) return undefined;
  const resourceVersion = (object as TargetObject).metadata?.resourceVersion;
  return [
    ...(resourceVersion ? [{ op: 'test' as const, path: '/metadata/resourceVersion', value: resourceVersion }] : []),
    ...stale.flatMap((slot) => [...(slot.guard ? [slot.guard] : []), { op: 'add' as const, path: slot.path, value: wanted }]),
  ];
}
