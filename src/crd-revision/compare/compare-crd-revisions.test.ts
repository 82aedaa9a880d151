import { describe, expect, it } from 'vitest';
import { compareCrdRevisions } from './compare-crd-revisions.ts';
import { widgetCrd } from '../crd-revision.fixture.ts';
import type { CrdRevisionFinding } from '../finding.ts';
import type { RuleSettings } from '../rule-config.ts';
import { crdRevisionRules, type CrdRevisionRule } from '../rules.ts';

/** The fixture, to change freely in a test. */
const freshCrd = (): any => widgetCrd();
/** The spec schema of version v1 (the second version), where most rows change one thing. */
const v1Spec = (crd: any) => crd.spec.versions[1].schema.openAPIV3Schema.properties.spec;
const v1 = (crd: any) => crd.spec.versions[1];

interface Row {
  rule: CrdRevisionRule;
  /** What the row changes, in words: the test's name. */
  change: string;
  /** Changes the new revision (and, for a row that needs it, the old one). */
  revise: (now: any, old: any) => void;
  /** The finding expected (its severity is the rule's default), first of the findings. */
  expected: Omit<CrdRevisionFinding, 'rule' | 'severity' | 'message'>;
  /** The rules of the findings that must come before it and follow it, where the change cannot be made alone. */
  before?: CrdRevisionRule[];
  then?: CrdRevisionRule[];
}

const servedVersionRules = [
  'servedVersionDifference',
  'servedVersionDifferenceConverted',
] as const satisfies readonly CrdRevisionRule[];
/** A row that changes one version makes the served versions differ too: that is the served-version rules' own rows. */
const servedVersionsOff = Object.fromEntries(servedVersionRules.map((rule) => [rule, 'off'])) as RuleSettings;
const scale = {
  specReplicasPath: '.spec.size',
  statusReplicasPath: '.status.size',
  labelSelectorPath: '.status.selector',
};

