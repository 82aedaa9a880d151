import type { JSONSchemaProps, JSONValue } from '../contract/schema/json-schema-props.ts';

// An example object for a kind crdgate knows only by its CRD: the fields the schema requires, each with the
// simplest value its schema allows (its default, its first enum value, its lower bound). The scaffold keeps it only
// when crdgate's validator takes it; some schemas (a pattern, a CEL rule) ask more than this can guess.

/** The spec (or the whole object, for a kind without one) the hub schema requires at least. */
export function exampleSpec(schema: JSONSchemaProps): JSONValue | undefined {
  const spec = schema.properties?.['spec'];
  return spec === undefined ? undefined : exampleValue(spec, 0);
}

const formatExamples: Readonly<Record<string, string>> = {
  'date-time': '2024-05-01T12:00:00Z',
  date: '2024-05-01',
  byte: 'ZXhhbXBsZQ==',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uuid: '00000000-0000-0000-0000-000000000000',
  quantity: '1',
  'dns1123-label': 'example',
  'dns1123-subdomain': 'example.com',
};

function exampleValue(schema: JSONSchemaProps, depth: number): JSONValue {
  if (schema.default !== undefined) return structuredClone(schema.default);
  if (schema.enum && schema.enum.length > 0) return structuredClone(schema.enum[0]!);
  // An int-or-string: a number is both an integer and a Quantity.
  if (schema['x-kubernetes-int-or-string']) return Math.max(1, schema.minimum ?? 1);
  switch (schema.type) {
    case 'integer':
    case 'number': {
      const low = schema.minimum === undefined ? 1 : schema.exclusiveMinimum ? schema.minimum + 1 : schema.minimum;
      return schema.maximum !== undefined && low > schema.maximum
        ? schema.maximum
        : Math.max(low, Math.min(1, schema.maximum ?? 1));
    }
    case 'boolean':
      return false;
    case 'string': {
      if (schema.format !== undefined && formatExamples[schema.format] !== undefined)
        return formatExamples[schema.format]!;
      const text = 'example';
      return text
        .padEnd(schema.minLength ?? 0, 'x')
        .slice(0, Math.max(schema.maxLength ?? text.length, schema.minLength ?? 0));
    }
    case 'array': {
      const count = Math.min(schema.minItems ?? 0, 3);
      return schema.items && depth < 16
        ? Array.from({ length: count }, () => exampleValue(schema.items!, depth + 1))
        : [];
    }
    default: {
      const object: Record<string, JSONValue> = {};
      if (depth < 16) {
        for (const name of schema.required ?? []) {
          const property = schema.properties?.[name];
          if (property) object[name] = exampleValue(property, depth + 1);
        }
      }
      return object;
    }
  }
}
