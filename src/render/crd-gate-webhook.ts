import { crdGateDefaults } from '../config.ts';
import { liveObjectListRules } from './crd-reads.ts';
import { installNames, type Install } from './in-cluster-names.ts';
import { serverClusterRole } from './server-cluster-role.ts';
import type { ManifestFile } from './manifest.ts';
import { clientConfigFor, webhookPaths, type WebhookEndpoint } from './webhook-endpoint.ts';

/** The gate's webhook, by the name the API server's messages give it ("admission webhook X denied the request"). */
export const crdGateWebhookName = 'crd-gate.crdgate.dev';

/**
 * Only updates of the named CRDs that change their spec reach the gate: a status write (storedVersions), a label or
 * an annotation alone never does. The override annotation travels with a spec change, so it reaches the gate too.
 */
export function crdGateMatchConditions(crdNames: readonly string[]): Array<{ name: string; expression: string }> {
  return [
    { name: 'named-crds', expression: `object.metadata.name in [${crdNames.map((name) => `'${name}'`).join(', ')}]` },
    { name: 'spec-changed', expression: 'object.spec != oldObject.spec' },
  ];
}

const comment = (
  names: readonly string[],
) => `What crdgate's server reads for the CRD gate on ${names.join(', ')} (its webhook, crd-gate.crdgate.dev, is in the
validating webhook configuration with the others): the objects of these CRDs, listed in every namespace, to judge
them against a new revision. list only; no get, watch or write, and no other resource.`;

/**
 * The gate's webhook, for the install's ValidatingWebhookConfiguration (so that whatever gives that configuration
 * its caBundle, by hand, cert-manager or the self-managed certificates, gives it to the gate too).
 */
export function renderCrdGateWebhook(crdNames: readonly string[], endpoint: WebhookEndpoint): Record<string, unknown> {
  return {
    name: crdGateWebhookName,
    clientConfig: clientConfigFor(endpoint, webhookPaths.crdGate),
    rules: [
      {
        apiGroups: ['apiextensions.k8s.io'],
        apiVersions: ['v1'],
        operations: ['UPDATE'],
        resources: ['customresourcedefinitions'],
        scope: 'Cluster',
      },
    ],
    matchConditions: crdGateMatchConditions(crdNames),
    matchPolicy: 'Equivalent',
    // Fail: an unjudged CRD revision is what the gate exists to stop, and an outage blocks spec updates of the
    // named CRDs only (their objects, their status writes and every other CRD go on). The policy floor leaves it so.
    failurePolicy: 'Fail',
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    timeoutSeconds: crdGateDefaults.timeoutSeconds,
  };
}

/** The ClusterRole and binding with which the server lists the live objects of the gated CRDs; nothing without names. */
export function renderCrdGateReadsFile(path: string, crdNames: readonly string[], install: Install): ManifestFile[] {
  if (crdNames.length === 0) return [];
  return [
    {
      path,
      comment: comment(crdNames),
      manifests: serverClusterRole(install, installNames(install.name).crdGate, liveObjectListRules(crdNames)),
    },
  ];
}