const rows: Row[] = [
  {
    rule: 'scope',
    change: 'Namespaced to Cluster',
    revise: (c) => (c.spec.scope = 'Cluster'),
    expected: { old: 'Namespaced', new: 'Cluster' },
  },
  {
    rule: 'storedVersionRemoval',
    change: 'the storage version removed',
    revise: (c) => c.spec.versions.splice(1, 1) && (c.spec.versions[0].storage = true),
    expected: { version: 'v1' },
    then: ['storageVersionChanged'],
  },
  {
    rule: 'storedVersionRemoval',
    change: 'a version status.storedVersions lists removed',
    revise: (c, old) => {
      old.status = { storedVersions: ['v1beta1', 'v1'] };
      c.spec.versions.splice(0, 1);
    },
    expected: { version: 'v1beta1' },
  },
  {
    rule: 'versionRemoval',
    change: 'a version nothing is stored in removed',
    revise: (c) => c.spec.versions.splice(0, 1),
    expected: { version: 'v1beta1' },
  },
  {
    rule: 'unservedVersionRemoval',
    change: 'a version nothing is stored in and none served removed',
    revise: (c, old) => {
      old.spec.versions[0].served = false;
      c.spec.versions.splice(0, 1);
    },
    expected: { version: 'v1beta1' },
  },
  {
    rule: 'versionUnserved',
    change: 'a version unserved',
    revise: (c) => (c.spec.versions[0].served = false),
    expected: { version: 'v1beta1', old: true, new: false },
  },
  {
    rule: 'versionServed',
    change: 'a version served again',
    revise: (c, old) => (old.spec.versions[0].served = false),
    expected: { version: 'v1beta1', old: false, new: true },
  },
  {
    rule: 'versionAdded',
    change: 'a version added',
    revise: (c) => c.spec.versions.push({ ...structuredClone(c.spec.versions[1]), name: 'v2', storage: false }),
    expected: { version: 'v2' },
  },
  {
    rule: 'storageVersionChanged',
    change: 'the storage version moved',
    revise: (c) => {
      c.spec.versions[0].storage = true;
      c.spec.versions[1].storage = false;
    },
    expected: { old: 'v1', new: 'v1beta1' },
  },
  {
    rule: 'conversionWebhookRemoved',
    change: 'Webhook to None',
    revise: (c) => (c.spec.conversion = { strategy: 'None' }),
    expected: { old: 'Webhook', new: 'None' },
  },
  {
    rule: 'conversionWebhookAdded',
    change: 'None to Webhook',
    revise: (c, old) => delete old.spec.conversion,
    expected: { old: 'None', new: 'Webhook' },
  },
  {
    rule: 'conversionWebhookChanged',
    change: "the webhook's URL",
    revise: (c) => (c.spec.conversion.webhook.clientConfig.url = 'https://other.example.com/convert'),
    expected: {
      old: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://convert.example.com/convert' } },
      new: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://other.example.com/convert' } },
    },
  },
  {
    rule: 'kindChanged',
    change: 'the kind renamed',
    revise: (c) => (c.spec.names.kind = 'Gadget'),
    expected: { old: 'Widget', new: 'Gadget' },
  },
  {
    rule: 'listKindChanged',
    change: 'the list kind renamed',
    revise: (c) => (c.spec.names.listKind = 'Widgets'),
    expected: { old: 'WidgetList', new: 'Widgets' },
  },
  {
    rule: 'pluralChanged',
    change: 'the plural renamed',
    revise: (c) => (c.spec.names.plural = 'widgetz'),
    expected: { old: 'widgets', new: 'widgetz' },
  },
  {
    rule: 'singularChanged',
    change: 'the singular renamed',
    revise: (c) => (c.spec.names.singular = 'wdgt'),
    expected: { old: 'widget', new: 'wdgt' },
  },
  {
    rule: 'shortNamesRemoved',
    change: 'a short name dropped',
    revise: (c) => (c.spec.names.shortNames = []),
    expected: { old: ['wd'] },
  },
  {
    rule: 'shortNamesAdded',
    change: 'a short name added',
    revise: (c) => c.spec.names.shortNames.push('wg'),
    expected: { new: ['wg'] },
  },
  {
    rule: 'categoriesRemoved',
    change: 'a category dropped',
    revise: (c) => delete c.spec.names.categories,
    expected: { old: ['toys'] },
  },
  {
    rule: 'categoriesAdded',
    change: 'a category added',
    revise: (c) => c.spec.names.categories.push('all'),
    expected: { new: ['all'] },
  },
  {
    rule: 'printerColumnRemoved',
    change: 'a column dropped',
    revise: (c) => (v1(c).additionalPrinterColumns = []),
    expected: { version: 'v1', old: { name: 'Size', type: 'integer', jsonPath: '.spec.size' } },
  },
  {
    rule: 'printerColumnChanged',
    change: "a column's path",
    revise: (c) => (v1(c).additionalPrinterColumns[0].jsonPath = '.status.size'),
    expected: {
      version: 'v1',
      old: { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
      new: { name: 'Size', type: 'integer', jsonPath: '.status.size' },
    },
  },
  {
    rule: 'printerColumnAdded',
    change: 'a column added',
    revise: (c) => v1(c).additionalPrinterColumns.push({ name: 'Mode', type: 'string', jsonPath: '.spec.mode' }),
    expected: { version: 'v1', new: { name: 'Mode', type: 'string', jsonPath: '.spec.mode' } },
  },
  {
    rule: 'selectableFieldRemoved',
    change: 'a selectable field dropped',
    revise: (c) => delete v1(c).selectableFields,
    expected: { version: 'v1', old: '.spec.mode' },
  },
  {
    rule: 'selectableFieldAdded',
    change: 'a selectable field added',
    revise: (c) => v1(c).selectableFields.push({ jsonPath: '.spec.name' }),
    expected: { version: 'v1', new: '.spec.name' },
  },
  {
    rule: 'servedVersionDifference',
    change: 'a field removed from the newer served version, conversion None',
    revise: (c, old) => {
      c.spec.conversion = old.spec.conversion = { strategy: 'None' };
      delete v1Spec(c).properties.endpoint;
    },
    before: ['existingFieldRemoval'],
    expected: {
      version: 'v1',
      comparedWith: 'v1beta1',
      difference: 'existingFieldRemoval',
      path: 'spec.endpoint',
      old: { type: 'string', format: 'hostname', nullable: true },
    },
  },
  {
    rule: 'servedVersionDifferenceConverted',
    change: 'a field only the newer served version has, with a conversion webhook',
    revise: (c) => (v1Spec(c).properties.color = { type: 'string' }),
    expected: {
      version: 'v1',
      comparedWith: 'v1beta1',
      difference: 'existingFieldRemoval',
      path: 'spec.color',
      new: { type: 'string' },
    },
  },
  {
    rule: 'statusSubresourceAdded',
    change: 'the status subresource enabled',
    revise: (c) => (v1(c).subresources = { status: {} }),
    expected: { version: 'v1', old: false, new: true },
  },
  {
    rule: 'statusSubresourceRemoved',
    change: 'the status subresource taken away',
    revise: (c, old) => (v1(old).subresources = { status: {} }),
    expected: { version: 'v1', old: true, new: false },
  },
  {
    rule: 'scaleSubresourceAdded',
    change: 'a scale subresource added',
    revise: (c) => (v1(c).subresources = { scale }),
    expected: { version: 'v1', new: scale },
  },
  {
    rule: 'scaleSubresourceRemoved',
    change: 'the scale subresource taken away',
    revise: (c, old) => (v1(old).subresources = { scale }),
    expected: { version: 'v1', old: scale },
  },
  {
    rule: 'scaleReplicasPathChanged',
    change: "the scale's specReplicasPath moved",
    revise: (c, old) => {
      v1(old).subresources = { scale };
      v1(c).subresources = { scale: { ...scale, specReplicasPath: '.spec.replicas' } };
    },
    expected: { version: 'v1', old: '.spec.size', new: '.spec.replicas' },
  },
  {
    rule: 'scaleLabelSelectorPathChanged',
    change: "the scale's labelSelectorPath taken away",
    revise: (c, old) => {
      v1(old).subresources = { scale };
      v1(c).subresources = { scale: { ...scale, labelSelectorPath: undefined } };
    },
    expected: { version: 'v1', old: '.status.selector' },
  },
  {
    rule: 'scaleLabelSelectorPathAdded',
    change: "the scale's labelSelectorPath added",
    revise: (c, old) => {
      v1(old).subresources = { scale: { ...scale, labelSelectorPath: undefined } };
      v1(c).subresources = { scale };
    },
    expected: { version: 'v1', new: '.status.selector' },
  },
  {
    rule: 'existingFieldRemoval',
    change: 'a field removed',
    revise: (c) => delete v1Spec(c).properties.endpoint,
    expected: { version: 'v1', path: 'spec.endpoint', old: { type: 'string', format: 'hostname', nullable: true } },
  },
  {
    rule: 'existingFieldRemoval',
    change: 'a field of list items removed',
    revise: (c) => delete v1Spec(c).properties.ports.items.properties.port,
    expected: { version: 'v1', path: 'spec.ports[*].port', old: { type: 'integer' } },
  },
  {
    rule: 'existingFieldRemoval',
    change: "a map's values no longer declared",
    revise: (c) => delete v1Spec(c).properties.labels.additionalProperties,
    expected: { version: 'v1', path: 'spec.labels[*]', old: { type: 'string' } },
  },
  {
    rule: 'type',
    change: 'integer to string',
    revise: (c) => (v1Spec(c).properties.endpoint.type = 'integer'),
    expected: { version: 'v1', path: 'spec.endpoint', old: 'string', new: 'integer' },
  },
  {
    rule: 'type',
    change: 'int-or-string to integer',
    revise: (c) => (v1Spec(c).properties.replicas = { type: 'integer' }),
    expected: { version: 'v1', path: 'spec.replicas', old: 'int-or-string', new: 'integer' },
  },
  {
    rule: 'enum',
    change: 'an enum value removed',
    revise: (c) => (v1Spec(c).properties.mode.enum = ['safe']),
    expected: { version: 'v1', path: 'spec.mode', old: ['fast'] },
  },
  {
    rule: 'enum',
    change: 'an enum put on a free field',
    revise: (c) => (v1Spec(c).properties.endpoint.enum = ['a']),
    expected: { version: 'v1', path: 'spec.endpoint', new: ['a'] },
  },
  {
    rule: 'enumValueAdded',
    change: 'an enum value added',
    revise: (c) => v1Spec(c).properties.mode.enum.push('turbo'),
    expected: { version: 'v1', path: 'spec.mode', new: ['turbo'] },
  },
  {
    rule: 'defaultAdded',
    change: 'a default added',
    revise: (c) => (v1Spec(c).properties.mode.default = 'safe'),
    expected: { version: 'v1', path: 'spec.mode', new: 'safe' },
  },
  {
    rule: 'defaultChanged',
    change: 'a default changed',
    revise: (c) => (v1Spec(c).properties.size.default = 4),
    expected: { version: 'v1', path: 'spec.size', old: 3, new: 4 },
  },
  {
    rule: 'defaultRemoved',
    change: 'a default removed',
    revise: (c) => delete v1Spec(c).properties.size.default,
    expected: { version: 'v1', path: 'spec.size', old: 3 },
  },
  {
    rule: 'maximum',
    change: 'a maximum lowered',
    revise: (c) => (v1Spec(c).properties.size.maximum = 9),
    expected: { version: 'v1', path: 'spec.size', old: 10, new: 9 },
  },
  {
    rule: 'maximum',
    change: 'a maximum made exclusive',
    revise: (c) => (v1Spec(c).properties.size.exclusiveMaximum = true),
    expected: { version: 'v1', path: 'spec.size', old: 10, new: 10 },
  },
  {
    rule: 'maxLength',
    change: 'a maxLength lowered',
    revise: (c) => (v1Spec(c).properties.name.maxLength = 20),
    expected: { version: 'v1', path: 'spec.name', old: 63, new: 20 },
  },
  {
    rule: 'maxItems',
    change: 'a maxItems lowered',
    revise: (c) => (v1Spec(c).properties.ports.maxItems = 2),
    expected: { version: 'v1', path: 'spec.ports', old: 4, new: 2 },
  },
  {
    rule: 'maxProperties',
    change: 'a maxProperties lowered',
    revise: (c) => (v1Spec(c).properties.labels.maxProperties = 4),
    expected: { version: 'v1', path: 'spec.labels', old: 8, new: 4 },
  },
  {
    rule: 'minimum',
    change: 'a minimum raised',
    revise: (c) => (v1Spec(c).properties.size.minimum = 2),
    expected: { version: 'v1', path: 'spec.size', old: 1, new: 2 },
  },
  {
    rule: 'minLength',
    change: 'a minLength raised',
    revise: (c) => (v1Spec(c).properties.name.minLength = 3),
    expected: { version: 'v1', path: 'spec.name', old: 1, new: 3 },
  },
  {
    rule: 'minItems',
    change: 'a minItems raised',
    revise: (c) => (v1Spec(c).properties.ports.minItems = 2),
    expected: { version: 'v1', path: 'spec.ports', old: 1, new: 2 },
  },
  {
    rule: 'minProperties',
    change: 'a minProperties raised',
    revise: (c) => (v1Spec(c).properties.labels.minProperties = 1),
    expected: { version: 'v1', path: 'spec.labels', old: 0, new: 1 },
  },
  {
    rule: 'minLength',
    change: 'a minLength put on a field',
    revise: (c) => (v1Spec(c).properties.endpoint.minLength = 1),
    expected: { version: 'v1', path: 'spec.endpoint', new: 1 },
  },
  {
    rule: 'multipleOf',
    change: 'a multipleOf put on a field',
    revise: (c) => (v1Spec(c).properties.size.multipleOf = 2),
    expected: { version: 'v1', path: 'spec.size', new: 2 },
  },
  {
    rule: 'required',
    change: 'a field became required',
    revise: (c) => v1Spec(c).required.push('mode'),
    expected: { version: 'v1', path: 'spec.mode', new: 'mode' },
  },
  {
    rule: 'pattern',
    change: 'a pattern changed',
    revise: (c) => (v1Spec(c).properties.name.pattern = '^[a-z]{2,}$'),
    expected: { version: 'v1', path: 'spec.name', old: '^[a-z]+$', new: '^[a-z]{2,}$' },
  },
  {
    rule: 'pattern',
    change: 'a pattern added',
    revise: (c) => (v1Spec(c).properties.endpoint.pattern = '^x'),
    expected: { version: 'v1', path: 'spec.endpoint', new: '^x' },
  },
  {
    rule: 'patternRemoved',
    change: 'a pattern removed',
    revise: (c) => delete v1Spec(c).properties.name.pattern,
    expected: { version: 'v1', path: 'spec.name', old: '^[a-z]+$' },
  },
  {
    rule: 'format',
    change: 'a format changed',
    revise: (c) => (v1Spec(c).properties.endpoint.format = 'ipv4'),
    expected: { version: 'v1', path: 'spec.endpoint', old: 'hostname', new: 'ipv4' },
  },
  {
    rule: 'nullable',
    change: 'nullable taken away',
    revise: (c) => delete v1Spec(c).properties.endpoint.nullable,
    expected: { version: 'v1', path: 'spec.endpoint', old: true, new: false },
  },
  {
    rule: 'nullableAdded',
    change: 'a field made nullable',
    revise: (c) => (v1Spec(c).properties.name.nullable = true),
    expected: { version: 'v1', path: 'spec.name', old: false, new: true },
  },
  {
    rule: 'valueValidationChanged',
    change: 'an anyOf added',
    revise: (c) => (v1Spec(c).properties.replicas.anyOf = [{ type: 'integer' }, { type: 'string' }]),
    expected: { version: 'v1', path: 'spec.replicas', new: [{ type: 'integer' }, { type: 'string' }] },
  },
  {
    rule: 'validationRuleAdded',
    change: 'a CEL rule added',
    revise: (c) => (v1Spec(c).properties.name['x-kubernetes-validations'] = [{ rule: 'self != "admin"' }]),
    expected: { version: 'v1', path: 'spec.name', new: { rule: 'self != "admin"' }, transition: false },
  },
  {
    rule: 'validationRuleAdded',
    change: 'a transition rule added',
    revise: (c) =>
      (v1Spec(c).properties.size['x-kubernetes-validations'] = [
        { rule: 'self >= oldSelf', message: 'size cannot shrink' },
      ]),
    expected: {
      version: 'v1',
      path: 'spec.size',
      new: { rule: 'self >= oldSelf', message: 'size cannot shrink' },
      transition: true,
    },
  },
  {
    rule: 'validationRuleChanged',
    change: "a CEL rule's expression rewritten",
    revise: (c) => (v1Spec(c)['x-kubernetes-validations'][0].rule = 'self.size <= 4 || self.mode == "safe"'),
    expected: {
      version: 'v1',
      path: 'spec',
      old: { rule: 'self.size <= 5 || self.mode == "safe"', message: 'large widgets must be safe' },
      new: { rule: 'self.size <= 4 || self.mode == "safe"', message: 'large widgets must be safe' },
      transition: false,
    },
  },
  {
    rule: 'validationRuleRemoved',
    change: 'a transition rule removed',
    revise: (c) => v1Spec(c)['x-kubernetes-validations'].splice(1, 1),
    expected: {
      version: 'v1',
      path: 'spec',
      old: { rule: 'self.mode == oldSelf.mode', message: 'mode is immutable' },
      transition: true,
    },
  },
  {
    rule: 'validationRuleMessageChanged',
    change: "a CEL rule's message reworded",
    revise: (c) => (v1Spec(c)['x-kubernetes-validations'][1].message = 'mode cannot change'),
    expected: {
      version: 'v1',
      path: 'spec',
      old: { rule: 'self.mode == oldSelf.mode', message: 'mode is immutable' },
      new: { rule: 'self.mode == oldSelf.mode', message: 'mode cannot change' },
      transition: true,
    },
  },
  {
    rule: 'listType',
    change: 'a map list made atomic',
    revise: (c) =>
      (v1Spec(c).properties.ports = {
        ...v1Spec(c).properties.ports,
        'x-kubernetes-list-type': 'atomic',
        'x-kubernetes-list-map-keys': undefined,
      }),
    expected: { version: 'v1', path: 'spec.ports', old: 'map', new: 'atomic' },
  },
  {
    rule: 'listMapKeys',
    change: 'a map key added',
    revise: (c) => v1Spec(c).properties.ports['x-kubernetes-list-map-keys'].push('port'),
    expected: { version: 'v1', path: 'spec.ports', old: ['name'], new: ['name', 'port'] },
  },
  {
    rule: 'mapType',
    change: 'a map made atomic',
    revise: (c) => (v1Spec(c).properties.labels['x-kubernetes-map-type'] = 'atomic'),
    expected: { version: 'v1', path: 'spec.labels', old: 'granular', new: 'atomic' },
  },
  {
    rule: 'preserveUnknownFieldsRemoved',
    change: 'unknown fields no longer kept',
    revise: (c) => delete v1Spec(c).properties.template['x-kubernetes-preserve-unknown-fields'],
    expected: { version: 'v1', path: 'spec.template', old: true, new: false },
  },
  {
    rule: 'preserveUnknownFieldsAdded',
    change: 'unknown fields kept',
    revise: (c) => (v1Spec(c).properties.labels['x-kubernetes-preserve-unknown-fields'] = true),
    expected: { version: 'v1', path: 'spec.labels', old: false, new: true },
  },
  {
    rule: 'description',
    change: 'a description written',
    revise: (c) => (v1Spec(c).properties.size.description = 'How big.'),
    expected: { version: 'v1', path: 'spec.size', new: 'How big.' },
  },
  {
    rule: 'description',
    change: "the root's description reworded",
    revise: (c) => (v1(c).schema.openAPIV3Schema.description = 'A toy.'),
    expected: { version: 'v1', path: '', old: 'A widget (v1).', new: 'A toy.' },
  },
  {
    rule: 'embeddedResource',
    change: 'no longer an embedded resource',
    revise: (c) => delete v1Spec(c).properties.template['x-kubernetes-embedded-resource'],
    expected: { version: 'v1', path: 'spec.template', old: true, new: false },
  },
];

/** JSON as a parsed file has it: an `undefined` a row writes is no key at all. */
const asParsed = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

describe('compareCrdRevisions', () => {
  it('finds nothing between a CRD and itself, nor a copy of it', () => {
    expect(compareCrdRevisions(freshCrd(), freshCrd())).toEqual([]);
    const crd = freshCrd();
    expect(compareCrdRevisions(crd, crd)).toEqual([]);
  });

  it.each(rows)('$rule: $change', ({ rule, revise, expected, before = [], then = [] }) => {
    const [old, now] = [freshCrd(), freshCrd()];
    revise(now, old);
    const findings = compareCrdRevisions(
      asParsed(old),
      asParsed(now),
      (servedVersionRules as readonly string[]).includes(rule) ? {} : servedVersionsOff,
    );
    expect(findings.map((finding) => finding.rule)).toEqual([...before, rule, ...then]);
    const { message, ...finding } = findings[before.length]!;
    expect(finding).toEqual({ rule, severity: crdRevisionRules[rule].severity, ...expected });
    expect(message).not.toBe('');
    // An absent value reads (none): never undefined, a blank, or a made-up word in quotes.
    for (const { message: each } of findings) expect(each).not.toMatch(/\bundefined\b|"absent"| {2}|: $| → $/);
  });

  it('shows a keyword that was absent as (none)', () => {
    const [old, now] = [freshCrd(), freshCrd()];
    v1Spec(now).properties.size.multipleOf = 2;
    v1Spec(now).properties.size.description = 'How big.';
    const messages = compareCrdRevisions(asParsed(old), asParsed(now), servedVersionsOff).map((f) => f.message);
    expect(messages).toContain('spec.size: multipleOf (none) → 2');
    expect(messages).toContain('spec.size: description added ((none) → "How big.")');
  });

  it('has a row for every rule', () => {
    const covered = new Set(rows.map((row) => row.rule));
    expect(Object.keys(crdRevisionRules).filter((rule) => !covered.has(rule as CrdRevisionRule))).toEqual([]);
  });

  it('reports what loosens no bound, and nothing for a bound loosened or taken away', () => {
    const now = freshCrd();
    Object.assign(v1Spec(now).properties.size, { maximum: 20, minimum: 0 });
    delete v1Spec(now).properties.name.maxLength;
    v1Spec(now).required = [];
    expect(compareCrdRevisions(freshCrd(), now)).toEqual([]);
  });

  it('takes a rule set to warning or off, and keeps the others at their defaults', () => {
    const now = freshCrd();
    delete v1Spec(now).properties.endpoint;
    v1Spec(now).properties.mode.enum.push('turbo');
    const findings = compareCrdRevisions(freshCrd(), now, {
      ...servedVersionsOff,
      existingFieldRemoval: 'warning',
      enumValueAdded: 'off',
    });
    expect(findings.map(({ rule, severity }) => ({ rule, severity }))).toEqual([
      { rule: 'existingFieldRemoval', severity: 'warning' },
    ]);
    expect(
      compareCrdRevisions(freshCrd(), now, { ...servedVersionsOff, enumValueAdded: 'error' }).map(
        ({ rule, severity }) => ({ rule, severity }),
      ),
    ).toEqual([
      { rule: 'enumValueAdded', severity: 'error' },
      { rule: 'existingFieldRemoval', severity: 'error' },
    ]);
  });

  it('reports a list or map that changed type as a type change alone', () => {
    const now = freshCrd();
    v1Spec(now).properties.ports = { type: 'string' };
    v1Spec(now).properties.labels = { type: 'string' };
    expect(compareCrdRevisions(freshCrd(), now, servedVersionsOff).map(({ rule, path }) => [rule, path])).toEqual([
      ['type', 'spec.ports'],
      ['type', 'spec.labels'],
    ]);
  });

  it('reads the listKind and singular the API server fills in as the same names', () => {
    const now = freshCrd();
    delete now.spec.names.listKind;
    delete now.spec.names.singular;
    expect(compareCrdRevisions(freshCrd(), now)).toEqual([]);
  });

  it("leaves a rotated caBundle and a printer column's reworded description alone", () => {
    const now = freshCrd();
    now.spec.conversion.webhook.clientConfig.caBundle = 'Y2E=';
    v1(now).additionalPrinterColumns[0].description = 'How big.';
    expect(compareCrdRevisions(freshCrd(), now)).toEqual([]);
  });

  it('names a field whose key is no plain name in brackets', () => {
    const [old, now] = [freshCrd(), freshCrd()];
    v1Spec(old).properties['app.kubernetes.io/name'] = { type: 'string' };
    expect(compareCrdRevisions(old, now).map(({ path }) => path)).toEqual(['spec[app.kubernetes.io/name]']);
  });

  it('answers for values that are no CRD at all', () => {
    for (const junk of [
      undefined,
      null,
      3,
      'crd',
      [],
      {},
      { spec: { versions: 'v1' } },
      { spec: { versions: [null, { name: 1 }] } },
    ]) {
      expect(() => compareCrdRevisions(junk, freshCrd())).not.toThrow();
      expect(() => compareCrdRevisions(freshCrd(), junk)).not.toThrow();
    }
    expect(compareCrdRevisions({}, {})).toEqual([]);
  });
});

describe('what a revision is precise about', () => {
  it('reports a conversion webhook taken away only where two versions are still served or stored', () => {
    const single = (crd: any) => {
      crd.spec.versions.splice(0, 1);
      return crd;
    };
    const withoutWebhook = (crd: any) => ({ ...crd, spec: { ...crd.spec, conversion: { strategy: 'None' } } });
    // One version, served and stored: no object is ever relabelled, whatever the strategy.
    expect(compareCrdRevisions(single(freshCrd()), withoutWebhook(single(freshCrd())))).toEqual([]);
    const rules = (old: any, now: any) => compareCrdRevisions(old, now, servedVersionsOff).map(({ rule }) => rule);
    expect(rules(freshCrd(), withoutWebhook(freshCrd()))).toEqual(['conversionWebhookRemoved']);
    // v1beta1 no longer served, but objects may still be stored in it (status.storedVersions).
    const stored = { ...freshCrd(), status: { storedVersions: ['v1beta1', 'v1'] } };
    const unserved = withoutWebhook(freshCrd());
    unserved.spec.versions[0].served = false;
    expect(rules(stored, unserved)).toContain('conversionWebhookRemoved');
    expect(rules({ ...freshCrd(), status: { storedVersions: ['v1'] } }, unserved)).not.toContain(
      'conversionWebhookRemoved',
    );
  });

  it('reads a description as its words: a line re-wrapped or re-indented is no change', () => {
    const [old, now] = [freshCrd(), freshCrd()];
    v1Spec(old).properties.size.description = 'How big the widget is,\n  in parts per thousand.';
    v1Spec(now).properties.size.description = 'How big the widget\nis, in parts per thousand. ';
    expect(compareCrdRevisions(old, now)).toEqual([]);
    v1Spec(now).properties.size.description = 'How big the widget is, in parts per million.';
    expect(compareCrdRevisions(old, now).map(({ rule }) => rule)).toEqual(['description']);
  });

  it('never cuts two values so that they read alike, and says how many items are left out', () => {
    const [old, now] = [freshCrd(), freshCrd()];
    const condition = 'Waiting for the controller to reconcile this resource; it has not reported';
    v1Spec(old).properties.mode.default = `${condition} a status yet`;
    v1Spec(now).properties.mode.default = `${condition} any status yet`;
    v1Spec(old).properties.mode.enum = [...'abcdefghijklmnop'].map((letter) => `${letter}-mode`);
    v1Spec(now).properties.mode.enum = ['a-mode'];
    const findings = compareCrdRevisions(old, now, { ...servedVersionsOff, enumValueAdded: 'off' });
    const message = (rule: string) => findings.find((finding) => finding.rule === rule)!.message;
    expect(message('defaultChanged')).toBe(
      'spec.mode: default ...s not reported a status yet" → ...s not reported any status yet"',
    );
    expect(message('enum')).toMatch(/^spec\.mode: enum values removed: \["b-mode", "c-mode", .*"\] and \d+ more$/);
    const shown = /: \[(.*)\] and (\d+) more$/.exec(message('enum'))!;
    expect(shown[1]!.split(', ').length + Number(shown[2])).toBe(15);
  });

  it('says the API server may refuse a removed version where status.storedVersions is not known, and how to find out', () => {
    const now = freshCrd();
    now.spec.versions.splice(0, 1);
    const unknown = compareCrdRevisions(freshCrd(), now).find((finding) => finding.rule === 'versionRemoval')!;
    expect(unknown.message).toBe(
      "version v1beta1 removed: its clients get 404; status.storedVersions is not known here: if an earlier revision stored objects in v1beta1, the API server refuses this update until they are migrated; find out with --from-cluster, or `kubectl get crd widgets.toys.example.com -o jsonpath='{.status.storedVersions}'`",
    );
    const known = compareCrdRevisions({ ...freshCrd(), status: { storedVersions: ['v1'] } }, now).find(
      (finding) => finding.rule === 'versionRemoval',
    )!;
    expect(known.message).toBe('version v1beta1 removed: its clients get 404');
  });
});
