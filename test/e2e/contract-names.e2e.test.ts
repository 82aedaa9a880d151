import {
  ApiException,
  KubeConfig,
  KubernetesObjectApi,
  loadAllYaml,
  type KubernetesObject,
} from '@kubernetes/client-node';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Contract, type ContractDefinition } from '../../src/contract/contract-definition.ts';
import { ContractDefinitionError, defineContract } from '../../src/contract/define-contract.ts';
import { renderCustomResourceDefinition } from '../../src/render/custom-resource-definition.ts';
import { manifestsToYaml } from '../../src/render/manifest-yaml.ts';
import type { KubeObject } from '../../src/contract/values/kube-object.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

/** A name and whether the API server's rules (crdgate's) hold for it on its own. */
interface Drawn {
  value: string;
  valid: boolean;
}

const valid = (arbitrary: fc.Arbitrary<string>): fc.Arbitrary<Drawn> =>
  arbitrary.map((value) => ({ value, valid: true }));
const invalid = (arbitrary: fc.Arbitrary<string>): fc.Arbitrary<Drawn> =>
  arbitrary.map((value) => ({ value, valid: false }));

// DNS-1035 labels: plural, singular, short names, categories and versions.
const label1035 = fc.stringMatching(/^[a-z][a-z0-9]{0,8}(-[a-z0-9]{1,4})?$/);
const brokenLabel = fc.oneof(
  label1035.map((name) => `${name}-`),
  label1035.map((name) => name.toUpperCase()),
  label1035.map((name) => `${name}.x`),
  label1035.map((name) => `${name}_x`),
  label1035.map((name) => `1${name}`),
  label1035.map((name) => name.padEnd(64, 'x')),
);
// Mostly valid, so that about half the contracts have every name right and reach the API server's acceptance.
const resourceName = fc.oneof(
  { weight: 8, arbitrary: valid(label1035) },
  { weight: 2, arbitrary: valid(label1035.map((n) => n.padEnd(63, 'y'))) },
  { weight: 1, arbitrary: invalid(fc.oneof(brokenLabel, fc.constant(''))) },
);

const upperCamel = fc.stringMatching(/^[A-Z][a-zA-Z0-9]{0,10}$/);
// The API server checks a kind lowercased: an operator's lowercase `postgresql`, digits and dashes are kinds too.
const kind = fc.oneof(
  { weight: 6, arbitrary: valid(upperCamel) },
  { weight: 2, arbitrary: valid(upperCamel.map((k) => k.toLowerCase())) },
  { weight: 1, arbitrary: valid(fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9]{0,4}-[a-zA-Z0-9]{1,4}$/)) },
  { weight: 2, arbitrary: valid(upperCamel.map((k) => k.padEnd(59, 'k'))) },
  {
    weight: 1,
    arbitrary: invalid(
      fc.oneof(
        upperCamel.map((k) => k.padEnd(64, 'k')),
        upperCamel.map((k) => `${k}.X`),
        upperCamel.map((k) => `${k}_X`),
        upperCamel.map((k) => `${k}-`),
        upperCamel.map((k) => `9${k}`),
        fc.constant(''),
      ),
    ),
  },
);

const domainPart = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,6}[a-z0-9])?$/);
const domain = fc.array(domainPart, { minLength: 2, maxLength: 4 }).map((parts) => parts.join('.'));
const group = fc.oneof(
  { weight: 8, arbitrary: valid(domain) },
  { weight: 2, arbitrary: valid(domain.map((d) => `${'g'.repeat(240 - d.length)}.${d}`)) },
  {
    weight: 2,
    arbitrary: invalid(
      fc.oneof(
        domainPart,
        domain.map((d) => `${d}-`),
        // A domain of digits alone ("0.0") has no letter to upper-case, and stays valid.
        domain.filter((d) => /[a-z]/.test(d)).map((d) => d.toUpperCase()),
        domain.map((d) => `${d}..com`),
        domain.map((d) => `${'g'.repeat(254 - d.length)}.${d}`.slice(0, 254)),
        domain.map((d) => `${d}.k8s.io`),
        fc.constant('kubernetes.io'),
        fc.constant(''),
      ),
    ),
  },
);

const names = fc.record({
  group,
  kind,
  plural: resourceName,
  // An empty singular is the kind lowercased, as the API server defaults it.
  singular: fc.oneof(
    { weight: 8, arbitrary: valid(label1035) },
    { weight: 1, arbitrary: invalid(brokenLabel) },
    { weight: 1, arbitrary: valid(fc.constant('')) },
  ),
  listKind: fc.option(
    fc.oneof(
      { weight: 2, arbitrary: valid(upperCamel.map((k) => `${k}-List`)) },
      {
        weight: 1,
        arbitrary: invalid(
          fc.oneof(
            upperCamel.map((k) => `${k}.List`),
            upperCamel.map((k) => `${k}_List`),
            upperCamel.map((k) => k.padEnd(64, 'l')),
            fc.constant('1List'),
          ),
        ),
      },
      // An empty list kind is the kind + List, as the API server defaults it.
      { weight: 1, arbitrary: valid(fc.constant('')) },
    ),
    { nil: undefined, freq: 3 },
  ),
  shortNames: fc.array(resourceName, { maxLength: 2 }),
  categories: fc.array(resourceName, { maxLength: 2 }),
  versions: fc.uniqueArray(
    fc.oneof({ weight: 8, arbitrary: valid(label1035) }, { weight: 1, arbitrary: invalid(brokenLabel) }),
    { minLength: 1, maxLength: 2, selector: (v) => v.value },
  ),
});

