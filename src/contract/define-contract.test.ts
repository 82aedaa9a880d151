import { describe, expect, it } from 'vitest';
import { ContractDefinitionError, defineContract, type ContractDefinition } from './define-contract.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';

const schema = { type: 'object' } as const;
const bucket: ContractDefinition = {
  identity: { group: 'storage.example.com', kind: 'Bucket', plural: 'buckets', singular: 'bucket', scope: 'Namespaced' },
  versions: [{ name: 'v1', served: true, storage: true, schema }],
  hub: 'v1',
  conversions: {},
};

function problemOf(definition: ContractDefinition): string {
  try {
    defineContract(definition);
  } catch (error) {
    expect(error).toBeInstanceOf(ContractDefinitionError);
    return (error as Error).message;
  }
  throw new Error('defineContract accepted it');
}

describe('defineContract', () => {
  it('accepts a contract whose names kube-apiserver accepts', () => {
    expect(defineContract(bucket).storageVersion).toBe('v1');
  });

  // Issue 23, defect 3: each of these loaded, and rendered a CRD kube-apiserver refuses.
  it.each([
    ['a plural ending in -', { identity: { ...bucket.identity, plural: 'buckets-' } }, 'plural "buckets-"'],
    ['a singular of 64 characters', { identity: { ...bucket.identity, singular: 'b'.repeat(64) } }, 'singular "'],
    ['a group of 254 characters', { identity: { ...bucket.identity, group: `${'g'.repeat(250)}.com` } }, 'group "'],
    ['a version name that is no DNS-1035 label', { versions: [{ ...bucket.versions[0]!, name: 'V1' }], hub: 'V1' }, 'version name "V1"'],
    ['a short name with a dot', { identity: { ...bucket.identity, shortNames: ['b.k'] } }, 'shortNames entry "b.k"'],
  ])('refuses %s, naming it', (_label, change, named) => {
    expect(problemOf({ ...bucket, ...change })).toContain(named);
  });

  // Issue 33: controller-gen's output for every IntOrString and Quantity field, which kube-apiserver accepts.
  it('accepts the int-or-string forms the API server accepts', () => {
    const spec: JSONSchemaProps = {
      type: 'object',
      properties: {
        port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        memory: {
          'x-kubernetes-int-or-string': true,
          anyOf: [{ type: 'integer' }, { type: 'string' }],
          pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
        },
        share: { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '%$' }] },
      },
    };
    const schema: JSONSchemaProps = { type: 'object', properties: { spec } };
    expect(defineContract({ ...bucket, versions: [{ ...bucket.versions[0]!, schema, subresources: { status: {} } }] }).storageVersion).toBe('v1');
  });

  it('refuses a schema the API server refuses, in its words, naming the version', () => {
    const schema: JSONSchemaProps = { type: 'object', properties: { spec: { type: 'object', properties: { size: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } } } };
    expect(problemOf({ ...bucket, versions: [{ ...bucket.versions[0]!, schema }] })).toBe(
      'contract buckets.storage.example.com is invalid: ' +
        'version v1: openAPIV3Schema.properties[spec].properties[size].anyOf[0].type: Forbidden: must be empty to be structural; ' +
        'version v1: openAPIV3Schema.properties[spec].properties[size].anyOf[1].type: Forbidden: must be empty to be structural; ' +
        'version v1: openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields',
    );
  });

  it('holds the root to the status subresource\'s rule only for a version that has it', () => {
    const schema: JSONSchemaProps = { type: 'object', anyOf: [{ required: ['spec'] }], properties: { spec: { type: 'object' } } };
    expect(defineContract({ ...bucket, versions: [{ ...bucket.versions[0]!, schema }] }).storageVersion).toBe('v1');
    expect(problemOf({ ...bucket, versions: [{ ...bucket.versions[0]!, schema, subresources: { status: {} } }] })).toMatch(
      /version v1: openAPIV3Schema: Invalid value: "anyOf": only \[.*\] fields are allowed at the root of the schema if the status subresource is enabled$/,
    );
  });

  describe("Kubernetes' own groups", () => {
    const gateway = { ...bucket, identity: { ...bucket.identity, group: 'gateway.networking.k8s.io' } };

    it.each([
      ['the URL of the approval', 'https://github.com/kubernetes-sigs/gateway-api/pull/2466'],
      ['a reason starting with "unapproved"', 'unapproved, experimental-only'],
    ])('accepts one when the CRD carries the api-approved.kubernetes.io annotation with %s', (_label, value) => {
      const contract = defineContract({ ...gateway, crdAnnotations: { 'api-approved.kubernetes.io': value } });
      expect(contract.crdAnnotations).toEqual({ 'api-approved.kubernetes.io': value });
    });

    it('refuses one without the annotation, saying where it goes', () => {
      expect(problemOf(gateway)).toBe(
        'contract buckets.gateway.networking.k8s.io is invalid: group "gateway.networking.k8s.io" is Kubernetes\' own (k8s.io, kubernetes.io): ' +
          'the API server wants an API review\'s approval for it, in the CRD annotation api-approved.kubernetes.io (crdAnnotations): ' +
          'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", ' +
          'see https://github.com/kubernetes/enhancements/pull/1111',
      );
    });

    it('refuses an annotation that is neither a URL nor "unapproved...", in the API server\'s words', () => {
      expect(problemOf({ ...gateway, crdAnnotations: { 'api-approved.kubernetes.io': 'yes please' } })).toContain(
        'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "yes please": protected groups must have approval annotation ' +
          '"api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved"',
      );
    });
  });

  it('refuses CRD annotations the API server would refuse', () => {
    const problem = problemOf({ ...bucket, crdAnnotations: { 'not a key': 'x', 'example.com/ok': 'y', 'big/': 'z' } });
    expect(problem).toContain('crdAnnotations key "not a key" must be a qualified name');
    expect(problem).toContain('crdAnnotations key "big/" must be a qualified name');
    expect(problem).not.toContain('example.com/ok');
  });
});
