import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContractDefinition, type Subresources } from '../../src/contract/contract-definition.ts';
import { ContractDefinitionError, defineContract } from '../../src/contract/define-contract.ts';
import { createContractRegistry } from '../../src/contract/registry.ts';
import type { JSONSchemaProps } from '../../src/contract/schema/json-schema-props.ts';
import { checkStructural } from '../../src/contract/schema/structural-check.ts';
import { renderCustomResourceDefinition } from '../../src/render/custom-resource-definition.ts';
import type { Manifest } from '../../src/render/manifest.ts';
import { contractTester } from '../../src/testing.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { expectFloors } from './support/case-floors.ts';
import { storedDifferences } from './support/differential/compare.ts';
import { expectStatus, installCrd, removeCrd, restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

// The schemas real CRDs ship (controller-gen's IntOrString and Quantity fields above all), sent as CRDs to a real
// kube-apiserver and loaded with defineContract: crdgate accepts exactly what the API server accepts, refuses the
// rest in its words, and its validators then judge the objects as the API server does.

const intOrString: JSONSchemaProps = {
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
};
// controller-gen's resource.Quantity.
const quantity: JSONSchemaProps = {
  ...intOrString,
  pattern:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
};
const spec = (properties: Record<string, JSONSchemaProps>, more: Partial<JSONSchemaProps> = {}): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: { type: 'object', properties, ...more },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
});

interface SchemaCase {
  name: string;
  schema: JSONSchemaProps;
  subresources?: Subresources;
  /** The API server's message shows a value crdgate words otherwise (its Go struct): compare the paths alone. */
  pathsOnly?: boolean;
}

const acceptedSchemas: SchemaCase[] = [
  {
    name: "controller-gen's IntOrString",
    schema: spec({ port: intOrString, maxUnavailable: { ...intOrString, nullable: true } }),
  },
  {
    name: "controller-gen's Quantity, in a map of resources",
    schema: spec({
      resources: { type: 'object', properties: { limits: { type: 'object', additionalProperties: quantity } } },
      storage: quantity,
    }),
  },
  {
    name: 'the allOf form of int-or-string',
    schema: spec({
      share: {
        'x-kubernetes-int-or-string': true,
        allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '%$' }],
      },
    }),
  },
  { name: 'a type beside x-kubernetes-int-or-string', schema: spec({ port: { type: 'string', ...intOrString } }) },
  {
    name: 'a list map keyed by an int-or-string, with a scale and a status subresource',
    schema: spec(
      {
        replicas: { type: 'integer' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port'],
          items: { type: 'object', required: ['port'], properties: { port: intOrString, name: { type: 'string' } } },
        },
      },
      {
        'x-kubernetes-validations': [
          { rule: 'self.replicas >= 0', fieldPath: '.replicas', reason: 'FieldValueInvalid' },
        ],
      },
    ),
    subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
  },
  {
    name: 'metadata restricted to its name, an embedded resource, additionalProperties: true beside properties',
    schema: {
      type: 'object',
      description: 'A thing.',
      required: ['spec'],
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 30 } } },
        spec: {
          type: 'object',
          properties: {
            template: {
              type: 'object',
              'x-kubernetes-embedded-resource': true,
              'x-kubernetes-preserve-unknown-fields': true,
            },
            extra: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true },
          },
        },
      },
    },
    subresources: { status: {} },
  },
];

const refusedSchemas: SchemaCase[] = [
  {
    name: 'the int-or-string anyOf in the other order',
    schema: spec({ port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'string' }, { type: 'integer' }] } }),
  },
  {
    name: 'the int-or-string anyOf with a bound in a branch',
    schema: spec({
      port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer', minimum: 1 }, { type: 'string' }] },
    }),
  },
  {
    name: 'a field without a type',
    schema: spec({
      size: { anyOf: [{ type: 'integer' }, { type: 'string' }] },
      list: { type: 'array', items: { description: 'x' } },
    }),
  },
  {
    name: 'metadata restricted beyond its names',
    schema: {
      type: 'object',
      properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } },
    },
  },
  {
    name: 'additionalProperties: false beside properties, and uniqueItems',
    schema: spec({
      a: { type: 'object', properties: { b: { type: 'string' } }, additionalProperties: false },
      tags: { type: 'array', uniqueItems: true, items: { type: 'string' } },
    }),
  },
  {
    name: 'a list map whose key is neither required nor defaulted, and a set of objects that are not atomic',
    schema: spec({
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['port'],
        items: { type: 'object', properties: { port: { type: 'integer' } } },
      },
      hosts: {
        type: 'array',
        'x-kubernetes-list-type': 'set',
        items: { type: 'object', properties: { name: { type: 'string' } } },
      },
    }),
  },
  {
    name: 'a root junctor naming an undeclared field',
    schema: { ...spec({}), anyOf: [{ properties: { other: { minLength: 1 } } }] },
  },
  {
    name: 'a CEL rule with an empty rule and a field path that leads nowhere',
    schema: spec(
      { a: { type: 'string' } },
      { 'x-kubernetes-validations': [{ rule: ' ' }, { rule: 'true', fieldPath: '.b' }] },
    ),
  },
  {
    name: 'a junctor at the root while the status subresource is on',
    schema: { ...spec({}), anyOf: [{ required: ['spec'] }] },
    subresources: { status: {} },
    pathsOnly: true,
  },
];

