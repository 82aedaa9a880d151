import { describe, expect, it } from 'vitest';
import {
  ContractDefinitionError,
  defineContract,
  metadataDeletionRule,
  type Contract,
  type JSONSchemaProps,
} from '../index.ts';
import { byDirection, whenDifferent } from '../contract/fsa/comparisons.ts';
import { fieldClassifier } from '../contract/fsa/field-classifier.ts';
import { keyedListClassifier } from '../contract/fsa/keyed-list-classifier.ts';
import type { Classifier, Fsa } from '../contract/fsa/machine.ts';
import { nodePoolContract } from '../contract/fsa/node-pool.fixture.ts';
import { toyConditionStates, toyMachine, type ToyChange, type ToyState } from '../contract/fsa/toy-machine.fixture.ts';
import { readInteger, readQuantity, readString } from '../contract/fsa/value-readers.ts';
import { compareQuantities } from '../contract/values/quantity.ts';
import { scalableGeoDatabaseContract } from '../admission/scalable-geodatabase.fixture.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { compileContractPolicy } from './compile-policy.ts';
import { renderPolicyCoverage, summarizePolicyCoverage } from './policy-coverage.ts';

// What compiles and what is reported as the webhook's alone. Whether the compiled CEL decides as the webhook does
// is proven through a real API server (test/e2e/policy-agreement.e2e.test.ts); here: the coverage is honest.

const widgetSchema = (
  spec: Record<string, JSONSchemaProps>,
  status: JSONSchemaProps = { type: 'object', properties: { phase: { type: 'string', maxLength: 32 } } },
): JSONSchemaProps => ({
  type: 'object',
  properties: { spec: { type: 'object', properties: spec }, status },
});

const toySpec: Record<string, JSONSchemaProps> = {
  size: { type: 'integer' },
  label: { type: 'string', maxLength: 63 },
  color: { type: 'string', maxLength: 63 },
};

function toyContract(
  machine: Fsa<string, string>,
  schema = widgetSchema(toySpec),
  extra: Partial<Parameters<typeof defineContract>[0]> = {},
): Contract {
  return defineContract({
    identity: { group: 'toy.example.com', kind: 'Widget', plural: 'widgets', singular: 'widget', scope: 'Namespaced' },
    hub: 'v1',
    versions: [{ name: 'v1', served: true, storage: true, schema, subresources: { status: {} } }],
    conversions: {},
    transitions: machine,
    ...extra,
  });
}

function withClassifiers(classifiers: readonly Classifier<ToyChange>[]): Fsa<ToyState, ToyChange> {
  return { ...toyMachine, classifiers };
}

const coverageOf = (contract: Contract) =>
  Object.fromEntries(
    compileContractPolicy(contract).coverage.changeKinds.map((entry) => [
      entry.kind,
      entry.enforcedBy === 'policy' ? 'policy' : entry.reason,
    ]),
  );

