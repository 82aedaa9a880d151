/**
 * A small CRD of two versions for the comparison's tests: every part a rule looks at is there once, so that a
 * test changes one thing and expects the one finding it makes. Each call returns a fresh copy to change.
 */
export function widgetCrd() {
  const schema = (description: string) => ({
    type: 'object',
    description,
    properties: {
      spec: {
        type: 'object',
        required: ['size'],
        properties: {
          size: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
          name: { type: 'string', minLength: 1, maxLength: 63, pattern: '^[a-z]+$' },
          mode: { type: 'string', enum: ['fast', 'safe'] },
          endpoint: { type: 'string', format: 'hostname', nullable: true },
          ports: {
            type: 'array',
            minItems: 1,
            maxItems: 4,
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string' }, port: { type: 'integer' } },
            },
          },
          labels: { type: 'object', maxProperties: 8, minProperties: 0, additionalProperties: { type: 'string' } },
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
          replicas: { 'x-kubernetes-int-or-string': true },
        },
        'x-kubernetes-validations': [
          { rule: 'self.size <= 5 || self.mode == "safe"', message: 'large widgets must be safe' },
          { rule: 'self.mode == oldSelf.mode', message: 'mode is immutable' },
        ],
      },
    },
  });
  const version = (name: string, served: boolean, storage: boolean) => ({
    name,
    served,
    storage,
    schema: { openAPIV3Schema: schema(`A widget (${name}).`) },
    additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
    // In v1 only: kube-apiserver v1.36 refuses the same selectableFields in every version of a CRD whose versions'
    // schemas differ ("spec.selectableFields: may only be set when validations.schema is included"), and the engine
    // with it (test/e2e/crd-selectable-fields.e2e.test.ts puts both to the test).
    ...(storage ? { selectableFields: [{ jsonPath: '.spec.mode' }] } : {}),
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.toys.example.com' },
    spec: {
      group: 'toys.example.com',
      scope: 'Namespaced',
      names: {
        kind: 'Widget',
        plural: 'widgets',
        singular: 'widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
        categories: ['toys'],
      },
      versions: [version('v1beta1', true, false), version('v1', true, true)],
      conversion: {
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://convert.example.com/convert' } },
      },
    },
  };
}