describe.skipIf(!controlPlane)('CRD schemas as they ship: crdgate and kube-apiserver agree', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const group = `crd-schemas-${randomUUID().slice(0, 8)}.example.com`;
  let api: Rest;

  beforeAll(() => {
    api = restClient(cp.kubeconfigPath);
  });
  afterAll(() => api?.close());

  function definitionFor(
    schema: JSONSchemaProps,
    subresources?: Subresources,
    identity: Partial<ContractDefinition['identity']> = {},
  ): ContractDefinition {
    return {
      identity: { group, kind: 'Thing', plural: 'things', singular: 'thing', scope: 'Namespaced', ...identity },
      versions: [{ name: 'v1', served: true, storage: true, schema, ...(subresources ? { subresources } : {}) }],
      hub: 'v1',
      conversions: {},
    };
  }

  /** The CRD the contract renders (built by hand when defineContract refuses it), created with a dry run. */
  async function apiServerProblems(
    definition: ContractDefinition,
    crdAnnotations?: Record<string, string>,
  ): Promise<string[]> {
    const crd: Manifest = renderCustomResourceDefinition(
      { ...definition, ...(crdAnnotations ? { crdAnnotations } : {}), storageVersion: 'v1' },
      { target: { url: 'https://127.0.0.1:1' } },
    );
    const response = await api.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All', crd);
    if (response.status === 201) return [];
    expect(response.status, response.text).toBe(422);
    const causes =
      (response.body as { details?: { causes?: { field?: string; message?: string }[] } }).details?.causes ?? [];
    // The API server names the schema spec.validation.openAPIV3Schema (or spec.versions[0].schema...), crdgate
    // openAPIV3Schema, the root of what a contract writes.
    const local = (text: string) =>
      text.replaceAll(/spec\.(validation|versions\[0\]\.schema)\.openAPIV3Schema/g, 'openAPIV3Schema');
    return causes.map((cause) => local(`${cause.field ?? ''}: ${cause.message ?? ''}`));
  }

  function crdgateProblems(definition: ContractDefinition): string[] {
    try {
      defineContract(definition);
      return [];
    } catch (error) {
      if (!(error instanceof ContractDefinitionError)) throw error;
      const version = definition.versions[0]!;
      // The same problems, one by one, as defineContract found them.
      const problems = checkStructural(version.schema, {
        statusSubresource: version.subresources?.status !== undefined,
      });
      for (const problem of problems) expect(error.message).toContain(`version v1: ${problem}`);
      return problems;
    }
  }

  it.each(acceptedSchemas)('accepts $name as written, as the API server does', async ({ schema, subresources }) => {
    const definition = definitionFor(schema, subresources);
    expect(await apiServerProblems(definition)).toEqual([]);
    expect(crdgateProblems(definition)).toEqual([]);
  });

  it.each(refusedSchemas)("refuses $name in the API server's words", async ({ schema, subresources, pathsOnly }) => {
    const definition = definitionFor(schema, subresources);
    const fromApiServer = await apiServerProblems(definition);
    const fromCrdgate = crdgateProblems(definition);
    expect(fromApiServer.length).toBeGreaterThan(0);
    const shown = (problems: string[]) =>
      [...problems].map((problem) => (pathsOnly ? problem.slice(0, problem.indexOf(': ')) : problem)).sort();
    expect(shown(fromCrdgate)).toEqual(shown(fromApiServer));
  });

  describe("Kubernetes' own groups", () => {
    const identity = { group: `gateway-${randomUUID().slice(0, 8)}.networking.k8s.io` };
    const definition = definitionFor(spec({ port: intOrString }), { status: {} }, identity);

    it('loads and is accepted with the api-approved.kubernetes.io annotation', async () => {
      const crdAnnotations = {
        'api-approved.kubernetes.io': 'https://github.com/kubernetes-sigs/gateway-api/pull/2466',
      };
      const contract = defineContract({ ...definition, crdAnnotations });
      expect(await apiServerProblems(contract)).toEqual([]);
      expect(await apiServerProblems(definition, { 'api-approved.kubernetes.io': 'unapproved, testing only' })).toEqual(
        [],
      );
    });

    it('is refused by both without it, crdgate quoting the API server', async () => {
      const [fromApiServer, ...others] = await apiServerProblems(definition);
      expect(others).toEqual([]);
      expect(() => defineContract(definition)).toThrow(fromApiServer!);
      const invalid = { 'api-approved.kubernetes.io': 'approved, trust me' };
      const [invalidFromApiServer] = await apiServerProblems(definition, invalid);
      expect(() => defineContract({ ...definition, crdAnnotations: invalid })).toThrow(invalidFromApiServer!);
    });
  });

  describe('objects of such a CRD', () => {
    const definition = definitionFor(
      spec({
        port: intOrString,
        maxSurge: { ...intOrString, nullable: true },
        storage: quantity,
        optionalStorage: { ...quantity, nullable: true },
        share: {
          'x-kubernetes-int-or-string': true,
          allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '%$' }],
        },
        limits: { type: 'object', additionalProperties: quantity },
        bounded: { ...intOrString, minimum: 1, maximum: 10, maxLength: 3 },
      }),
      { status: {} },
      { group: `values-${group}` },
    );
    const contract = defineContract(definition);
    const validate = createContractRegistry([contract]).contracts[0]!.validators.get('v1')!;
    const tester = contractTester(contract);
    const crd = renderCustomResourceDefinition(contract, { target: { url: 'https://127.0.0.1:1' } });

    beforeAll(() => installCrd(api, crd, 'crd-schemas-e2e').then(() => undefined), 60_000);
    afterAll(() => removeCrd(api, crd));

    const values: unknown[] = [
      0,
      1,
      80,
      -3,
      11,
      2.5,
      1e3,
      '80',
      '80%',
      '1Gi',
      '500m',
      '1.5',
      '1e3',
      '',
      'x',
      'abc%',
      '1 Gi',
      true,
      [],
      {},
    ];
    // A null in a field that is not nullable never reaches validation: the API server drops it when it decodes.
    const nullable = new Set(['maxSurge', 'optionalStorage']);
    const cases = Object.keys(definition.versions[0]!.schema.properties!['spec']!.properties!).flatMap((field) =>
      [...values, ...(nullable.has(field) ? [null] : [])].map((value) => ({ field, value })),
    );

    it(`judges ${cases.length} values as the API server does, and stores what it stores`, async () => {
      const disagreements: string[] = [];
      let accepted = 0;
      for (const { field, value } of cases) {
        const object = {
          apiVersion: `${contract.identity.group}/v1`,
          kind: 'Thing',
          metadata: { name: 'value', namespace: 'default' },
          spec: { [field]: field === 'limits' ? { cpu: value } : value },
        };
        const response = await api.send(
          'POST',
          `/apis/${object.apiVersion}/namespaces/default/things?dryRun=All&fieldValidation=Strict`,
          object,
        );
        if (response.status !== 201) expectStatus(422)(response);
        const errors = validate(object);
        if ((response.status === 201) !== (errors.length === 0)) {
          disagreements.push(
            `spec.${field} = ${JSON.stringify(value)}: API server ${response.status}, crdgate ${errors.map((e) => `${e.field}: ${e.message}`).join('; ') || 'valid'}`,
          );
        }
        if (response.status === 201) {
          accepted++;
          // What `crdgate check` says the API server stores, against what it answered it would store.
          const stored = storedDifferences(response.body, tester.check(object as never).object);
          if (stored.length > 0)
            disagreements.push(
              `spec.${field} = ${JSON.stringify(value)}: stored differently: ${JSON.stringify(stored)}`,
            );
        }
      }
      expect(disagreements).toEqual([]);
      // Both verdicts, in numbers a little under what a run gives today (142 values: 83 accepted, 59 refused).
      expectFloors(
        'values',
        { cases: cases.length, accepted, refused: cases.length - accepted },
        { cases: 127, accepted: 74, refused: 53 },
      );
    }, 120_000);
  });
});