describe('compileContractPolicy: coverage', () => {
  it('compiles every change kind and the deletion protection of the GeoDatabase example', () => {
    const policy = compileContractPolicy(geoDatabaseContract());
    expect(policy.coverage.changeKinds.filter((entry) => entry.enforcedBy !== 'policy')).toEqual([]);
    expect(policy.coverage.changeKinds).toHaveLength(
      Object.keys(geoDatabaseContract().transitions!.changeKinds).length,
    );
    expect(policy.coverage.deletionRules).toEqual([
      { rule: 'geo.example.com/deletion-protection=true', enforcedBy: 'policy' },
    ]);
    expect(policy.operations).toEqual(['UPDATE', 'DELETE']);
    expect(policy.coverage.subresources).toEqual([]);
  });

  it("says that spec changes through /scale are the webhook's alone, and why", () => {
    const policy = compileContractPolicy(scalableGeoDatabaseContract());
    expect(policy.coverage.subresources).toEqual([
      {
        subresource: 'scale',
        enforcedBy: 'webhook',
        reason: expect.stringContaining("carries neither the object's phase nor its annotations"),
      },
    ]);
    expect(policy.coverage.subresources[0]!.reason).toContain('kubectl scale is refused, not let through unjudged');
    // The policy itself is the same: it matches the resource, never a subresource.
    expect(policy.validations).toEqual(compileContractPolicy(geoDatabaseContract()).validations);
  });

  it("compiles the toy machine, whose classifiers are all the library's", () => {
    expect(Object.values(coverageOf(toyContract(toyMachine)))).toEqual(['policy', 'policy', 'policy', 'policy']);
  });

  it('leaves a classifier written as a function to the webhook, and says so for each of its kinds', () => {
    const own: Classifier<ToyChange> = { kinds: ['label'], classify: () => [] };
    const coverage = coverageOf(
      toyContract(withClassifiers([...toyMachine.classifiers.filter((c) => !c.kinds.includes('label')), own])),
    );
    expect(coverage['label']).toBe('the classifier is a function of its own');
    expect(coverage['size.up']).toBe('policy');
  });

  it('leaves a comparison with an equality or comparator of its own to the webhook', () => {
    const custom = withClassifiers([
      fieldClassifier({
        path: 'size',
        read: readInteger,
        compare: byDirection({ compare: (a: number, b: number) => a - b, increase: 'size.up', decrease: 'size.down' }),
      }),
      fieldClassifier({
        path: 'label',
        read: readString,
        compare: whenDifferent<ToyChange, string>('label', (a, b) => a.toLowerCase() === b.toLowerCase()),
      }),
      toyMachine.classifiers[2]!,
    ]);
    const coverage = coverageOf(toyContract(custom));
    expect(coverage['size.up']).toBe('the classifier is a function of its own');
    expect(coverage['label']).toBe('the classifier is a function of its own');
    expect(coverage['color']).toBe('policy');
  });

  it('names the schema bound a string field lacks, since the API server could not bound the cost', () => {
    const coverage = coverageOf(toyContract(toyMachine, widgetSchema({ ...toySpec, label: { type: 'string' } })));
    expect(coverage['label']).toMatch(/"label" needs a maxLength/);
  });

  // defineContract refuses such a classifier first (classifier-reach.ts); the compiler still says why for one that
  // carries a form but no target, which defineContract cannot check.
  it('refuses a field whose schema type is not what its reader reads, or that the schema does not declare', () => {
    const untargeted = (machine: Fsa<ToyState, ToyChange>) =>
      withClassifiers(machine.classifiers.map(({ target: _, ...classifier }) => classifier));
    const stringSize = widgetSchema({ ...toySpec, size: { type: 'string', maxLength: 8 } });
    expect(() => toyContract(toyMachine, stringSize)).toThrow(ContractDefinitionError);
    expect(coverageOf(toyContract(untargeted(toyMachine), stringSize))['size.up']).toMatch(
      /read as an integer but the hub schema's type is string/,
    );
    const { color: _, ...noColor } = toySpec;
    expect(coverageOf(toyContract(untargeted(toyMachine), widgetSchema(noColor)))['color']).toMatch(
      /declares no field "color"/,
    );
  });

  it('refuses a quantity read with a comparator of another kind of value', () => {
    type Kinds = 'size.up' | 'size.down';
    const machine = withClassifiers([
      fieldClassifier({
        path: 'label',
        read: readQuantity,
        compare: byDirection<Kinds, never>({
          compare: compareQuantities as never,
          increase: 'size.up',
          decrease: 'size.down',
        }),
      }),
      ...toyMachine.classifiers.slice(1),
    ]);
    expect(coverageOf(toyContract(machine))['size.up']).toBe('policy');
    const mixed = withClassifiers([
      fieldClassifier({
        path: 'size',
        read: readInteger as never,
        compare: byDirection<Kinds, never>({
          compare: compareQuantities as never,
          increase: 'size.up',
          decrease: 'size.down',
        }),
      }),
      ...toyMachine.classifiers.slice(1),
    ]);
    expect(coverageOf(toyContract(mixed))['size.up']).toMatch(/integer values are ordered by the quantity comparator/);
  });

  it("needs a keyed list to be a bounded map list keyed by the classifier's key", () => {
    const machine = withClassifiers([
      toyMachine.classifiers[0]!,
      keyedListClassifier({
        path: 'parts',
        key: 'id',
        absentMeans: [],
        added: 'label',
        removed: 'color',
        itemClassifiers: [],
      }),
    ]);
    const list = (extra: Partial<JSONSchemaProps>): JSONSchemaProps => ({
      type: 'array',
      maxItems: 4,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['id'],
      items: { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 8 } } },
      ...extra,
    });
    expect(coverageOf(toyContract(machine, widgetSchema({ ...toySpec, parts: list({}) })))['label']).toBe('policy');
    expect(
      coverageOf(
        toyContract(
          machine,
          widgetSchema({
            ...toySpec,
            parts: list({ 'x-kubernetes-list-type': 'atomic', 'x-kubernetes-list-map-keys': undefined }),
          }),
        ),
      )['label'],
    ).toMatch(/must be a map list keyed by id/);
    expect(
      coverageOf(toyContract(machine, widgetSchema({ ...toySpec, parts: list({ maxItems: undefined }) })))['color'],
    ).toMatch(/needs a maxItems/);
  });

  it('compiles keyed lists keyed by integers, booleans and several fields, and leaves number and int-or-string keys to the webhook', () => {
    const keyed = (key: string | string[]) =>
      withClassifiers([
        toyMachine.classifiers[0]!,
        keyedListClassifier({
          path: 'parts',
          key,
          absentMeans: [],
          added: 'label',
          removed: 'color',
          itemClassifiers: [],
        }),
      ]);
    const list = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({
      type: 'array',
      maxItems: 4,
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': Object.keys(properties),
      items: { type: 'object', required: Object.keys(properties), properties },
    });
    const coverage = (key: string | string[], properties: Record<string, JSONSchemaProps>) =>
      coverageOf(toyContract(keyed(key), widgetSchema({ ...toySpec, parts: list(properties) })))['label'];
    expect(coverage('id', { id: { type: 'integer' } })).toBe('policy');
    expect(coverage('on', { on: { type: 'boolean' } })).toBe('policy');
    expect(
      coverage(['port', 'protocol'], { port: { type: 'integer' }, protocol: { type: 'string', maxLength: 8 } }),
    ).toBe('policy');
    expect(coverage('weight', { weight: { type: 'number' } })).toBe(
      'the key weight of "parts" must be a string, integer or boolean field (the policy does not compile number keys)',
    );
    expect(coverage('port', { port: { 'x-kubernetes-int-or-string': true } })).toMatch(
      /does not compile int-or-string keys/,
    );
  });

  it("compiles the node pool's lists keyed by an integer and by two fields, and says why its quantities are the webhook's", () => {
    const coverage = coverageOf(nodePoolContract());
    expect(
      Object.entries(coverage)
        .filter(([, enforcedBy]) => enforcedBy === 'policy')
        .map(([kind]) => kind),
    ).toEqual([
      'scale',
      'volume.add',
      'volume.remove',
      'volume.retype',
      'volume.reclass',
      'listener.add',
      'listener.remove',
      'listener.retype',
    ]);
    expect(coverage['volume.shrink']).toBe(
      '"size" holds integers and strings (int-or-string): the policy does not compile readings of such a field',
    );
    expect(coverage['memory']).toBe(
      '"resources.requests.memory" is reached through a map (additionalProperties), which the policy does not compile',
    );
  });

  it("reports every kind the state decides as the webhook's when the phase cannot be read by the policy", () => {
    const contract = toyContract(
      toyMachine,
      widgetSchema(toySpec, { type: 'object', properties: { phase: { type: 'integer' } } }),
    );
    const policy = compileContractPolicy(contract);
    expect(policy.coverage.state).toEqual({
      readBy: 'none',
      reason: 'the phase path "status.phase" is not a string field of the hub schema',
    });
    const onlyWhileDeleting =
      'and the policy does not read the state: it refuses it only once a deletion has started (Gone)';
    expect(coverageOf(contract)).toEqual({
      'size.up': `it is allowed in Active, ${onlyWhileDeleting}`,
      'size.down': `it is allowed where any change is (Draft), ${onlyWhileDeleting}`,
      label: `it is allowed in Active, Busy, ${onlyWhileDeleting}`,
      color: `it is allowed in Active, ${onlyWhileDeleting}`,
    });
    expect(summarizePolicyCoverage(contract, policy)).toContain(
      '  webhook only: the state: the phase path "status.phase" is not a string field of the hub schema; the policy refuses only what every state refuses\n',
    );
    // A deletion tells the state all the same: the changes Gone does not allow are refused there.
    expect(policy.operations).toEqual(['UPDATE']);
    expect(policy.variables.slice(0, 2)).toEqual([
      { name: 'stateKnown', expression: 'oldObject.metadata.?deletionTimestamp.hasValue()' },
      { name: 'state', expression: 'variables.stateKnown ? "Gone" : ""' },
    ]);
  });

  it('compiles a deletion protection given as data and leaves one written as a function to the webhook', () => {
    const contract = toyContract(toyMachine, undefined, {
      deletionRules: [
        metadataDeletionRule({ annotation: 'toy.example.com/locked', equals: 'yes' }),
        metadataDeletionRule(function mustBeUnlabelled(object) {
          return object.metadata?.labels?.['keep'] ? 'labelled keep' : undefined;
        }),
      ],
    });
    expect(compileContractPolicy(contract).coverage.deletionRules).toEqual([
      { rule: 'toy.example.com/locked=yes', enforcedBy: 'policy' },
      { rule: 'mustBeUnlabelled', enforcedBy: 'webhook', reason: 'the rule is a function of its own' },
    ]);
  });

  it('renders nothing for a contract with neither a machine nor a protection', () => {
    const contract = defineContract({
      identity: { group: 'toy.example.com', kind: 'Plain', plural: 'plains', singular: 'plain', scope: 'Namespaced' },
      hub: 'v1',
      versions: [{ name: 'v1', served: true, storage: true, schema: widgetSchema({}) }],
      conversions: {},
    });
    expect(compileContractPolicy(contract)).toMatchObject({ operations: [], validations: [] });
  });
});

