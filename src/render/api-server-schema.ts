import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { apiServerRuleFor } from '../contract/schema/kubernetes-formats.ts';

// A contract's schema as the CRD crdgate renders carries it: a format of crdgate's own (quantity, dns1123-label),
// which kube-apiserver does not know (it warns "unrecognized format" on every apply, and checks nothing), becomes a
// CEL rule in crdgate's words that the API server holds itself, so the schema holds while crdgate is down. The format
// is left out rather than named in a form the API server knows (k8s-short-name since 1.34): a string field with a
// format the API server knows also passes a list, by kube-openapi's type check, and that message ("must be of type
// k8s-short-name") is not crdgate's. crdgate's webhook still validates with the contract's schema and its own words;
// where the API server refuses first, the rule's message, crdgate's, is what a client sees.

/** The schema the CRD carries: a copy, with the rules in place of crdgate's own formats. */
export function schemaForApiServer(schema: JSONSchemaProps): JSONSchemaProps {
  const copy = structuredClone(schema);
  inPlace(copy);
  return copy;
}

/**
 * Where a CEL rule may stand: properties, items and additionalProperties all the way down. Not inside allOf,
 * anyOf, oneOf or not, where a structural schema takes no rule: a format of crdgate's own there stays as written.
 */
function inPlace(node: JSONSchemaProps): void {
  const rule = node.type === 'string' && node.format !== undefined ? apiServerRuleFor(node.format) : undefined;
  if (rule !== undefined) {
    delete node.format;
    if (rule.maxLength !== undefined && (node.maxLength === undefined || node.maxLength > rule.maxLength))
      node.maxLength = rule.maxLength;
    node['x-kubernetes-validations'] = [
      ...(node['x-kubernetes-validations'] ?? []),
      { rule: rule.rule, message: rule.message },
    ];
  }
  for (const child of Object.values(node.properties ?? {})) inPlace(child);
  if (node.items !== undefined) inPlace(node.items);
  if (typeof node.additionalProperties === 'object') inPlace(node.additionalProperties);
}
