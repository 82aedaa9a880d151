import { describe, expect, it } from 'vitest';
import { type ContractDefinition } from './contract-definition.ts';
import { checkContract, ContractDefinitionError, defineContract } from './define-contract.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { whenDifferent } from './fsa/comparisons.ts';
import { fieldClassifier } from './fsa/field-classifier.ts';
import { keyedListClassifier } from './fsa/keyed-list-classifier.ts';
import { toyMachine } from './fsa/toy-machine.fixture.ts';
import { readString } from './fsa/value-readers.ts';

const schema = { type: 'object' } as const;
const bucket: ContractDefinition = {
  identity: {
    group: 'storage.example.com',
    kind: 'Bucket',
    plural: 'buckets',
    singular: 'bucket',
    scope: 'Namespaced',
  },
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
    [
      'a plural ending in -',
      { identity: { ...bucket.identity, plural: 'buckets-' } },
      'spec.names.plural: Invalid value: "buckets-"',
    ],
    [
      'a singular of 64 characters',
      { identity: { ...bucket.identity, singular: 'b'.repeat(64) } },
      'spec.names.singular: Invalid value: "',
    ],
    [
      'a group of 254 characters',
      { identity: { ...bucket.identity, group: `${'g'.repeat(250)}.com` } },
      'spec.group: Invalid value: "',
    ],
    [
      'a version name that is no DNS-1035 label',
      { versions: [{ ...bucket.versions[0]!, name: 'V1' }], hub: 'V1' },
      'spec.versions[0].name: Invalid value: "V1"',
    ],
    [
      'a short name with a dot',
      { identity: { ...bucket.identity, shortNames: ['b.k'] } },
      'spec.names.shortNames[0]: Invalid value: "b.k"',
    ],
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
          pattern:
            '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
        },
        share: {
          'x-kubernetes-int-or-string': true,
          allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { pattern: '%$' }],
        },
      },
    };
    const schema: JSONSchemaProps = { type: 'object', properties: { spec } };
    expect(
      defineContract({ ...bucket, versions: [{ ...bucket.versions[0]!, schema, subresources: { status: {} } }] })
        .storageVersion,
    ).toBe('v1');
  });

  it('refuses a schema the API server refuses, in its words, naming the version', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { size: { anyOf: [{ type: 'string' }, { type: 'integer' }] } } },
      },
    };
    expect(problemOf({ ...bucket, versions: [{ ...bucket.versions[0]!, schema }] })).toBe(
      'contract buckets.storage.example.com is invalid: ' +
        'version v1: openAPIV3Schema.properties[spec].properties[size].anyOf[0].type: Forbidden: must be empty to be structural; ' +
        'version v1: openAPIV3Schema.properties[spec].properties[size].anyOf[1].type: Forbidden: must be empty to be structural; ' +
        'version v1: openAPIV3Schema.properties[spec].properties[size].type: Required value: must not be empty for specified object fields',
    );
  });

  it("holds the root to the status subresource's rule only for a version that has it", () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      anyOf: [{ required: ['spec'] }],
      properties: { spec: { type: 'object' } },
    };
    expect(defineContract({ ...bucket, versions: [{ ...bucket.versions[0]!, schema }] }).storageVersion).toBe('v1');
    expect(
      problemOf({ ...bucket, versions: [{ ...bucket.versions[0]!, schema, subresources: { status: {} } }] }),
    ).toMatch(
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
          "the API server wants an API review's approval for it, in the CRD annotation api-approved.kubernetes.io (crdAnnotations): " +
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

  // Issue 40: a classifier keyed by a field the list's items do not have classified nothing, and loaded in silence.
  it('refuses a classifier that cannot see its field in the hub schema, one line each, among the other problems', () => {
    const kafkaSchema: JSONSchemaProps = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          properties: {
            replicas: { type: 'integer' },
            storage: {
              type: 'object',
              properties: {
                volumes: {
                  type: 'array',
                  'x-kubernetes-list-type': 'map',
                  'x-kubernetes-list-map-keys': ['id'],
                  items: {
                    type: 'object',
                    required: ['id'],
                    properties: { id: { type: 'integer' }, size: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
      },
    };
    const machine = {
      ...toyMachine,
      classifiers: [
        fieldClassifier({ path: 'replicas', read: readString, compare: whenDifferent('label') }),
        keyedListClassifier({
          path: 'storage.volumes',
          key: 'volumeId',
          added: 'size.up',
          removed: 'size.down',
          itemClassifiers: [],
        }),
        fieldClassifier({ path: 'colour', read: readString, compare: whenDifferent('color') }),
      ],
    };
    const problem = problemOf({
      ...bucket,
      versions: [{ ...bucket.versions[0]!, schema: kafkaSchema }],
      transitions: machine,
    });
    expect(problem.replace(/^contract [^ ]+ is invalid: /, '').split('; ')).toEqual([
      'transitions: a classifier reads spec.replicas with readString, which reads string fields only, but the hub schema says it is an integer',
      'transitions: a keyed list classifier keys spec.storage.volumes by volumeId, which its items do not have: spec.storage.volumes[*] declares id, size, not volumeId',
      'transitions: a classifier reads spec.colour, which the hub schema does not have: spec declares replicas, storage, not colour',
    ]);
    const keyedById = {
      ...machine,
      classifiers: [
        ...toyMachine.classifiers.slice(1),
        keyedListClassifier({
          path: 'storage.volumes',
          key: 'id',
          added: 'size.up',
          removed: 'size.down',
          itemClassifiers: [],
        }),
      ],
    };
    expect(() =>
      defineContract({
        ...bucket,
        versions: [{ ...bucket.versions[0]!, schema: kafkaSchema }],
        transitions: keyedById,
      }),
    ).toThrow(/spec\.label, which the hub schema does not have/);
  });
});

describe('defineContract: a classifier whose reader cannot read its absentMeans', () => {
  it('is refused when the contract loads, naming the field, rather than reading every change there as none', () => {
    const machine = {
      ...toyMachine,
      classifiers: [
        ...toyMachine.classifiers.slice(0, 2),
        fieldClassifier({ path: 'color', absentMeans: 0, read: readString, compare: whenDifferent('color') }),
      ],
    };
    expect(() => defineContract({ ...bucket, transitions: machine })).toThrow(
      /transitions: the classifier of spec\.color: its absentMeans 0 is not a value its reader reads/,
    );
  });
});

// Issue 40: an option of the wrong type, or missing, crashed defineContract with a TypeError; each is now one
// sentence naming its path, all of them at once.
describe('defineContract: what the contract reads', () => {
  it('takes label and annotation keys and a status flag, and refuses what is not a key', () => {
    expect(
      defineContract({ ...bucket, reads: { labels: ['app.kubernetes.io/name'], annotations: [], status: false } })
        .reads,
    ).toEqual({
      labels: ['app.kubernetes.io/name'],
      annotations: [],
      status: false,
    });
    expect(problemOf({ ...bucket, reads: { labels: ['not a key'] } })).toContain(
      'reads.labels: "not a key" must be a qualified name',
    );
    expect(problemOf({ ...bucket, reads: { labels: 'app' } as never })).toContain(
      'reads.labels must be a list of label keys',
    );
    expect(problemOf({ ...bucket, reads: { finalizers: true } as never })).toContain('reads');
  });
});

describe('defineContract: the shape of every option', () => {
  const problemOfUntyped = (definition: unknown) => problemOf(definition as ContractDefinition);

  it('names the path of an option of the wrong type, and what it must be', () => {
    expect(problemOfUntyped({ ...bucket, identity: { ...bucket.identity, plural: 5 } })).toBe(
      'the contract is invalid: identity.plural must be a lowercase resource name, got 5',
    );
    expect(
      problemOfUntyped({ ...bucket, versions: [bucket.versions[0], { name: 'v2', served: true, storage: false }] }),
    ).toContain("versions[1].schema must be the version's openAPIV3Schema, an object, got undefined");
    expect(problemOfUntyped({ ...bucket, identity: undefined })).toBe(
      'the contract is invalid: identity must be an object: { group, kind, plural, singular, scope }, got undefined',
    );
    expect(problemOfUntyped(null)).toBe(
      "the contract is invalid: defineContract's argument must be an object of contract options (identity, versions, hub, conversions, ...), got null",
    );
  });

  it('reports every option that has the wrong type at once', () => {
    const problem = problemOfUntyped({
      ...bucket,
      hub: 1,
      conversions: [],
      invariants: [() => [], 'no'],
      crdOwner: 'someone',
    });
    expect(problem.split('; ')).toEqual([
      'contract buckets.storage.example.com is invalid: hub must be the name of one of the versions, got 1',
      'conversions must be an object of version names to conversions ({} when the hub is the only version), got an empty list',
      'invariants[1] must be a function of the hub object, got "no"',
      "crdOwner must be 'crdgate' or 'external', got \"someone\"",
    ]);
  });

  it('holds what is rendered into the CRD to the fields the API server knows, with JSON values', () => {
    const version = {
      ...bucket.versions[0]!,
      printerColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size', width: 3 }],
    };
    expect(problemOfUntyped({ ...bucket, versions: [version] })).toContain(
      'versions[0].printerColumns[0].width is not a field it can have (name, type, jsonPath, description, format, priority)',
    );
    const schema = {
      type: 'object',
      properties: { spec: { type: 'object', maxLength: '10', enum: [{ at: () => 1 }] } },
    };
    expect(problemOfUntyped({ ...bucket, versions: [{ ...bucket.versions[0]!, schema }] }).split('; ')).toEqual([
      'contract buckets.storage.example.com is invalid: version v1: openAPIV3Schema.properties.spec.maxLength must be an integer, got "10"',
      'version v1: openAPIV3Schema.properties.spec.enum[0].at must be a JSON value, got a function',
    ]);
  });

  it('checks the functions given are functions, and the data of a deletion rule', () => {
    expect(problemOfUntyped({ ...bucket, defaults: {} })).toContain(
      'defaults must be a function of the hub object returning a defaulted copy, or a list of such functions (staticDefault, derivedDefault or your own), got an object',
    );
    expect(problemOfUntyped({ ...bucket, defaults: [() => ({}), 'replicas'] })).toContain(
      'defaults[1] must be a function of the hub object returning a defaulted copy, got "replicas"',
    );
    const rule = Object.assign(() => undefined, { form: { annotation: 'example.com/protect' } });
    expect(problemOfUntyped({ ...bucket, deletionRules: [rule] })).toContain(
      'deletionRules[0].form.equals must be a string, a boolean or an integer, got undefined',
    );
  });

  it('finds a conversion declaring a path its schemas lack when the contract is defined', () => {
    const withSize = {
      type: 'object',
      properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
    } as const;
    const conversion = {
      toHub: (object: never) => object,
      fromHub: (object: never) => object,
      hubToSpokePaths: { 'spec.sise': 'spec.size' },
    };
    const problem = problemOf({
      ...bucket,
      versions: [
        { ...bucket.versions[0]!, schema: withSize },
        { name: 'v2', served: true, storage: false, schema: withSize },
      ],
      conversions: { v2: conversion },
    });
    expect(problem).toContain(
      "the v2 conversion's hubToSpokePaths declare paths its schemas lack: spec.sise is not a field of v1",
    );
  });
});

describe('defineContract: the shape of the FSA', () => {
  const machine = {
    name: 'Bucket',
    subject: 'bucket',
    states: ['Pending', 'Ready', 'Deleting'],
    initialState: 'Pending',
    deletingState: 'Deleting',
    terminalStates: ['Deleting'],
    humanInterventionStates: [],
    phasePath: 'status.phase',
    changeKinds: { resize: { description: 'resizing from {from} to {to}' } },
    rules: {
      Pending: { anyChange: true, operatorMoves: ['Ready'] },
      Ready: { allow: [{ changes: ['resize'] }], operatorMoves: ['Pending'] },
      Deleting: {},
    },
    overrideAnnotation: 'storage.example.com/override-transitions',
    classifiers: [{ kinds: ['resize'], classify: () => [] }],
  };
  const withMachine = (parts: Record<string, unknown>) =>
    ({ ...bucket, transitions: { ...machine, ...parts } }) as unknown as ContractDefinition;

  it('takes the machine as it is', () => {
    expect(defineContract(withMachine({})).transitions?.name).toBe('Bucket');
  });

  it('names a missing or ill-typed option of the machine by its path', () => {
    expect(problemOf(withMachine({ humanInterventionStates: undefined }))).toBe(
      'contract buckets.storage.example.com is invalid: transitions.humanInterventionStates must be a list of state names, got undefined',
    );
    expect(
      problemOf(withMachine({ rules: { ...machine.rules, Ready: { allow: [{ changes: 'resize' }] } } })),
    ).toContain('transitions.rules.Ready.allow[0].changes must be a list of change kinds, got "resize"');
  });

  it('checks a classifier written as an object by hand, its form included', () => {
    const form = {
      classify: 'field',
      path: 'size',
      reading: 'integer',
      comparison: { compare: 'sideways', kind: 'resize' },
    };
    expect(problemOf(withMachine({ classifiers: [{ kinds: ['resize'], classify: () => [], form }] }))).toContain(
      "transitions.classifiers[0].form.comparison.compare must be 'different', 'direction' or 'release-step', got \"sideways\"",
    );
    expect(problemOf(withMachine({ classifiers: [{ kinds: ['resize'] }] }))).toContain(
      'transitions.classifiers[0].classify must be a function of the old and the new value, got undefined',
    );
  });

  it('reads the state from phasePath, or with readState instead: one of the two', () => {
    expect(
      defineContract(withMachine({ phasePath: undefined, readState: () => 'Ready' })).transitions?.readState,
    ).toBeTypeOf('function');
    expect(problemOf(withMachine({ readState: () => 'Ready' }))).toBe(
      'contract buckets.storage.example.com is invalid: transitions: phasePath and readState both read the state: give one',
    );
    expect(problemOf(withMachine({ phasePath: undefined }))).toBe(
      'contract buckets.storage.example.com is invalid: transitions.phasePath must be a field path such as status.phase (or read the state with conditionStates or readState), got undefined',
    );
  });
});

describe('checkContract: a contract crdgate is handed rather than makes', () => {
  it("holds it to defineContract's rules, and its storageVersion to its versions", () => {
    const made = defineContract(bucket);
    expect(checkContract(made)).toBe(made);
    expect(() => checkContract({ ...made, identity: { ...made.identity, kind: undefined } })).toThrow(
      ContractDefinitionError,
    );
    expect(() => checkContract(bucket)).toThrow(
      'storageVersion must be the name of the storage version (defineContract sets it), got undefined',
    );
    expect(() => checkContract({ ...made, storageVersion: 'v9' })).toThrow(
      'storageVersion must be the storage version\'s name, v1, got "v9"',
    );
    expect(() => checkContract('bucket')).toThrow(
      'the contract is invalid: the contract must be a contract made with defineContract, got "bucket"',
    );
  });
});