describe('metadataDeletionRule with a protection', () => {
  it('refuses while the annotation has exactly the value, with the command that lifts it', () => {
    const rule = metadataDeletionRule({ annotation: 'toy.example.com/locked', equals: 'yes' });
    const object = (value?: string) => ({
      apiVersion: 'toy.example.com/v1',
      kind: 'Widget',
      metadata: {
        name: 'w',
        namespace: 'ns',
        ...(value === undefined ? {} : { annotations: { 'toy.example.com/locked': value } }),
      },
    });
    expect(rule(object('yes'))).toBe(
      'Widget ns/w is deletion-protected; to delete it, first remove the protection: kubectl annotate widget w -n ns toy.example.com/locked-',
    );
    expect([rule(object('Yes')), rule(object('yes ')), rule(object())]).toEqual([undefined, undefined, undefined]);
    expect(rule.readsMetadataOnly).toBe(true);
  });
});

describe("compileContractPolicy: the state from the operator's phases", () => {
  const unbounded = widgetSchema(toySpec, { type: 'object', properties: { phase: { type: 'string' } } });
  const sentences = {
    ...toyMachine,
    phases: { 'Cluster in healthy state': 'Active', 'Upgrading cluster': 'Busy' },
  } as Fsa<string, string>;

  it('compiles a table of phase sentences into literal comparisons, even where the CRD bounds no phase', () => {
    const policy = compileContractPolicy(toyContract(sentences, unbounded));
    expect(policy.coverage.changeKinds.every((entry) => entry.enforcedBy === 'policy')).toBe(true);
    const state = policy.variables.find((variable) => variable.name === 'state')!.expression;
    expect(state).toContain('variables.phase == "Cluster in healthy state" ? "Active"');
    // The unbounded phase is compared, never concatenated: messages do not quote it.
    expect(policy.validations.map((validation) => validation.messageExpression).join('\n')).not.toContain(
      'variables.phase +',
    );
    expect(policy.validations.map((validation) => validation.messageExpression).join('\n')).toContain(
      'in a phase the machine does not know',
    );
  });

  it("compiles the states' own names the same way when the CRD bounds no phase", () => {
    const policy = compileContractPolicy(toyContract(toyMachine as Fsa<string, string>, unbounded));
    expect(policy.coverage.changeKinds.every((entry) => entry.enforcedBy === 'policy')).toBe(true);
    expect(policy.variables.find((variable) => variable.name === 'state')!.expression).toContain(
      'variables.phase == "Busy" ? "Busy"',
    );
  });

  it('quotes an unrecognised phase where the CRD bounds it', () => {
    const policy = compileContractPolicy(toyContract(sentences));
    expect(policy.validations.map((validation) => validation.messageExpression).join('\n')).toContain(
      '"in the unrecognised phase \\"" + variables.phase',
    );
  });

  it('leaves what the state decides to the webhook when a state reader of its own reads it, and says why', () => {
    const reading = { ...toyMachine, phasePath: undefined, readState: () => 'Active' } as Fsa<string, string>;
    const contract = toyContract(reading);
    const policy = compileContractPolicy(contract);
    for (const reason of Object.values(coverageOf(contract)))
      expect(reason).toContain('the policy does not read the state');
    expect(policy.coverage.state).toEqual({
      readBy: 'none',
      reason: 'the machine reads the state with readState, a function of its own, which the policy cannot run',
    });
    expect(summarizePolicyCoverage(contract, policy)).toContain(
      '  webhook only: the state: the machine reads the state with readState',
    );
    expect(renderPolicyCoverage(contract, policy)).toContain(
      'The state: not read by the policy: the machine reads the state with readState, a function of its own, which the policy cannot run. The policy refuses only what every state refuses',
    );
  });
});

