import type { KubeObject } from '../contract/values/kube-object.ts';

/** A CRD of Pipes, pipes.gate.example.com, one version v1 with spec.size and spec.colour unless told otherwise. */
export function pipeCrd({
  fields = { size: { type: 'integer' }, colour: { type: 'string' } } as Record<string, unknown>,
  annotations = {} as Record<string, string>,
} = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'pipes.gate.example.com', annotations },
    spec: {
      group: 'gate.example.com',
      scope: 'Namespaced',
      names: { plural: 'pipes', singular: 'pipe', kind: 'Pipe', listKind: 'PipeList' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: fields } } } },
        },
      ],
    },
    status: { storedVersions: ['v1'] },
  };
}

/** An admission.k8s.io/v1 AdmissionReview of an update of a CRD, as kube-apiserver sends it to the gate. */
export function crdUpdateReview(
  oldCrd: KubeObject,
  newCrd: KubeObject,
  uid = 'c0ffee00-0000-4000-8000-000000000042',
): Record<string, unknown> {
  const crdKind = { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' };
  const crdResource = { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' };
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid,
      kind: crdKind,
      resource: crdResource,
      requestKind: crdKind,
      requestResource: crdResource,
      name: String(newCrd.metadata?.name),
      operation: 'UPDATE',
      userInfo: { username: 'kubernetes-admin' },
      object: newCrd,
      oldObject: oldCrd,
      dryRun: false,
      options: { apiVersion: 'meta.k8s.io/v1', kind: 'UpdateOptions' },
    },
  };
}
