import type { CrdRevisionRule } from '../../../../src/crd-revision/rules.ts';

/**
 * The kinds of CRD revision the differential generates: each a change that item 1's rules name and that changes what
 * stored objects meet (or, for the safe ones, should change nothing), with the rule id `crdgate check` reports it by.
 */
export const revisionKinds = {
  fieldRemoved: { rule: 'existingFieldRemoval', safe: false },
  enumNarrowed: { rule: 'enum', safe: false },
  maximumLowered: { rule: 'maximum', safe: false },
  minimumRaised: { rule: 'minimum', safe: false },
  maxLengthLowered: { rule: 'maxLength', safe: false },
  maxItemsLowered: { rule: 'maxItems', safe: false },
  patternAdded: { rule: 'pattern', safe: false },
  requiredAdded: { rule: 'required', safe: false },
  typeChanged: { rule: 'type', safe: false },
  defaultAdded: { rule: 'defaultAdded', safe: false },
  defaultChanged: { rule: 'defaultChanged', safe: false },
  celRuleAdded: { rule: 'validationRuleAdded', safe: false },
  celTransitionRuleAdded: { rule: 'validationRuleAdded', safe: false },
  nullableRemoved: { rule: 'nullable', safe: false },
  preserveUnknownFieldsDropped: { rule: 'preserveUnknownFieldsRemoved', safe: false },
  listTypeChanged: { rule: 'listType', safe: false },
  versionUnserved: { rule: 'versionUnserved', safe: false },
  versionRemoved: { rule: 'versionRemoval', safe: false },
  storageVersionMoved: { rule: 'storageVersionChanged', safe: false },
  statusEnumNarrowed: { rule: 'enum', safe: false },
  statusEnumNarrowedInListMap: { rule: 'enum', safe: false },
  statusRequiredAdded: { rule: 'required', safe: false },
  optionalFieldAdded: { rule: undefined, safe: true },
  boundLoosened: { rule: undefined, safe: true },
} as const satisfies Record<string, { rule: CrdRevisionRule | undefined; safe: boolean }>;

export type RevisionKind = keyof typeof revisionKinds;

export const allRevisionKinds = Object.keys(revisionKinds) as RevisionKind[];