describe('compileContractPolicy: what every state refuses, where the policy cannot read the state', () => {
  // The toy machine without a state that allows any change: its unsupported kind is refused in every state.
  const { Draft: _draft, ...rules } = toyMachine.rules;
  const noAnyChange = {
    ...toyMachine,
    phasePath: undefined,
    readState: () => 'Active',
    states: ['Active', 'Busy', 'Broken', 'Gone'],
    initialState: 'Active',
    rules,
  } as unknown as Fsa<string, string>;

  it('compiles the unsupported kinds, and exclusive combinations, as refused whatever the state', () => {
    const contract = toyContract(noAnyChange);
    const policy = compileContractPolicy(contract);
    expect(coverageOf(contract)).toEqual({
      'size.up':
        'it is allowed in Active, and the policy does not read the state: it refuses it only once a deletion has started (Gone)',
      'size.down': 'policy',
      label: expect.stringContaining('it is allowed in Active, Busy'),
      color: expect.stringContaining('it is allowed in Active'),
    });
    expect(summarizePolicyCoverage(contract, policy)).toMatch(
      /^policy floor for Widget: the API server enforces 1 of 4 change kinds/,
    );
    const unsupported = policy.validations.find((validation) => validation.message.startsWith('size.down'))!;
    expect(unsupported.expression).toBe('!variables.judged || variables.changes_size_down == 0');
    const exclusive = policy.validations.find((validation) => validation.message.startsWith('exclusive'))!;
    expect(exclusive.expression).toBe(
      'variables.stateKnown ? !variables.judged || (variables.overriding || variables.state in ["Active"] ? variables.changes_size_up : 0) + (variables.overriding || variables.state in ["Active"] ? variables.changes_color : 0) < 2 : ' +
        '!variables.judged || variables.changes_size_up + variables.changes_color < 2',
    );
  });

  it('compiles changes no change kind names where every state refuses them alike, and leaves them to the webhook where states differ', () => {
    const withPaused = widgetSchema({ ...toySpec, paused: { type: 'boolean' } });
    const refused = compileContractPolicy(
      toyContract({ ...noAnyChange, unclassifiedChanges: 'refused' } as Fsa<string, string>, withPaused),
    );
    expect(refused.coverage.unclassified).toEqual({ judged: true, compiled: true, webhookOnly: [] });
    const mixed = {
      ...noAnyChange,
      unclassifiedChanges: 'refused',
      rules: { ...noAnyChange.rules, Active: { ...toyMachine.rules.Active, unclassifiedChanges: 'allowed' } },
    } as Fsa<string, string>;
    expect(compileContractPolicy(toyContract(mixed, withPaused)).coverage.unclassified).toEqual({
      judged: true,
      compiled: false,
      webhookOnly: [
        { field: 'spec', reason: 'states decide them differently, and the policy does not read the state' },
      ],
    });
  });
});

