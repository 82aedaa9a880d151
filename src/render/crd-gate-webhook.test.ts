import { describe, expect, it } from 'vitest';
import { matchWebhookConditions } from '../api-server-engine/engine.ts';
import { crdRevisionOverrideAnnotation } from '../crd-gate/decide-crd-revision.ts';
import { pipeCrd } from '../crd-gate/crd-gate.fixture.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { renderManifestFiles } from './manifest-files.ts';
import { manifestDefaults } from './manifest-options.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { crdGateMatchConditions, crdGateWebhookName } from './crd-gate-webhook.ts';

const named = ['pipes.gate.example.com', 'valves.gate.example.com'];

/** Whether kube-apiserver's own matcher (the engine) calls the gate for this update of a CRD. */
function reaches(oldCrd: KubeObject, newCrd: KubeObject): boolean {
  const answer = matchWebhookConditions({
    conditions: crdGateMatchConditions(named),
    operation: 'UPDATE',
    kind: { group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition' },
    resource: { group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' },
    name: String(newCrd.metadata?.name),
    object: newCrd,
    oldObject: oldCrd,
  });
  expect(answer.compileErrors).toBeUndefined();
  expect(answer.evalError).toBeUndefined();
  return answer.matches;
}

describe("the CRD gate's match conditions, judged by kube-apiserver's matcher", () => {
  const old = pipeCrd();
  it('let through an update of a named CRD that changes its spec, with or without the override', () => {
    expect(reaches(old, pipeCrd({ fields: { size: { type: 'integer' } } }))).toBe(true);
    expect(
      reaches(
        old,
        pipeCrd({ fields: { size: { type: 'integer' } }, annotations: { [crdRevisionOverrideAnnotation]: 'why' } }),
      ),
    ).toBe(true);
  });

  it('keep out an update that changes only metadata or status, and any CRD not named', () => {
    expect(reaches(old, pipeCrd({ annotations: { [crdRevisionOverrideAnnotation]: 'why' } }))).toBe(false);
    expect(reaches(old, { ...old, status: { storedVersions: ['v1', 'v2'] } })).toBe(false);
    const other = (crd: KubeObject) => ({ ...crd, metadata: { ...crd.metadata, name: 'gadgets.gate.example.com' } });
    expect(reaches(other(old), other(pipeCrd({ fields: {} })))).toBe(false);
  });
});

describe('manifests with --crd-gate', () => {
  const files = renderManifestFiles([geoDatabaseContract()], { ...manifestDefaults, crdGate: named });
  const manifests = files.flatMap((file) => file.manifests);

  it("put the gate's webhook in the install's validating configuration, failing closed, within its own timeout", () => {
    const validating = manifests.find((manifest) => manifest.kind === 'ValidatingWebhookConfiguration')!;
    const gate = (validating.webhooks as Array<Record<string, unknown>>).find(
      (webhook) => webhook.name === crdGateWebhookName,
    );
    expect(gate).toMatchObject({
      clientConfig: { service: { path: '/crd-gate' } },
      rules: [
        {
          apiGroups: ['apiextensions.k8s.io'],
          apiVersions: ['v1'],
          operations: ['UPDATE'],
          resources: ['customresourcedefinitions'],
          scope: 'Cluster',
        },
      ],
      failurePolicy: 'Fail',
      timeoutSeconds: 15,
    });
  });

  it('run the server with --crd-gate and its token, and let it list the gated objects and nothing more', () => {
    const deployment = manifests.find((manifest) => manifest.kind === 'Deployment') as any;
    expect(deployment.spec.template.spec.containers[0].args).toContain('--crd-gate');
    expect(deployment.spec.template.spec.automountServiceAccountToken).toBe(true);
    const role = manifests.find(
      (manifest) =>
        manifest.kind === 'ClusterRole' && (manifest.metadata as { name: string }).name === 'crdgate-crd-gate',
    );
    expect(role?.rules).toEqual([{ apiGroups: ['gate.example.com'], resources: ['pipes', 'valves'], verbs: ['list'] }]);
  });

  it('render nothing of the gate without names', () => {
    const plain = renderManifestFiles([geoDatabaseContract()], manifestDefaults).flatMap((file) => file.manifests);
    expect(JSON.stringify(plain)).not.toContain('crd-gate');
  });
});
