import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import type { JSONSchemaProps } from '../../../../src/contract/schema/json-schema-props.ts';
import { fullValue, isRecord, minimalValue, type Json } from '../differential/schema-cases.ts';
import { storageVersionOf, type Crd } from './crd.ts';
import type { SeededRandom } from './seeded-random.ts';

const maxDepth = 6;
const letters = 'abcdefghijklmnopqrstuvwxyz';

/**
 * Objects of a CRD's storage version made from its schema: the minimal one, the full one, and `count` more with
 * seeded choices (optional fields in or out, enum values, lengths, numbers within their bounds), so that the
 * objects differ where a revision bites. Some may break a CEL rule of the CRD: the API server refuses those when
 * they are stored, and the observer leaves them out and counts them. Where no value can be made for a field (a
 * pattern no candidate meets), the `example` object's value there is taken.
 */
export function sampleObjects(
  crd: Crd,
  count: number,
  random: SeededRandom,
  namespace: string | undefined,
  example?: KubeObject,
): KubeObject[] {
  const version = storageVersionOf(crd);
  const schema = version.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const bodies: Array<Json | undefined> = [
    minimalValue(schema) ?? (example as Json | undefined),
    fullValue(schema, 4) ?? (example as Json | undefined),
  ];
  for (let index = 0; index < count; index += 1)
    bodies.push(sampleValue(schema, random, 0, example as Json | undefined));
  return bodies
    .filter(
      (body): body is { [key: string]: Json } => body !== null && typeof body === 'object' && !Array.isArray(body),
    )
    .map((body, index) => {
      const { metadata: _metadata, status: _status, ...rest } = body;
      return {
        ...rest,
        apiVersion: `${crd.spec.group}/${version.name}`,
        kind: crd.spec.names.kind,
        metadata: { name: `object-${index}`, ...(crd.spec.scope === 'Namespaced' && namespace ? { namespace } : {}) },
      } as KubeObject;
    });
}

function sampleValue(
  schema: JSONSchemaProps,
  random: SeededRandom,
  depth: number,
  example: Json | undefined,
): Json | undefined {
  return made(schema, random, depth, example) ?? example;
}

function made(
  schema: JSONSchemaProps,
  random: SeededRandom,
  depth: number,
  example: Json | undefined,
): Json | undefined {
  if (schema.enum && schema.enum.length > 0) return random.pick(schema.enum) as Json;
  if (
    schema['x-kubernetes-int-or-string'] ||
    schema['x-kubernetes-embedded-resource'] ||
    schema.pattern ||
    schema.format
  )
    return example ?? minimalValue(schema, depth);
  if (schema.default !== undefined && random.next() < 0.5) return schema.default as Json;
  switch (schema.type) {
    case 'string': {
      const min = schema.minLength ?? 0;
      const max = Math.min(schema.maxLength ?? 12, Math.max(min, 12));
      return Array.from({ length: random.between(Math.max(min, 1), Math.max(min, max, 1)) }, () =>
        random.pick([...letters]),
      ).join('');
    }
    case 'integer': {
      const min = schema.minimum === undefined ? 0 : schema.minimum + (schema.exclusiveMinimum ? 1 : 0);
      const max = schema.maximum === undefined ? min + 100 : schema.maximum - (schema.exclusiveMaximum ? 1 : 0);
      if (schema.multipleOf !== undefined) return minimalValue(schema, depth);
      return max < min ? minimalValue(schema, depth) : random.between(min, max);
    }
    case 'boolean':
      return random.next() < 0.5;
    case 'object':
      return sampleObject(schema, random, depth, isRecord(example) ? example : undefined);
    case 'array': {
      if (!schema.items || depth >= maxDepth) return minimalValue(schema, depth);
      const min = schema.minItems ?? 0;
      const max = Math.min(schema.maxItems ?? 3, Math.max(min, 3));
      const items: Json[] = [];
      const keys = new Set<string>();
      const keyOf = (item: Json): string => {
        if (schema['x-kubernetes-list-type'] === 'set') return JSON.stringify(item);
        if (schema['x-kubernetes-list-type'] === 'map')
          return JSON.stringify(
            (schema['x-kubernetes-list-map-keys'] ?? []).map((key) => (item as Record<string, Json>)?.[key]),
          );
        return String(items.length);
      };
      for (let tries = 0; items.length < random.between(min, Math.max(min, max)) && tries < 10; tries += 1) {
        const item = sampleValue(schema.items, random, depth + 1, Array.isArray(example) ? example[0] : undefined);
        if (item === undefined || keys.has(keyOf(item))) continue;
        keys.add(keyOf(item));
        items.push(item);
      }
      return items.length >= min ? items : minimalValue(schema, depth);
    }
    default:
      return minimalValue(schema, depth);
  }
}

function sampleObject(
  schema: JSONSchemaProps,
  random: SeededRandom,
  depth: number,
  example: { [key: string]: Json } | undefined,
): Json | undefined {
  if (depth >= maxDepth) return minimalValue(schema, depth);
  const value: Record<string, Json> = {};
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (depth === 0 && ['metadata', 'apiVersion', 'kind', 'status'].includes(name)) continue;
    const required = schema.required?.includes(name) ?? false;
    if (!required && random.next() < 0.4) continue;
    const child = sampleValue(property, random, depth + 1, example?.[name]);
    if (child === undefined) {
      if (required) return example ?? minimalValue(schema, depth);
      continue;
    }
    value[name] = child;
  }
  if (typeof schema.additionalProperties === 'object') {
    for (let index = random.between(0, 2); index > 0; index -= 1) {
      const child = sampleValue(schema.additionalProperties, random, depth + 1, undefined);
      if (child !== undefined) value[`key${index}`] = child;
    }
  }
  if (schema.maxProperties !== undefined && Object.keys(value).length > schema.maxProperties)
    return minimalValue(schema, depth);
  if (schema.minProperties !== undefined && Object.keys(value).length < schema.minProperties)
    return fullValue(schema, 2, depth);
  return value;
}