describe('compileContractPolicy: the state from conditionStates', () => {
  const conditions: JSONSchemaProps = {
    type: 'array',
    items: {
      type: 'object',
      properties: { type: { type: 'string' }, status: { type: 'string' }, reason: { type: 'string' } },
    },
  };
  const status = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });
  const byConditions = { ...toyMachine, phasePath: undefined, conditionStates: toyConditionStates } as Fsa<
    string,
    string
  >;

  it('compiles every kind, reading the first conditions by index and each test once', () => {
    const contract = toyContract(
      byConditions,
      widgetSchema(toySpec, status({ conditions, observedGeneration: { type: 'integer' } })),
    );
    const policy = compileContractPolicy(contract);
    expect(Object.values(coverageOf(contract))).toEqual(['policy', 'policy', 'policy', 'policy']);
    expect(policy.coverage.state).toEqual({ readBy: 'conditions', conditionsRead: 32 });
    expect(renderPolicyCoverage(contract, policy)).toContain(
      'The state: read by the conditionStates rules from the first 32 conditions',
    );
    const names = policy.variables.map((variable) => variable.name);
    expect(names.slice(0, names.indexOf('judged'))).toEqual([
      'status_conditions',
      'status_test_0',
      'observed_generation_read',
      'generation',
      'status_test_1',
      'status_test_2',
      'status_test_3',
      'status_test_4',
      'status_test_5',
      'stateKnown',
      'state',
    ]);
    const state = policy.variables.find((variable) => variable.name === 'state')!.expression;
    expect(state).toBe(
      'oldObject.metadata.?deletionTimestamp.hasValue() ? "Gone" : size(variables.status_conditions) <= 32 ? (variables.status_test_0 ? "Draft" : ' +
        'variables.status_test_1 ? "Busy" : variables.status_test_2 && variables.status_test_3 ? "Active" : variables.status_test_4 ? "Broken" : ' +
        'variables.status_test_5 ? "Busy" : "") : ""',
    );
  });

  it('says which field the hub schema lacks for the tests, and reads no state then', () => {
    const without = (properties: Record<string, JSONSchemaProps>) =>
      compileContractPolicy(toyContract(byConditions, widgetSchema(toySpec, status(properties)))).coverage.state;
    expect(without({ observedGeneration: { type: 'integer' } })).toEqual({
      readBy: 'none',
      reason: 'the hub schema declares no status.conditions list of objects, so the policy cannot read the conditions',
    });
    const noReason = {
      ...conditions,
      items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
    } as JSONSchemaProps;
    expect(without({ conditions: noReason, observedGeneration: { type: 'integer' } })).toEqual({
      readBy: 'none',
      reason:
        'the items of status.conditions in the hub schema declare no string reason, which the conditionStates rules test',
    });
    expect(without({ conditions })).toEqual({
      readBy: 'none',
      reason: 'the hub schema declares no integer status.observedGeneration, which the conditionStates rules test',
    });
  });
});

