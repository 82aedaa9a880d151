import type { JSONSchemaProps } from '../src/contract/schema/json-schema-props.ts';

// A pattern-heavy schema for `--large-schema`: 240 string fields, each with a pattern of its own (the kinds operator
// CRDs carry: quantities, DNS names, durations, versions, addresses, dates, label values, with a numbered prefix so
// that no two are the same string and each is compiled), in a spec and a list of 8 items; and objects whose every
// value matches, as ECMAScript and Go read them both.

const kinds: ReadonlyArray<{ pattern: (n: number) => string; value: (n: number) => string }> = [
  {
    pattern: (n) =>
      `^q${n}:(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$`,
    value: (n) => `q${n}:${n + 1}Gi`,
  },
  {
    pattern: (n) => `^h${n}\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`,
    value: (n) => `h${n}.db-${n}.example.com`,
  },
  { pattern: (n) => `^d${n}:([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$`, value: (n) => `d${n}:1h${n % 60}m30s` },
  {
    pattern: (n) => `^v${n}:(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?$`,
    value: (n) => `v${n}:1.${n}.0-rc.1`,
  },
  {
    pattern: (n) =>
      `^i${n}:((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$`,
    value: (n) => `i${n}:10.0.${n % 256}.1`,
  },
  {
    pattern: (n) =>
      `^t${n}:[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$`,
    value: (n) => `t${n}:2026-11-${String((n % 28) + 1).padStart(2, '0')}T10:00:00Z`,
  },
  {
    pattern: (n) => `^l${n}:(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$`,
    value: (n) => `l${n}:app.kubernetes.io_name-${n}`,
  },
  {
    pattern: (n) => `^u${n}:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`,
    value: (n) => `u${n}:0b7e5d2c-${String(n).padStart(4, '0')}-4c1e-9a3f-1234567890ab`,
  },
];

const fieldsPerPlace = 120;
const listItems = 8;

function fields(offset: number): Array<{ name: string; pattern: string; value: string }> {
  return Array.from({ length: fieldsPerPlace }, (_, index) => {
    const n = offset + index;
    const kind = kinds[n % kinds.length]!;
    return { name: `f${n}`, pattern: kind.pattern(n), value: kind.value(n) };
  });
}

const specFields = fields(0);
const itemFields = fields(fieldsPerPlace);

const stringsOf = (list: typeof specFields): Record<string, JSONSchemaProps> =>
  Object.fromEntries(list.map((field) => [field.name, { type: 'string', pattern: field.pattern }]));

export function patternHeavySchema(): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          ...stringsOf(specFields),
          items: { type: 'array', items: { type: 'object', properties: stringsOf(itemFields) } },
        },
      },
    },
  };
}

/** A valid object: every field set, the list full. */
export function patternHeavyObject(): unknown {
  const valuesOf = (list: typeof specFields) => Object.fromEntries(list.map((field) => [field.name, field.value]));
  return {
    apiVersion: 'bench.example.com/v1',
    kind: 'Patterned',
    metadata: { name: 'patterned' },
    spec: { ...valuesOf(specFields), items: Array.from({ length: listItems }, () => valuesOf(itemFields)) },
  };
}