type Names = typeof names extends fc.Arbitrary<infer T> ? T : never;

const schema = {
  type: 'object',
  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
} as const;

function definition(drawn: Names): ContractDefinition {
  const versions = drawn.versions.map(({ value }, index) => ({
    name: value,
    served: true,
    storage: index === 0,
    schema,
  }));
  const hub = versions[0]!.name;
  return {
    identity: {
      group: drawn.group.value,
      kind: drawn.kind.value,
      plural: drawn.plural.value,
      singular: drawn.singular.value,
      ...(drawn.listKind ? { listKind: drawn.listKind.value } : {}),
      shortNames: drawn.shortNames.map((name) => name.value),
      categories: drawn.categories.map((name) => name.value),
      scope: 'Namespaced',
    },
    versions,
    hub,
    conversions: Object.fromEntries(
      versions
        .slice(1)
        .map((version) => [version.name, { toHub: (o: KubeObject) => o, fromHub: (o: KubeObject) => o }]),
    ),
  };
}

/** The fields crdgate's error must name, as the API server names them: each drawn broken on its own. */
function brokenFields(drawn: Names): RegExp[] {
  const at = (field: string) => new RegExp(`${field.replace(/[.[\]]/g, '\\$&')}: `);
  const fields: RegExp[] = [];
  // Kubernetes' own groups are valid names that want an approval annotation, which crdgate's sentence names.
  if (!drawn.group.valid) fields.push(new RegExp(`spec\\.group: |group "${drawn.group.value}" is Kubernetes' own`));
  for (const field of ['kind', 'plural', 'singular', 'listKind'] as const) {
    if (drawn[field] && !drawn[field].valid) fields.push(at(`spec.names.${field}`));
  }
  for (const field of ['shortNames', 'categories'] as const) {
    drawn[field].forEach((name, index) => {
      if (!name.valid) fields.push(at(`spec.names.${field}[${index}]`));
    });
  }
  drawn.versions.forEach((version, index) => {
    if (!version.valid) fields.push(at(`spec.versions[${index}].name`));
  });
  return fields;
}

const endpoint = { target: { service: { namespace: 'crdgate', name: 'crdgate', port: 443 } } };

describe.skipIf(!controlPlane)(
  'every contract defineContract accepts renders a CRD the real API server accepts',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    let client: KubernetesObjectApi;

    beforeAll(() => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cp.kubeconfigPath);
      client = KubernetesObjectApi.makeApiClient(kubeConfig);
    });

    /** Creates the CRD with a server-side dry run: undefined when accepted, else the API server's message. */
    async function apiServerRefusal(contract: Contract): Promise<string | undefined> {
      // Through crdgate's YAML, as serverSideApply sends it: client-node's models would drop unknown wire names.
      const [crd] = loadAllYaml(
        manifestsToYaml([renderCustomResourceDefinition(contract, endpoint)]),
      ) as KubernetesObject[];
      try {
        await client.create(crd!, undefined, 'All');
        return undefined;
      } catch (error) {
        if (!(error instanceof ApiException)) throw error;
        const body: unknown = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
        return `${error.code} ${String((body as { message?: unknown } | undefined)?.message ?? '')}`;
      }
    }

    it('names every broken name in its error, and never accepts what kube-apiserver refuses', async () => {
      let accepted = 0;
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(names, async (drawn) => {
          const definitionOf = definition(drawn);
          let contract: Contract | undefined;
          let problem: ContractDefinitionError | undefined;
          try {
            contract = defineContract(definitionOf);
          } catch (error) {
            if (!(error instanceof ContractDefinitionError)) throw error;
            problem = error;
          }
          const refusal = await apiServerRefusal(
            contract ?? { ...definitionOf, storageVersion: definitionOf.versions[0]!.name },
          );
          if (contract) {
            accepted++;
            expect(brokenFields(drawn)).toEqual([]);
            expect(refusal, JSON.stringify(definitionOf.identity)).toBeUndefined();
          } else {
            refused++;
            for (const field of brokenFields(drawn)) expect(problem!.message).toMatch(field);
            // What crdgate refuses, the API server refuses too: its rules are the API server's, no stricter.
            expect(refusal, problem!.message).toBeDefined();
          }
          // What the API server refuses, crdgate refused too.
          if (refusal !== undefined) expect(contract, refusal).toBeUndefined();
        }),
        { numRuns: 150 },
      );
      // Both sides of the property were exercised.
      expect(accepted).toBeGreaterThan(10);
      expect(refused).toBeGreaterThan(10);
    }, 120_000);
  },
);
