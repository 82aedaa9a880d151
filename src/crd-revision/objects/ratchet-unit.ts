import type { FieldErrorType } from '../../contract/values/field-error.ts';
import { parseFieldPath, renderFieldPath } from '../../contract/values/field-path.ts';
import { isPlainObject } from '../../contract/values/kube-object.ts';

/**
 * The field a write must change for the API server to judge a faulty value again. Ratcheting spares the faults
 * found in a value as long as that value is unchanged from the stored object's; it follows values from the old
 * object to the new by name and by list-map key, but not into the items of other lists (atomic, the default, and
 * set), which are judged afresh whenever their list changes: there the list is what must stay unchanged. A missing
 * required field is found by its parent, which is what must stay unchanged for it. `schema` is the version's
 * openAPIV3Schema.
 */
export function ratchetUnit(schema: unknown, field: string, type: FieldErrorType): string {
  const segments = parseFieldPath(field);
  const judged = type === 'FieldValueRequired' ? segments.slice(0, -1) : segments;
  let node: unknown = schema;
  for (const [index, segment] of judged.entries()) {
    if (!isPlainObject(node)) break;
    if (typeof segment === 'number') {
      if (node['x-kubernetes-list-type'] !== 'map') return renderFieldPath('', judged.slice(0, index));
      node = node.items;
    } else if (isPlainObject(node.properties) && Object.hasOwn(node.properties, segment)) {
      node = node.properties[segment];
    } else {
      node = node.additionalProperties;
    }
  }
  return renderFieldPath('', judged);
}

/**
 * The keyword or rule behind one of the API server's field errors: its type says it for most (enum, required,
 * maxLength...), the words of kube-openapi's message for the rest of the schema's keywords; what is left is a CEL
 * rule (x-kubernetes-validations), whose message is the rule's own.
 */
export function keywordOf(type: FieldErrorType, message: string, value: unknown): string {
  switch (type) {
    case 'FieldValueNotSupported':
      return 'enum';
    case 'FieldValueRequired':
      return 'required';
    case 'FieldValueTooLong':
      return 'maxLength';
    case 'FieldValueTooMany':
      return Array.isArray(value) ? 'maxItems' : 'maxProperties';
    case 'FieldValueDuplicate':
      return 'x-kubernetes-list-type';
    case 'FieldValueTypeInvalid':
      // A format's fault is worded as a type's: `must be of type date-time`.
      return /in body must be of type (integer|number|string|boolean|object|array)\b/.test(message) ? 'type' : 'format';
    default: {
      const combination = /must (?:not )?validate .*\((allOf|anyOf|oneOf|not)\)$/.exec(message);
      if (combination) return combination[1]!;
      return openApiKeywords.find(([, words]) => words.test(message))?.[0] ?? 'x-kubernetes-validations';
    }
  }
}

/** kube-openapi's words for each keyword's fault (k8s.io/kube-openapi/pkg/validation/errors). */
const openApiKeywords: ReadonlyArray<[string, RegExp]> = [
  ['pattern', /in body should match '/],
  ['maximum', /in body should be less than /],
  ['minimum', /in body should be greater than /],
  ['minLength', /in body should be at least \d+ chars long/],
  ['minItems', /in body should have at least \d+ items/],
  ['minProperties', /in body should have at least \d+ properties/],
  ['multipleOf', /in body should be a multiple of /],
];

/**
 * The field of a fault the API server names no field for: allOf, anyOf, oneOf and not say theirs in the message
 * (`"spec.size" must validate at least one schema (anyOf)`). '' for the rest (the note that rules were not checked).
 */
export function fieldOfUnnamedFault(message: string): string {
  return /^Invalid value: "": "([^"]+)" must (?:not )?validate /.exec(message)?.[1] ?? '';
}
