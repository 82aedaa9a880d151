import { intOrStringSchema, quantitySchema } from './controller-gen.fixture.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';

// A structural schema of the size of the largest operator CRDs (the Prometheus Operator's Prometheus: 830 KB of
// YAML, 2,200 schema nodes once translated; this one: 530 KB of JSON, 2,550 nodes), generated rather than copied:
// objects nested five deep, lists of objects keyed by name, maps, enums, patterns, formats, int-or-string, quantities
// and nullable fields, each with a description as controller-gen writes one. Its validator is megabytes of generated code, which is what the
// split into parts (split-schema.ts) is measured against.

/** Fields per object: one of each kind below, then again, so every kind appears at every level. */
const fieldKinds = [
  'text',
  'choice',
  'label',
  'port',
  'flag',
  'intOrString',
  'quantity',
  'labels',
  'list',
  'object',
  'time',
  'nullableText',
] as const;
type FieldKind = (typeof fieldKinds)[number];

const description = (what: string) =>
  `${what}. Set by the operator's users; the operator reads it when it reconciles the resource and reports what it did in the status. Changes take effect at the next rollout.`;

function fieldSchema(kind: FieldKind, depth: number, name: string): JSONSchemaProps {
  const about = { description: description(`${name}, a ${kind} field`) };
  switch (kind) {
    case 'text':
      return { ...about, type: 'string', maxLength: 253 };
    case 'choice':
      return { ...about, type: 'string', enum: ['Always', 'IfNotPresent', 'Never'] };
    case 'label':
      return { ...about, type: 'string', pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', maxLength: 63 };
    case 'port':
      return { ...about, type: 'integer', format: 'int32', minimum: 1, maximum: 65535 };
    case 'flag':
      return { ...about, type: 'boolean' };
    case 'intOrString':
      return { ...about, ...intOrStringSchema };
    case 'quantity':
      return { ...about, ...quantitySchema };
    case 'labels':
      return { ...about, type: 'object', additionalProperties: { type: 'string' } };
    case 'list':
      return depth > 0
        ? {
            ...about,
            type: 'array',
            items: objectSchema(depth - 1, `${name} item`),
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            maxItems: 64,
          }
        : { ...about, type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' };
    case 'object':
      return depth > 0
        ? objectSchema(depth - 1, name)
        : { ...about, type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    case 'time':
      return { ...about, type: 'string', format: 'date-time' };
    case 'nullableText':
      return { ...about, type: 'string', nullable: true };
  }
}

function objectSchema(depth: number, name: string, width = fieldKinds.length): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = {
    name: { description: description(`${name}'s name`), type: 'string', minLength: 1 },
  };
  for (let index = 0; index < width; index++) {
    const kind = fieldKinds[index % fieldKinds.length]!;
    properties[`${kind}${index}`] = fieldSchema(kind, depth, `${name}.${kind}${index}`);
  }
  return { description: description(name), type: 'object', required: ['name'], properties };
}

/** Objects this deep under each of spec's sections; each level has two nested kinds (a list and an object). */
const sectionDepth = 4;

/** A resource's schema: spec of `sections` objects nested `sectionDepth` deep, and a status. */
export function largeStructuralSchema(sections = 4): JSONSchemaProps {
  const spec: Record<string, JSONSchemaProps> = {};
  for (let index = 0; index < sections; index++)
    spec[`section${index}`] = objectSchema(sectionDepth, `section${index}`);
  return {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: spec },
      status: objectSchema(1, 'status'),
    },
  };
}

/**
 * A valid value for a schema built here, every declared field set (one item in each list), so that every part of
 * the validator runs. `variant` changes the values, not the shape.
 */
export function fullValue(schema: JSONSchemaProps, variant = 0): unknown {
  if (schema.enum) return schema.enum[variant % schema.enum.length];
  if (schema['x-kubernetes-int-or-string'])
    return schema.pattern ? `${variant + 1}Gi` : variant % 2 === 0 ? 8080 : '25%';
  switch (schema.type) {
    case 'string':
      return schema.format === 'date-time'
        ? '2026-11-27T09:00:00Z'
        : schema.pattern
          ? `name-${variant}`
          : `text ${variant}`;
    case 'integer':
      return 1 + (variant % 100);
    case 'boolean':
      return variant % 2 === 0;
    case 'array':
      return schema.items?.type === 'object' ? [fullValue(schema.items, variant)] : [`a${variant}`, `b${variant}`];
    case 'object': {
      if (schema.properties === undefined)
        return schema.additionalProperties ? { team: `t${variant}`, tier: 'web' } : { any: variant };
      return Object.fromEntries(
        Object.entries(schema.properties).map(([name, child]) => [
          name,
          name === 'name' ? `item-${variant}` : fullValue(child, variant),
        ]),
      );
    }
    default:
      throw new Error(`no value for a schema of type ${String(schema.type)}`);
  }
}
