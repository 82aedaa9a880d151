/**
 * Every rule a CRD revision is judged by, with its default severity and why. The default is `error` where the
 * change breaks objects already stored or clients already written (a write refused, data dropped, a request that
 * no longer resolves), `warning` where nothing that worked stops working but someone should know (a value that
 * appears on read, a wider enum a client may not expect). The ids are stable: a config file and a CI log name them.
 * Where crdify (sigs.k8s.io/crdify) has a check of the same meaning, the id is crdify's name, so that a crdify
 * config's names carry over.
 */
export const crdRevisionRules = {
  // The CRD as a whole.
  scope: {
    severity: 'error',
    crdify: 'scope',
    finds:
      'the scope changed (Namespaced ↔ Cluster): the API server refuses the update of an established CRD (the scope is immutable); only deleting the CRD, and every object with it, can change it',
  },
  storedVersionRemoval: {
    severity: 'error',
    crdify: 'storedVersionRemoval',
    finds:
      'a version objects may be stored in (status.storedVersions, or the old storage version) is gone: the API server refuses the update until they are migrated',
  },
  versionRemoval: {
    severity: 'error',
    finds:
      'a served version no object is known to be stored in is gone: its clients get 404; where status.storedVersions is not known, the API server may also refuse the update (an earlier revision may have stored in it)',
  },
  unservedVersionRemoval: {
    severity: 'warning',
    finds:
      'a version that was not served is gone: no client reads it; where status.storedVersions is not known, an earlier revision may have stored objects in it, and the API server then refuses the update',
  },
  versionUnserved: { severity: 'error', finds: 'a version is no longer served: its clients get 404' },
  versionServed: { severity: 'warning', finds: 'a version that was not served is served again' },
  versionAdded: { severity: 'warning', finds: 'a new version' },
  storageVersionChanged: {
    severity: 'warning',
    finds:
      'the storage version moved: objects are rewritten in it on their next write, the old one stays in storedVersions until crdgate migrate runs',
  },
  conversionWebhookRemoved: {
    severity: 'error',
    finds:
      'the conversion strategy went from Webhook to None while two versions or more are still served or stored: objects are relabelled between versions, not converted',
  },
  conversionWebhookAdded: {
    severity: 'warning',
    finds:
      'the conversion strategy went from None to Webhook: reads in a version other than the stored one now need the webhook',
  },
  conversionWebhookChanged: {
    severity: 'warning',
    finds: "the conversion webhook's client configuration or review versions changed",
  },
  kindChanged: {
    severity: 'error',
    finds:
      'spec.names.kind changed: the API server refuses the update of an established CRD (the kind is immutable), and every manifest and client names the kind',
  },
  listKindChanged: { severity: 'error', finds: 'spec.names.listKind changed: typed clients decode lists by it' },
  pluralChanged: { severity: 'error', finds: 'spec.names.plural changed: the resource path of every client' },
  singularChanged: { severity: 'error', finds: 'spec.names.singular changed: kubectl commands that use it' },
  shortNamesRemoved: { severity: 'error', finds: 'a short name is gone: kubectl commands and scripts that use it' },
  shortNamesAdded: { severity: 'warning', finds: 'a new short name (it may shadow another resource in kubectl)' },
  categoriesRemoved: { severity: 'error', finds: 'a category is gone: kubectl get CATEGORY no longer lists the kind' },
  categoriesAdded: { severity: 'warning', finds: 'a new category: kubectl get CATEGORY (all, say) lists the kind' },
  printerColumnRemoved: {
    severity: 'warning',
    finds: 'a printer column is gone (kubectl get output; no object or API client is affected)',
  },
  printerColumnChanged: { severity: 'warning', finds: "a printer column's type, path, format or priority changed" },
  printerColumnAdded: { severity: 'warning', finds: 'a new printer column' },
  selectableFieldRemoved: {
    severity: 'error',
    finds: 'a selectable field is gone: list requests with a field selector on it are refused',
  },
  selectableFieldAdded: { severity: 'warning', finds: 'a new selectable field' },
  servedVersionDifference: {
    severity: 'error',
    crdify: 'served version validator (every property validation)',
    finds:
      "two served versions' schemas differ where the old revision's did not (a field one lacks, a tighter bound...) and conversion is None: an object written through one and written back through the other is pruned or refused",
  },
  servedVersionDifferenceConverted: {
    severity: 'warning',
    crdify: 'served version validator (conversion: Ignore skips it)',
    finds:
      "two served versions' schemas differ where the old revision's did not, and a conversion webhook is to bridge them",
  },
  statusSubresourceAdded: {
    severity: 'error',
    finds:
      'the status subresource was enabled: writes to the object no longer change its status (a controller that writes status with the object loses it; a create drops it)',
  },
  statusSubresourceRemoved: {
    severity: 'error',
    finds:
      'the status subresource is gone: writes to /status get 404, and every write to the object changes its status again',
  },
  scaleSubresourceAdded: {
    severity: 'warning',
    finds: 'a scale subresource: kubectl scale and autoscalers can now set the replicas',
  },
  scaleSubresourceRemoved: {
    severity: 'error',
    finds: 'the scale subresource is gone: kubectl scale and the autoscalers that use /scale get 404',
  },
  scaleReplicasPathChanged: {
    severity: 'error',
    finds:
      "the scale subresource's specReplicasPath or statusReplicasPath changed: /scale reads and writes another field than stored objects hold their replicas in",
  },
  scaleLabelSelectorPathChanged: {
    severity: 'error',
    finds: "the scale subresource's labelSelectorPath changed or is gone: autoscalers select other pods, or none",
  },
  scaleLabelSelectorPathAdded: {
    severity: 'warning',
    finds: 'the scale subresource got a labelSelectorPath: autoscalers can now find the pods',
  },
  // Each field of each version's schema.
  existingFieldRemoval: {
    severity: 'error',
    crdify: 'existingFieldRemoval',
    finds: 'a field is gone from the schema: the API server prunes it from every read and erases it on the next write',
  },
  type: {
    severity: 'error',
    crdify: 'type',
    finds:
      "a field's type changed (x-kubernetes-int-or-string counts): stored values no longer validate (what is below it is not compared)",
  },
  enum: {
    severity: 'error',
    crdify: 'enum',
    finds: 'an enum was put on a field, or values were taken out of one: stored values may no longer validate',
  },
  enumValueAdded: {
    severity: 'warning',
    crdify: 'enum (additionPolicy)',
    finds: 'an enum allows more values: clients that switch on it may meet one they do not know',
  },
  defaultAdded: {
    severity: 'warning',
    crdify: 'default',
    finds: 'a field got a default: it appears on every read of an object without it',
  },
  defaultChanged: {
    severity: 'error',
    crdify: 'default',
    finds:
      "a field's default changed: objects without the field read differently, and new ones are created differently",
  },
  defaultRemoved: {
    severity: 'error',
    crdify: 'default',
    finds: "a field's default is gone: objects that relied on it no longer get it",
  },
  maximum: { severity: 'error', crdify: 'maximum', finds: 'a maximum was added or lowered (or made exclusive)' },
  maxLength: { severity: 'error', crdify: 'maxLength', finds: 'a maxLength was added or lowered' },
  maxItems: { severity: 'error', crdify: 'maxItems', finds: 'a maxItems was added or lowered' },
  maxProperties: { severity: 'error', crdify: 'maxProperties', finds: 'a maxProperties was added or lowered' },
  minimum: { severity: 'error', crdify: 'minimum', finds: 'a minimum was added or raised (or made exclusive)' },
  minLength: { severity: 'error', crdify: 'minLength', finds: 'a minLength was added or raised' },
  minItems: { severity: 'error', crdify: 'minItems', finds: 'a minItems was added or raised' },
  minProperties: { severity: 'error', crdify: 'minProperties', finds: 'a minProperties was added or raised' },
  multipleOf: { severity: 'error', finds: 'a multipleOf was added or changed' },
  required: {
    severity: 'error',
    crdify: 'required',
    finds: 'a field became required: objects without it are refused on their next write',
  },
  pattern: {
    severity: 'error',
    crdify: 'pattern',
    finds: 'a pattern was added or changed: stored values may no longer match',
  },
  patternRemoved: {
    severity: 'warning',
    crdify: 'pattern (removalPolicy)',
    finds: 'a pattern is gone: values it kept out are now taken',
  },
  format: { severity: 'error', finds: 'a format was added or changed: stored values may no longer validate' },
  nullable: {
    severity: 'error',
    crdify: 'nullable',
    finds: 'a field is no longer nullable: stored nulls are pruned or refused',
  },
  nullableAdded: {
    severity: 'warning',
    crdify: 'nullable (additionPolicy)',
    finds: 'a field became nullable: clients may read null',
  },
  valueValidationChanged: {
    severity: 'error',
    finds: 'allOf, anyOf, oneOf or not changed: what they admit may be narrower',
  },
  validationRuleAdded: {
    severity: 'error',
    finds: 'a CEL rule (x-kubernetes-validations) was added: writes of objects it refuses fail',
  },
  validationRuleChanged: { severity: 'error', finds: "a CEL rule's expression (or optionalOldSelf) changed" },
  validationRuleRemoved: { severity: 'warning', finds: 'a CEL rule is gone: what it refused is now taken' },
  validationRuleMessageChanged: {
    severity: 'warning',
    finds: "a CEL rule's message, messageExpression, reason or fieldPath changed (what it admits did not)",
  },
  listType: {
    severity: 'error',
    finds: 'x-kubernetes-list-type changed (absent counts as atomic): merges and uniqueness change',
  },
  listMapKeys: {
    severity: 'error',
    finds: 'x-kubernetes-list-map-keys changed: the identity of list items for server-side apply',
  },
  mapType: {
    severity: 'error',
    finds: 'x-kubernetes-map-type changed (absent counts as granular): server-side apply merges differently',
  },
  preserveUnknownFieldsRemoved: {
    severity: 'error',
    finds: 'x-kubernetes-preserve-unknown-fields was taken away: unknown fields there are pruned',
  },
  preserveUnknownFieldsAdded: {
    severity: 'warning',
    finds: 'x-kubernetes-preserve-unknown-fields was set: unknown fields there are kept',
  },
  embeddedResource: {
    severity: 'error',
    finds: 'x-kubernetes-embedded-resource changed: what the field must hold (apiVersion, kind, metadata) changed',
  },
  description: {
    severity: 'warning',
    crdify: 'description',
    finds:
      "a field's description was written, reworded or taken away (whitespace alone is no change): nothing stored changes, but a new meaning for a field is a break no schema shows",
  },
} as const satisfies Record<string, { severity: Severity; finds: string; crdify?: string }>;

