import { describe, expect, it } from 'vitest';
import { type ContractDefinition, type Defaulter } from './contract-definition.ts';
import { ContractDefinitionError, defineContract } from './define-contract.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { derivedDefault, staticDefault } from './defaults/library-defaults.ts';

const spec: JSONSchemaProps = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    ratio: { type: 'number' },
    version: { type: 'string' },
    port: { 'x-kubernetes-int-or-string': true },
    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
    caches: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer', nullable: true } } },
    },
  },
};
const thing = (defaults: ContractDefinition['defaults']): ContractDefinition => ({
  identity: { group: 'example.com', kind: 'Thing', plural: 'things', singular: 'thing', scope: 'Namespaced' },
  versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec } } }],
  hub: 'v1',
  conversions: {},
  ...(defaults === undefined ? {} : { defaults }),
});

function problems(defaults: ContractDefinition['defaults']): string[] {
  try {
    defineContract(thing(defaults));
  } catch (error) {
    expect(error).toBeInstanceOf(ContractDefinitionError);
    return (error as Error).message.replace('contract things.example.com is invalid: ', '').split('; ');
  }
  return [];
}

describe("defineContract: the library's defaults", () => {
  it('accepts a field of each kind the schema declares, a label, and a function of its own beside them', () => {
    const own: Defaulter = (object) => object;
    expect(
      problems([
        staticDefault('spec.replicas', 2),
        staticDefault('spec.ratio', 1),
        staticDefault('spec.port', 'http'),
        staticDefault('spec.extra.anything.below', [1, 'x']),
        staticDefault('spec.tags[team]', 'maps'),
        staticDefault('spec.caches', []),
        staticDefault('spec.caches[*].size', null),
        staticDefault('metadata.labels[example.com/team]', 'maps'),
        staticDefault('metadata.annotations[example.com/note]', 'any text at all'),
        derivedDefault('metadata.labels[example.com/major]', {
          from: 'spec.version',
          compute: 'release-major',
          keepInStep: true,
        }),
        derivedDefault('spec.ratio', { from: 'spec.replicas', compute: 'copy' }),
        own,
      ]),
    ).toEqual([]);
    expect(problems(staticDefault('spec.replicas', 2))).toEqual([]);
  });

  it('refuses a path that names no field the schema declares, or a value of another type, naming the default', () => {
    expect(
      problems([
        staticDefault('spec.replicaz', 2),
        staticDefault('spec.caches[*].sise', 1),
        staticDefault('spec.replicas[*].x', 1),
        staticDefault('spec.replicas', '2'),
        staticDefault('spec.caches[*].name', null),
        staticDefault('spec.port', 1.5),
      ]),
    ).toEqual([
      'defaults[0] (spec.replicaz): spec declares no field replicaz in the hub schema (spec.replicaz)',
      'defaults[1] (spec.caches[*].sise): spec.caches[*] declares no field sise in the hub schema (spec.caches[*].sise)',
      'defaults[2] (spec.replicas[*].x): spec.replicas is not a list in the hub schema, so [*] has no items to go into',
      "defaults[3] (spec.replicas): the value must be of the field's type, integer",
      'defaults[4] (spec.caches[*].name): the value is null, and the field is not nullable',
      'defaults[5] (spec.port): the value must be an integer or a string',
    ]);
  });

  it('refuses paths a default cannot set', () => {
    expect(
      problems([
        staticDefault('status.phase', 'Pending'),
        staticDefault('spec.caches[0].name', 'a'),
        staticDefault('spec.caches[*]', {}),
        staticDefault('spec.a[*].b[*].c', 1),
        staticDefault('metadata.name', 'x'),
        staticDefault('spec..replicas', 1),
        staticDefault('', 1),
      ]),
    ).toEqual([
      'defaults[0] (status.phase): the path must not be under status, which no default sets',
      'defaults[1] (spec.caches[0].name): the path names list item 0: a default names a field of each item ([*]), not an item by position',
      'defaults[2] (spec.caches[*]): the path must name a field within each item after [*] (spec.caches[*].version), not the items themselves',
      'defaults[3] (spec.a[*].b[*].c): the path may go into one list only ([*] once)',
      'defaults[4] (metadata.name): the path may name under metadata only a label or an annotation: metadata.labels[KEY] or metadata.annotations[KEY]',
      'defaults[5] (spec..replicas): the path is not a field path such as spec.caches[*].version',
      'defaults[6] (): the path must name a field, such as spec.replicas',
    ]);
  });

  it("holds labels and annotations to the API server's rules for their keys and values", () => {
    expect(
      problems([
        staticDefault('metadata.labels[Not A Key]', 'x'),
        staticDefault('metadata.labels[example.com/team]', 'not a value!'),
        staticDefault('metadata.annotations[example.com/count]', 3),
        derivedDefault('metadata.labels[example.com/replicas]', { from: 'spec.replicas', compute: 'copy' }),
      ]),
    ).toEqual([
      `defaults[0] (metadata.labels[Not A Key]): "Not A Key" is not a label or annotation key: it must be a qualified name: an optional DNS-1123 subdomain and '/', then at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit`,
      "defaults[1] (metadata.labels[example.com/team]): a label's value must be at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
      "defaults[2] (metadata.annotations[example.com/count]): an annotation's value must be a string",
      'defaults[3] (metadata.labels[example.com/replicas]): a label holds a string, and copy of spec.replicas is of type integer',
    ]);
  });

  it('refuses what a derived default cannot read or write', () => {
    expect(
      problems([
        derivedDefault('spec.version', { from: 'spec.replicas', compute: 'release-major' }),
        derivedDefault('spec.replicas', { from: 'spec.version', compute: 'release-major' }),
        derivedDefault('spec.replicas', { from: 'spec.missing', compute: 'copy' }),
        derivedDefault('spec.replicas', { from: 'spec.caches[*].size', compute: 'copy' }),
        derivedDefault('spec.replicas', { from: 'metadata.name', compute: 'copy' }),
      ]),
    ).toEqual([
      'defaults[0] (spec.version): from: release-major reads a string field, and spec.replicas is of type integer',
      'defaults[1] (spec.replicas): release-major of spec.version is of type string, and the field is of type integer',
      'defaults[2] (spec.replicas): from: spec declares no field missing in the hub schema (spec.missing)',
      'defaults[3] (spec.replicas): from must name one field, not one in each item of a list ([*])',
      'defaults[4] (spec.replicas): from must name a field of the object below its root other than metadata, such as spec.version',
    ]);
  });

  it('refuses an empty list, and a form of the wrong shape', () => {
    expect(problems([])).toEqual(['defaults must list at least one defaulter (leave defaults out for none)']);
    const unchanged = (): Defaulter => (object) => object;
    const handMade = Object.assign(unchanged(), { form: { default: 'value', path: 'spec.replicas' } });
    const unknown = Object.assign(unchanged(), { form: { default: 'computed', path: 'spec.replicas' } });
    expect(problems([handMade, unknown])).toEqual([
      'defaults[0].form.value must be a JSON value, got undefined',
      "defaults[1].form.default must be 'value' or 'derived', got \"computed\"",
    ]);
  });

  // Found by define-contract.property.test.ts: a keyword of the wrong type in the hub's schema made the value check
  // throw a TypeError instead of the schema being reported.
  it("reports a broken hub schema as the schema's problem, and checks the default's path without it", () => {
    const broken = thing([staticDefault('spec.replicas', 2), staticDefault('metadata.labels[bad key]', 'x')]);
    const hubSchema = broken.versions[0]!.schema as { properties: { spec: JSONSchemaProps } };
    hubSchema.properties.spec = { ...spec, properties: { ...spec.properties, replicas: { type: {} as 'integer' } } };
    let message = '';
    try {
      defineContract(broken);
    } catch (error) {
      expect(error).toBeInstanceOf(ContractDefinitionError);
      message = (error as Error).message;
    }
    expect(message).toContain('version v1: ');
    expect(message).toContain('spec.properties.replicas.type');
    expect(message).toContain('defaults[1] (metadata.labels[bad key]): "bad key" is not a label or annotation key');
    expect(message).not.toContain('defaults[0]');
  });
});
