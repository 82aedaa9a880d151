import { describe, expect, it } from 'vitest';
import { EngineUnavailableError, engineMissingMessage } from '../api-server-engine/engine.ts';
import { engineStorageRules } from './migrate-storage-rules.ts';

/** A CRD as `crdgate migrate` reads it from the API server: metadata and status included. */
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com', generation: 2, resourceVersion: '812', uid: 'c0ffee' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                'x-kubernetes-validations': [{ rule: "self.colour != 'red'", message: 'red is retired' }],
                properties: { size: { type: 'integer', maximum: 10 }, colour: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
  status: { storedVersions: ['v1'], acceptedNames: { plural: 'widgets', kind: 'Widget' } },
};
const widget = (spec: object) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'shop', uid: 'u1', resourceVersion: '9', generation: 1 },
  spec,
});

describe('engineStorageRules: the storage version rules as kube-apiserver applies them', () => {
  it('refuses each field that breaks the schema or a CEL rule as it stands, in field order, as the API server words it', () => {
    const rules = engineStorageRules()(crd);
    if (!('judge' in rules)) throw new Error(`not checked: ${rules.notChecked}`);
    expect(rules.judge(widget({ size: 5, colour: 'blue' }))).toEqual([]);
    expect(rules.judge(widget({ size: 50, colour: 'red' }))).toEqual([
      { field: 'spec', message: 'Invalid value: red is retired' },
      { field: 'spec.size', message: 'Invalid value: 50: spec.size in body should be less than or equal to 10' },
    ]);
  });

  it('says the rules were not checked, and why, when the engine is not there', () => {
    const missing = engineMissingMessage('/opt/crdgate/dist/api-server-engine/engine.wasm');
    const rules = engineStorageRules(() => {
      throw new EngineUnavailableError(missing);
    })(crd);
    expect(rules).toEqual({ notChecked: missing });
  });
});
