import type { SchemaObject } from 'ajv';

const definitionsKeyword = 'definitions';

/** The keywords whose values are the schemas of an object's fields and an array's items (structural places). */
const structuralChildKeywords = ['properties', 'items', 'additionalProperties'] as const;

/**
 * Moves parts of a translated schema (to-ajv-schema.ts) into `definitions`, each referenced by `$ref`, so that no
 * part holds more than `maxNodes` schema nodes inline. Compiled with ajv's `inlineRefs: false`, each part becomes a
 * function of its own.
 *
 * Why: ajv inlines a whole schema without references into one function, and for an operator's CRD (the Prometheus
 * Operator's Prometheus is 830 KB of YAML) that is a function of megabytes. V8 optimises a function once it is hot;
 * its Maglev compiler has no size limit (TurboFan has) and took over a gigabyte of native memory for the validator
 * of a schema of that size (large-schema.fixture.ts), over the server's memory limit.
 *
 * Only the fields' and items' schemas move: allOf, anyOf, oneOf, not and if/else stay whole in their node, since
 * the error mapping folds a junctor's branch errors by their schema path under the junctor. The errors are the
 * same but for their schemaPath, which then starts at the part's definition (split-schema.test.ts).
 */
export function splitSchema(root: SchemaObject, maxNodes: number): SchemaObject {
  const definitions: Record<string, SchemaObject> = {};
  const split = (node: SchemaObject): { node: SchemaObject; inlineNodes: number } => {
    const copy: SchemaObject = { ...node };
    const children: { keyword: string; name: string | undefined; inlineNodes: number }[] = [];
    let inlineNodes = countSchemaNodes(node, structuralChildKeywords);
    for (const keyword of structuralChildKeywords) {
      const value: unknown = node[keyword];
      if (!isSchemaObject(value)) continue;
      if (keyword === 'properties') {
        const properties: Record<string, SchemaObject> = {};
        for (const [name, child] of Object.entries(value)) {
          const result = split(child as SchemaObject);
          properties[name] = result.node;
          children.push({ keyword, name, inlineNodes: result.inlineNodes });
          inlineNodes += result.inlineNodes;
        }
        copy.properties = properties;
      } else {
        const result = split(value);
        copy[keyword] = result.node;
        children.push({ keyword, name: undefined, inlineNodes: result.inlineNodes });
        inlineNodes += result.inlineNodes;
      }
    }
    // The largest fields move out first, until what stays inline fits.
    children.sort((a, b) => b.inlineNodes - a.inlineNodes);
    for (const child of children) {
      if (inlineNodes <= maxNodes || child.inlineNodes <= 1) break;
      const name = `part${Object.keys(definitions).length}`;
      const ref = { $ref: `#/${definitionsKeyword}/${name}` };
      if (child.name === undefined) {
        definitions[name] = copy[child.keyword] as SchemaObject;
        copy[child.keyword] = ref;
      } else {
        const properties = copy.properties as Record<string, SchemaObject>;
        definitions[name] = properties[child.name]!;
        properties[child.name] = ref;
      }
      inlineNodes -= child.inlineNodes - 1;
    }
    return { node: copy, inlineNodes };
  };
  const { node } = split(root);
  return Object.keys(definitions).length === 0 ? node : { ...node, [definitionsKeyword]: definitions };
}

/** The schema nodes in a translated schema (an enum's values are not nodes), less what sits under `skip`'s keywords. */
export function countSchemaNodes(node: unknown, skip: readonly string[] = []): number {
  if (Array.isArray(node)) return node.reduce<number>((sum, item) => sum + countSchemaNodes(item), 0);
  if (!isSchemaObject(node)) return 0;
  let count = 1;
  for (const [keyword, value] of Object.entries(node)) {
    if (skip.includes(keyword) || keyword === 'enum') continue;
    if (keyword === 'properties' && isSchemaObject(value))
      count += Object.values(value).reduce<number>((sum, child) => sum + countSchemaNodes(child), 0);
    else count += countSchemaNodes(value);
  }
  return count;
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