/**
 * The rules whose findings the objects decide: what they break is stored objects (a value refused, dropped or read
 * differently through a version), so that where the objects are known and none of them is affected, a finding of
 * error severity is a warning that says so (evidence.ts). The other rules' findings stand whatever the objects
 * hold: the API server refuses the CRD update itself (scope, kind, plural, a stored version removed), or clients
 * break regardless of the objects (a version removed or unserved, the other names, subresources, selectable fields).
 */
export const decidedByObjects: ReadonlySet<CrdRevisionRule> = new Set<CrdRevisionRule>([
  'conversionWebhookRemoved',
  'servedVersionDifference',
  'servedVersionDifferenceConverted',
  'existingFieldRemoval',
  'type',
  'enum',
  'enumValueAdded',
  'defaultAdded',
  'defaultChanged',
  'defaultRemoved',
  'maximum',
  'maxLength',
  'maxItems',
  'maxProperties',
  'minimum',
  'minLength',
  'minItems',
  'minProperties',
  'multipleOf',
  'required',
  'pattern',
  'patternRemoved',
  'format',
  'nullable',
  'nullableAdded',
  'valueValidationChanged',
  'validationRuleAdded',
  'validationRuleChanged',
  'validationRuleRemoved',
  'validationRuleMessageChanged',
  'listType',
  'listMapKeys',
  'mapType',
  'preserveUnknownFieldsRemoved',
  'preserveUnknownFieldsAdded',
  'embeddedResource',
  'description',
]);

export type Severity = 'error' | 'warning';
export type CrdRevisionRule = keyof typeof crdRevisionRules;

export function isCrdRevisionRule(name: string): name is CrdRevisionRule {
  return Object.hasOwn(crdRevisionRules, name);
}