describe('compileContractPolicy: readings that fail closed', () => {
  it('says that it does not compile an absent field read as cannotRead', async () => {
    const { cannotRead } = await import('../contract/fsa/value-readers.ts');
    const machine = withClassifiers([
      fieldClassifier({
        path: 'label',
        absentMeans: cannotRead("the operator's default"),
        read: readString,
        compare: whenDifferent('label'),
      }),
      ...toyMachine.classifiers.filter((classifier) => !classifier.kinds.includes('label')),
    ]);
    expect(coverageOf(toyContract(machine as Fsa<string, string>)).label).toBe(
      'an absent "label" reads as cannotRead (the operator\'s default): the policy does not compile readings that fail closed',
    );
  });
});

describe('compileContractPolicy: changes no change kind names', () => {
  const strict = { ...toyMachine, unclassifiedChanges: 'refused-unless-overridden' } as Fsa<string, string>;
  const withPaused = widgetSchema({ ...toySpec, paused: { type: 'boolean' }, notes: { type: 'string' } });
  const validationReading = (policy: ReturnType<typeof compileContractPolicy>) =>
    policy.validations.filter((validation) => validation.expression.includes('variables.unclassified_change'));

  it('compiles nothing where every state allows them, as by default, and says there is nothing to enforce', () => {
    const policy = compileContractPolicy(toyContract(toyMachine, withPaused));
    expect(policy.coverage.unclassified).toEqual({ judged: false, compiled: false, webhookOnly: [] });
    expect(policy.variables.map((variable) => variable.name)).not.toContain('unclassified_change');
    expect(summarizePolicyCoverage(toyContract(toyMachine, withPaused), policy)).not.toContain('no change kind names');
  });

  it("compiles one validation over every field it can compare, and names the others as the webhook's, in the summary too", () => {
    const contract = toyContract(strict, withPaused);
    const policy = compileContractPolicy(contract);
    expect(policy.coverage.unclassified).toEqual({
      judged: true,
      compiled: true,
      webhookOnly: [{ field: 'spec.notes', reason: expect.stringContaining('needs a maxLength') }],
    });
    expect(policy.variables.find((variable) => variable.name === 'unclassified_change')?.expression).toBe(
      'oldObject.?spec.?paused != object.?spec.?paused ? "spec.paused" : ""',
    );
    expect(validationReading(policy)).toHaveLength(1);
    expect(summarizePolicyCoverage(contract, policy)).toContain(
      '  webhook only: changes no change kind names at spec.notes: it needs a maxLength',
    );
    expect(renderPolicyCoverage(contract, policy)).toContain(
      "| spec.notes | webhook only | it needs a maxLength (or an enum) in the hub schema, so the API server can bound the policy's cost |\n| every other spec field | policy and webhook | |",
    );
  });

  it('says so when the classifiers cover every field the schema declares, and compiles no validation', () => {
    const contract = toyContract(strict);
    const policy = compileContractPolicy(contract);
    expect(policy.coverage.unclassified).toEqual({ judged: true, compiled: false, webhookOnly: [] });
    expect(validationReading(policy)).toEqual([]);
    expect(renderPolicyCoverage(contract, policy)).toContain(
      '| changes no change kind names, at | enforced by | why not by the policy |\n|---|---|---|\n| no spec field: the classifiers cover them all | | |',
    );
  });

  it('leaves them all to the webhook when a classifier has no target, or the machine reads its state with code', () => {
    const own: Classifier<ToyChange> = { kinds: ['label'], classify: () => [] };
    const untargeted = compileContractPolicy(
      toyContract(
        { ...strict, classifiers: [...toyMachine.classifiers.filter((c) => !c.kinds.includes('label')), own] } as Fsa<
          string,
          string
        >,
        withPaused,
      ),
    );
    expect(untargeted.coverage.unclassified.webhookOnly).toEqual([
      { field: 'spec', reason: expect.stringContaining('a classifier without a target') },
    ]);
    expect(validationReading(untargeted)).toEqual([]);
    const { phasePath: _phasePath, ...strictWithoutPhase } = strict;
    const reader = compileContractPolicy(
      toyContract({ ...strictWithoutPhase, readState: () => 'Active' } as Fsa<string, string>, withPaused),
    );
    // The toy machine allows any change in Draft, so states decide them differently.
    expect(reader.coverage.unclassified.webhookOnly).toEqual([
      { field: 'spec', reason: 'states decide them differently, and the policy does not read the state' },
    ]);
    expect(
      renderPolicyCoverage(
        toyContract({ ...strictWithoutPhase, readState: () => 'Active' } as Fsa<string, string>, withPaused),
        reader,
      ),
    ).toContain('| spec | webhook only | states decide them differently, and the policy does not read the state |');
  });
});
