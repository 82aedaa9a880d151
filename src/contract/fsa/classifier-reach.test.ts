import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../../contracts/geodatabase/index.ts';
import { parseVersion } from '../values/release-version.ts';
import { quantitySchema } from '../schema/controller-gen.fixture.ts';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import { classifierReachProblems } from './classifier-reach.ts';
import { whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';
import { keyedListClassifier } from './keyed-list-classifier.ts';
import type { Classifier } from './machine.ts';
import { readInteger, readQuantity, readRelease, readString } from './value-readers.ts';

const spec: JSONSchemaProps = {
  type: 'object',
  properties: {
    replicas: { type: 'integer' },
    ratio: { type: 'number' },
    paused: { type: 'boolean' },
    name: { type: 'string' },
    port: { 'x-kubernetes-int-or-string': true },
    memory: quantitySchema,
    storage: { type: 'object', properties: { size: { type: 'string' }, class: { type: 'string' } } },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    config: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
    volumes: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['id'],
      items: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'integer' }, size: quantitySchema, type: { type: 'string' } },
      },
    },
    ports: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['port', 'protocol'],
      items: {
        type: 'object',
        required: ['port', 'protocol'],
        properties: { port: { type: 'integer' }, protocol: { type: 'string' } },
      },
    },
    extras: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
  },
};
const hub = (specSchema: JSONSchemaProps = spec): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: specSchema },
});

const field = (path: string, read: (raw: unknown) => unknown) =>
  fieldClassifier({ path, read, compare: whenDifferent('x') });
const volumes = (key: string | string[], itemClassifiers: Classifier<string>[] = [], path = 'volumes') =>
  keyedListClassifier({ path, key, added: 'add', removed: 'remove', itemClassifiers });
const problems = (...classifiers: Classifier<string>[]) => classifierReachProblems(classifiers, hub());

