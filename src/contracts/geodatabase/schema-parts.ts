import type { JSONSchemaProps } from '../../index.ts';

// Pieces shared by the three versions' schemas. Each version's schema is still written out in its own file,
// because a version is a published API: sharing a piece means promising it never differs between versions.

export const quantity = (description: string): JSONSchemaProps => ({
  type: 'string',
  format: 'quantity',
  // Bounded so the API server can bound the cost of the policy's CEL; no real quantity comes close.
  maxLength: 64,
  description,
});

export const dnsLabel = (description: string): JSONSchemaProps => ({
  type: 'string',
  format: 'dns1123-label',
  maxLength: 63,
  description,
});

/**
 * A StorageClass's name, which Kubernetes requires to be a DNS subdomain. Said in CEL rather than as an invariant:
 * the rule is rendered into the CRD, so kube-apiserver enforces it even while crdgate is down, and `crdgate check`
 * evaluates it offline as the API server does. messageExpression says which part of the name is wrong.
 */
export const storageClassName = (description?: string): JSONSchemaProps => ({
  type: 'string',
  minLength: 1,
  maxLength: 253,
  'x-kubernetes-validations': [
    {
      rule: '!format.dns1123Subdomain().validate(self).hasValue()',
      message: 'must be the name of a StorageClass (a DNS subdomain)',
      messageExpression: "'must be the name of a StorageClass: ' + format.dns1123Subdomain().validate(self).value()[0]",
    },
  ],
  ...(description ? { description } : {}),
});

export const postgresVersion: JSONSchemaProps = {
  type: 'string',
  pattern: '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$',
  maxLength: 16,
  description: 'PostgreSQL MAJOR.MINOR; majors 13 to 17 are supported.',
};

export const postgisVersion: JSONSchemaProps = {
  type: 'string',
  pattern: '^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)$',
  maxLength: 16,
  description: 'PostGIS MAJOR.MINOR.PATCH; it must support the PostgreSQL major.',
};

export const status: JSONSchemaProps = {
  type: 'object',
  description: 'Observed state, written by the operator through the status subresource.',
  properties: {
    phase: {
      type: 'string',
      enum: ['Pending', 'Provisioning', 'Ready', 'Scaling', 'Resizing', 'Upgrading', 'Degraded', 'Failed'],
    },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    readyReplicas: { type: 'integer', format: 'int32', minimum: 0 },
    conditions: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: {
        type: 'object',
        required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
        properties: {
          type: { type: 'string', maxLength: 316 },
          status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
          observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
          lastTransitionTime: { type: 'string', format: 'date-time' },
          reason: { type: 'string', maxLength: 1024, minLength: 1 },
          message: { type: 'string', maxLength: 32768 },
        },
      },
    },
  },
};
