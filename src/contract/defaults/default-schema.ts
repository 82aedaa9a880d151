import type { JSONSchemaProps } from '../schema/json-schema-props.ts';

// The hub schema along a default's path: what the definition's checks hold a default to, and what the policy
// compiler bounds its cost by.

/**
 * The schema at `steps` (`*` for each item of a list), undefined below a field kept as it comes
 * (x-kubernetes-preserve-unknown-fields), or a sentence naming the first step the schema does not declare.
 */
export function schemaAt(
  schema: JSONSchemaProps,
  steps: readonly string[],
  path: string,
): JSONSchemaProps | undefined | string {
  let node = schema;
  for (const [index, step] of steps.entries()) {
    const at = index === 0 ? 'the hub schema' : `${steps.slice(0, index).join('.').replaceAll('.*', '[*]')}`;
    if (step === '*') {
      if (node.type !== 'array' || node.items === undefined)
        return `${at} is not a list in the hub schema, so [*] has no items to go into`;
      node = node.items;
      continue;
    }
    const declared =
      node.properties?.[step] ??
      (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
    if (declared !== undefined) {
      node = declared;
      continue;
    }
    if (node['x-kubernetes-preserve-unknown-fields'] === true || node.additionalProperties === true) return undefined;
    return `${at} declares no field ${step} in the hub schema (${path})`;
  }
  return node;
}