describe('classifierReachProblems', () => {
  it('finds nothing to say of the GeoDatabase example', () => {
    const contract = geoDatabaseContract();
    const schema = contract.versions.find((version) => version.name === contract.hub)!.schema;
    expect(classifierReachProblems(contract.transitions!.classifiers, schema)).toEqual([]);
  });

  it('accepts each library reader on the shapes it reads', () => {
    expect(
      problems(
        field('replicas', readInteger),
        field('name', readString),
        field('name', readRelease),
        field('name', parseVersion),
        field('storage.size', readQuantity),
        field('replicas', readQuantity),
        field('memory', readQuantity),
        field('labels.team', readString),
        field('template.kind', readString),
      ),
    ).toEqual([]);
  });

  it('refuses a reader on a field whose type it does not read, naming the field and what the schema says', () => {
    expect(
      problems(
        field('name', readInteger),
        field('replicas', readString),
        field('paused', readQuantity),
        field('ratio', readInteger),
        field('port', readString),
        field('memory', readRelease),
      ),
    ).toEqual([
      'a classifier reads spec.name with readInteger, which reads integer fields only, but the hub schema says it is a string',
      'a classifier reads spec.replicas with readString, which reads string fields only, but the hub schema says it is an integer',
      'a classifier reads spec.paused with readQuantity, which reads string, integer or int-or-string fields only, but the hub schema says it is a boolean',
      'a classifier reads spec.ratio with readInteger, which reads integer fields only, but the hub schema says it is a number',
      'a classifier reads spec.port with readString, which reads string fields only, but the hub schema says it is an int-or-string',
      'a classifier reads spec.memory with readRelease (or parseVersion), which reads string fields only, but the hub schema says it is an int-or-string',
    ]);
  });

  it('refuses a path the schema does not have, saying what is there instead', () => {
    expect(
      problems(field('storage.sizes', readQuantity), field('name.first', readString), field('replica', readInteger)),
    ).toEqual([
      'a classifier reads spec.storage.sizes, which the hub schema does not have: spec.storage declares size, class, not sizes',
      'a classifier reads spec.name.first, which the hub schema does not have: spec.name is a string',
      expect.stringMatching(
        /^a classifier reads spec\.replica, which the hub schema does not have: spec declares replicas, ratio, .* and \d+ more, not replica$/,
      ),
    ]);
  });

  it('checks nothing below fields that keep unknown fields, which may hold anything', () => {
    expect(
      problems(
        field('config.deep.size', readQuantity),
        field('template.metadata.name', readInteger),
        volumes('anything', [], 'extras'),
      ),
    ).toEqual([]);
    expect(
      classifierReachProblems([field('size', readInteger)], {
        type: 'object',
        'x-kubernetes-preserve-unknown-fields': true,
      }),
    ).toEqual([]);
  });

  it("checks neither a reader of one's own nor a classifier written as a function", () => {
    const own: Classifier<string> = { kinds: ['x'], classify: () => [] };
    expect(
      problems(
        field('name', (raw) => raw),
        own,
      ),
    ).toEqual([]);
  });

  it('refuses classifiers when the hub schema has no spec', () => {
    expect(
      classifierReachProblems([field('size', readInteger)], {
        type: 'object',
        properties: { status: { type: 'object' } },
      }),
    ).toEqual([
      'the classifiers compare the spec, which the hub schema does not have: the object declares status, not spec',
    ]);
  });

  it('accepts keyed lists keyed as the schema keys them, by an integer or by several fields', () => {
    expect(
      problems(
        volumes('id', [field('size', readQuantity), field('type', readString)]),
        volumes(['protocol', 'port'], [], 'ports'),
      ),
    ).toEqual([]);
  });

  it('refuses a keyed list that is no list, a key its items lack, and keys that do not tell items apart', () => {
    expect(problems(volumes('id', [], 'storage'), volumes('name'), volumes(['port'], [], 'ports'))).toEqual([
      'a keyed list classifier compares spec.storage, which the hub schema says is an object, not a list',
      'a keyed list classifier keys spec.volumes by name, which its items do not have: spec.volumes[*] declares id, size, type, not name',
      'a keyed list classifier keys spec.ports by port, but the hub schema keys its items by port, protocol: items that differ only in protocol could not be told apart',
    ]);
  });

  it('checks the item classifiers against the items, naming the field through the list', () => {
    expect(problems(volumes('id', [field('size', readInteger), field('kind', readString)]))).toEqual([
      'a classifier reads spec.volumes[*].size with readInteger, which reads integer fields only, but the hub schema says it is an int-or-string',
      'a classifier reads spec.volumes[*].kind, which the hub schema does not have: spec.volumes[*] declares id, size, type, not kind',
    ]);
  });

  it('leaves a schema that is not one to the structural check, and never throws on it', () => {
    const odd = (volumes: unknown) =>
      classifierReachProblems(
        [volumes === undefined ? field('size', readInteger) : keyed],
        hub({ type: 'object', properties: { volumes: volumes as JSONSchemaProps } }),
      );
    const keyed = volumes('id');
    expect(
      odd({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': '[]',
        items: { type: 'object', properties: { id: { type: 'integer' } } },
      }),
    ).toEqual([]);
    expect(
      odd({
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': [{}],
        items: { type: 'object', properties: { id: { type: 'integer' } } },
      }),
    ).toEqual([]);
    expect(odd({ type: 'array', items: 'junk' })).toEqual([]);
    expect(odd(null)).toEqual([]);
    expect(
      classifierReachProblems([field('size.x', readInteger)], hub({ type: 'object', properties: null as never })),
    ).toEqual(['a classifier reads spec.size.x, which the hub schema does not have: spec declares no fields']);
  });

  it('never throws on what is not a classifier', () => {
    expect(classifierReachProblems('junk', hub())).toEqual([]);
    expect(classifierReachProblems([null, 7, { target: { classify: 'field', path: 3 } }], hub())).toEqual([]);
    expect(classifierReachProblems([field('size', readInteger)], null as never)).toEqual([]);
  });
});
