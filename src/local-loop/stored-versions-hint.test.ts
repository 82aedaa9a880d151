import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KubeApiError } from '../kube/kube-api-error.ts';
import { refusalsAsKubeApiErrors } from './refusals-as-kube-api-errors.ts';
import { storedVersionsHint } from './stored-versions-hint.ts';

// kube-apiserver v1.36's answers to a server-side apply of a CRD, as `crdgate dev` met them (2026-11-29).
const crd = 'cacheclusters.dev.cache.example.com';
const storedVersionsMessage =
  'Invalid value: "v1alpha1": missing from spec.versions; v1alpha1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1alpha1 and removes v1alpha1 from status.storedVersions';
const storedVersionsRefusal = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `CustomResourceDefinition.apiextensions.k8s.io "${crd}" is invalid: status.storedVersions[0]: ${storedVersionsMessage}`,
  reason: 'Invalid',
  details: {
    name: crd,
    group: 'apiextensions.k8s.io',
    kind: 'CustomResourceDefinition',
    causes: [{ reason: 'FieldValueInvalid', message: storedVersionsMessage, field: 'status.storedVersions[0]' }],
  },
  code: 422,
};
const conversionRefusal = {
  ...storedVersionsRefusal,
  message: `CustomResourceDefinition.apiextensions.k8s.io "${crd}" is invalid: spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook`,
  details: {
    ...storedVersionsRefusal.details,
    causes: [
      {
        reason: 'FieldValueForbidden',
        message: 'Forbidden: should not be set when strategy is not set to Webhook',
        field: 'spec.conversion.webhookClientConfig',
      },
    ],
  },
};

/** The refusal as client-node throws it (the body as the API server's text), through crdgate's translation. */
async function refused(status: object): Promise<unknown> {
  const thrown = new ApiException(422, 'Unsuccessful HTTP Request', JSON.stringify(status), {});
  return refusalsAsKubeApiErrors(() => Promise.reject(thrown)).catch((error: unknown) => error);
}

describe('a CRD the API server refused, as crdgate dev says it', () => {
  it("is the API server's message, not client-node's dump of the answer", async () => {
    const error = await refused(storedVersionsRefusal);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).message).toBe(storedVersionsRefusal.message);
  });

  it('names the migration to run against the local control plane when the edit removes a stored version', async () => {
    expect(storedVersionsHint(await refused(storedVersionsRefusal), '/tmp/crdgate-dev-x/kubeconfig')).toBe(
      `${crd} still has objects stored in v1alpha1 (its status.storedVersions lists it): run ` +
        `\`crdgate migrate --resource ${crd} --kubeconfig /tmp/crdgate-dev-x/kubeconfig\` while this generation ` +
        'serves (it rewrites them in the storage version and trims status.storedVersions), then save the contract again',
    );
  });

  it('says nothing more for any other refusal', async () => {
    expect(storedVersionsHint(await refused(conversionRefusal), '/k')).toBeUndefined();
    expect(storedVersionsHint(new Error('connect ECONNREFUSED'), '/k')).toBeUndefined();
  });
});
