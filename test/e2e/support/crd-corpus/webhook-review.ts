import { randomUUID } from 'node:crypto';
import type { Contract } from '../../../../src/contract/contract-definition.ts';
import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';

/**
 * The AdmissionReview kube-apiserver sends crdgate's validating webhook for a CREATE it has accepted so far: the
 * object as it would store it (pruned, defaulted, its metadata set: a dry run's answer), in the hub, which the
 * webhooks are registered for (matchPolicy Equivalent). With conversion None, as every CRD is installed here, the API
 * server converts to the hub by setting apiVersion alone (apiextensions-apiserver's nopConverter; the admission
 * path neither prunes nor defaults after it).
 */
export function reviewAsSent(contract: Contract, stored: KubeObject, requestVersion: string): unknown {
  const { group, kind, plural } = contract.identity;
  const hubKind = { group, version: contract.hub, kind };
  const hubResource = { group, version: contract.hub, resource: plural };
  const metadata = stored.metadata ?? {};
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind: hubKind,
      resource: hubResource,
      requestKind: { ...hubKind, version: requestVersion },
      requestResource: { ...hubResource, version: requestVersion },
      ...(typeof metadata.name === 'string' ? { name: metadata.name } : {}),
      ...(typeof metadata.namespace === 'string' ? { namespace: metadata.namespace } : {}),
      operation: 'CREATE',
      userInfo: { username: 'kubernetes-admin', groups: ['system:masters', 'system:authenticated'] },
      object: { ...stored, apiVersion: `${group}/${contract.hub}` },
      oldObject: null,
      dryRun: true,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions', fieldValidation: 'Strict' },
    },
  };
}
