import { describe, expect, it } from 'vitest';
import { derivedDefault, staticDefault } from '../contract/defaults/library-defaults.ts';
import type { ContractDefinition, Defaulter } from '../contract/contract-definition.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { celString, type Cel } from './cel.ts';
import { compileContractDefaults, compileDefaultForm, jsonPatchAdd } from './compile-defaults.ts';

const spec: JSONSchemaProps = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    tier: { type: 'string' },
    release: { type: 'string', maxLength: 16 },
    note: { type: 'string' },
    limits: { type: 'object', properties: { cpu: { type: 'string' } } },
    caches: { type: 'array', maxItems: 8, items: { type: 'object', properties: { version: { type: 'string' } } } },
    shards: { type: 'array', items: { type: 'object', properties: { size: { type: 'integer' } } } },
  },
};
const thing = (
  defaults: ContractDefinition['defaults'],
): Pick<ContractDefinition, 'defaults' | 'versions' | 'hub'> => ({
  hub: 'v1',
  versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec } } }],
  ...(defaults === undefined ? {} : { defaults }),
});

describe('compileContractDefaults', () => {
  it('compiles each library default into a JSONPatch mutation, in order, and leaves functions of their own to the webhook', () => {
    const own: Defaulter = function defaultTier(object) {
      return object;
    };
    const compiled = compileContractDefaults(
      thing([staticDefault('spec.replicas', 1), own, staticDefault('spec.tier', 'standard')]),
    );
    expect(compiled.coverage).toEqual([
      { default: 'spec.replicas: 1', enforcedBy: 'policy' },
      {
        default: 'defaultTier (defaults[1])',
        enforcedBy: 'webhook',
        reason: 'a function of its own: the policy has nothing to compile',
      },
      {
        default: 'spec.tier: "standard"',
        enforcedBy: 'webhook',
        reason:
          'it comes after defaultTier (defaults[1]), a function of its own, which may read what it sets: the policy runs before the webhook and would set it before that function sees the object',
      },
    ]);
    expect(compiled.mutations).toEqual([
      {
        patchType: 'JSONPatch',
        jsonPatch: {
          expression:
            'has(object.spec) && type(object.spec) == map && !has(object.spec.replicas) ? [JSONPatch{op: "add", path: "/spec/replicas", value: 1}] : []',
        },
      },
    ]);
    expect(compileContractDefaults(thing(own)).mutations).toEqual([]);
    expect(compileContractDefaults(thing(undefined)).coverage).toEqual([]);
  });

  it('leaves to the webhook a default whose cost the schema does not bound: a list without maxItems, a string read or compared without maxLength', () => {
    const compiled = compileContractDefaults(
      thing([
        staticDefault('spec.caches[*].version', '7.2'),
        staticDefault('spec.shards[*].size', 1),
        derivedDefault('metadata.labels[example.com/major]', {
          from: 'spec.release',
          compute: 'release-major',
          keepInStep: true,
        }),
        derivedDefault('metadata.labels[example.com/tier]', { from: 'spec.tier', compute: 'release-major' }),
        derivedDefault('spec.note', { from: 'spec.tier', compute: 'copy' }),
        derivedDefault('spec.limits.cpu', { from: 'spec.tier', compute: 'copy', keepInStep: true }),
        derivedDefault('spec.tier', { from: 'spec.replicas', compute: 'copy', keepInStep: true }),
      ]),
    );
    const cost = "in the hub schema, so the API server can bound the policy's cost";
    expect(compiled.coverage.map((entry) => (entry.enforcedBy === 'policy' ? 'policy' : entry.reason))).toEqual([
      'policy',
      `spec.shards needs a maxItems ${cost}`,
      'policy',
      `spec.tier needs a maxLength (or an enum) ${cost}`,
      'policy',
      `spec.tier needs to be a number, a boolean or a string with a maxLength (or an enum) ${cost}, as it is compared when kept in step`,
      'policy',
    ]);
  });

  it('writes the JSONPatch of kube-apiserver, with the pointer escaped and each item by its index', () => {
    const label = compileDefaultForm(
      staticDefault('metadata.labels[example.com/team]', 'maps').form,
      jsonPatchAdd,
    ) as Cel;
    expect(label.text).toContain(`JSONPatch{op: "add", path: "/metadata/labels/example.com~1team", value: "maps"}`);
    expect(label.text).toContain(
      `JSONPatch{op: "add", path: "/metadata/labels", value: {${celString('example.com/team')}: "maps"}}`,
    );
    const item = compileDefaultForm(staticDefault('spec.caches[*].version', '7.2').form, jsonPatchAdd) as Cel;
    expect(item.text).toBe(
      'has(object.spec) && type(object.spec) == map && has(object.spec.caches) && type(object.spec.caches) == list ? ' +
        'object.spec.caches.transformList(i, item, type(item) == map && !has(item.version), ' +
        'JSONPatch{op: "add", path: "/spec/caches/" + string(i) + "/version", value: "7.2"}) : []',
    );
  });
});
