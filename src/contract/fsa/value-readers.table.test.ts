import { describe, expect, it } from 'vitest';
import { judge, loadCrd } from '../../api-server-engine/engine.ts';
import { intOrStringSchema, quantitySchema } from '../schema/controller-gen.fixture.ts';
import type { JSONSchemaProps } from '../schema/json-schema-props.ts';
import type { ValueReading } from './classifier-form.ts';
import { readingProblem } from './classifier-reach.ts';
import { whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';
import { isCannotRead, readInteger, readQuantity, readRelease, readString } from './value-readers.ts';

// Issue 40: readQuantity(1024) read nothing, so a rule let 500Gi -> 1024 through on a quantity field, which holds
// integers as well as strings. For every schema shape, the values kube-apiserver accepts there (asked of its own
// pipeline, the API server engine, on a small CRD with one field per shape, and read back as it stores them), and
// for every library reader: a reader that defineContract lets read a field of that shape (classifier-reach.ts) reads
// each accepted value or cannotReads it, never leaves it as undefined ("the schema refuses it"); and where
// defineContract refuses the reader, some accepted value proves the refusal needed.

/** Each shape a field may have, as a CRD writes it (controller-gen's renderings among them). */
const shapes: Record<string, JSONSchemaProps> = {
  string: { type: 'string' },
  stringWithFormat: { type: 'string', format: 'date-time' },
  stringWithPattern: { type: 'string', pattern: '^[0-9]+(\\.[0-9]+)*$' },
  stringWithEnum: { type: 'string', enum: ['16.4', 'latest', ''] },
  stringBounded: { type: 'string', minLength: 1, maxLength: 8 },
  stringNullable: { type: 'string', nullable: true },
  integer: { type: 'integer' },
  integerInt32: { type: 'integer', format: 'int32' },
  integerInt64: { type: 'integer', format: 'int64', minimum: 0 },
  integerNullable: { type: 'integer', nullable: true },
  number: { type: 'number' },
  numberDouble: { type: 'number', format: 'double' },
  boolean: { type: 'boolean' },
  booleanNullable: { type: 'boolean', nullable: true },
  // intstr.IntOrString, and resource.Quantity as controller-gen renders them.
  intOrString: intOrStringSchema,
  intOrStringPercent: { ...intOrStringSchema, pattern: '^[0-9]+%?$' },
  quantity: quantitySchema,
  quantityNullable: { ...quantitySchema, nullable: true },
};

const candidates: unknown[] = [
  ...[0, 1, -1, 42, 1024, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1, 2 ** 53, 2 ** 60, -(2 ** 60), 2 ** 63],
  ...[1.5, -0.25, 0.1, 1e21],
  ...[
    '',
    'a',
    'x y',
    '1',
    '-1',
    '1024',
    '25%',
    '1Gi',
    '1.5Gi',
    '500m',
    '1e3',
    '+1',
    '.5',
    '1.',
    '1e2.5',
    '1E-3',
    '50GB',
    ' 1',
    '16.4',
    '16.4.0',
    'v16',
    'latest',
    '2024-05-01T10:00:00Z',
  ],
  ...[true, false, null],
];

const readers: Record<ValueReading, (raw: unknown) => unknown> = {
  integer: readInteger,
  string: readString,
  quantity: readQuantity,
  release: readRelease,
};

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'shapes.readers.example.com' },
  spec: {
    group: 'readers.example.com',
    names: { kind: 'Shape', plural: 'shapes' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: shapes } } } },
      },
    ],
  },
};

/** What the API server accepts for each shape, as it stores it: `absent` for a null it drops. */
const absent = Symbol('absent');
function acceptedValues(): Map<string, unknown[]> {
  const engineCrd = loadCrd(crd);
  expect(engineCrd.refusal).toEqual([]);
  const accepted = new Map<string, unknown[]>();
  for (const shape of Object.keys(shapes)) {
    const stored: unknown[] = [];
    for (const value of candidates) {
      const object = {
        apiVersion: 'readers.example.com/v1',
        kind: 'Shape',
        metadata: { name: 's', namespace: 'default' },
        spec: { [shape]: value },
      };
      const answer = judge(engineCrd, { operation: 'CREATE', object });
      if (!answer.allowed) continue;
      const spec = answer.object?.['spec'] as Record<string, unknown> | undefined;
      stored.push(spec !== undefined && Object.hasOwn(spec, shape) ? spec[shape] : absent);
    }
    accepted.set(shape, stored);
  }
  return accepted;
}

const show = (value: unknown) => (value === absent ? '(dropped)' : JSON.stringify(value));

describe('the library readers, against the values the API server accepts for each shape', () => {
  const accepted = acceptedValues();

  it('asks the API server of every shape, which accepts some of the candidates and refuses others', () => {
    for (const [shape, values] of accepted) {
      expect(values.length, shape).toBeGreaterThanOrEqual(2);
      expect(values.length, shape).toBeLessThan(candidates.length);
    }
    // What the readers' gaps were: integers in quantity fields, integers past 2^53, the empty string.
    expect(accepted.get('quantity')).toEqual(expect.arrayContaining([1024, 2 ** 53, 2 ** 60, '1e2.5']));
    expect(accepted.get('integer')).toEqual(expect.arrayContaining([2 ** 60]));
    expect(accepted.get('string')).toEqual(expect.arrayContaining(['']));
    expect(accepted.get('stringNullable')).toEqual(expect.arrayContaining([null]));
  });

  it('reads, or cannotReads, every accepted value of each shape a reader is let read', () => {
    const unread: string[] = [];
    const tally = { read: 0, cannotRead: 0, absent: 0 };
    for (const [reading, read] of Object.entries(readers) as [ValueReading, (raw: unknown) => unknown][]) {
      for (const [shape, values] of accepted) {
        if (readingProblem(reading, shapes[shape]!) !== undefined) continue;
        for (const value of values) {
          if (value === absent || value === null) {
            // A dropped null is an absent field, and a kept one (nullable) the classifier reads as absent too.
            const classifier = fieldClassifier({ path: 'f', read, compare: whenDifferent('x') });
            expect(classifier.classify({ f: null }, {}, { field: 'spec' }), `${shape}: null`).toEqual([]);
            tally.absent += 1;
            continue;
          }
          const reading_ = read(value);
          if (reading_ === undefined) unread.push(`${shape}: ${reading} leaves ${show(value)} unread`);
          else tally[isCannotRead(reading_) ? 'cannotRead' : 'read'] += 1;
        }
      }
    }
    expect(unread).toEqual([]);
    expect(tally.read).toBeGreaterThan(100);
    expect(tally.cannotRead).toBeGreaterThan(10);
  });

  it('lets each reader read the shapes it was made for', () => {
    const letRead = (reading: ValueReading) =>
      Object.keys(shapes).filter((shape) => readingProblem(reading, shapes[shape]!) === undefined);
    expect(letRead('integer')).toEqual(['integer', 'integerInt32', 'integerInt64', 'integerNullable']);
    expect(letRead('string')).toEqual([
      'string',
      'stringWithFormat',
      'stringWithPattern',
      'stringWithEnum',
      'stringBounded',
      'stringNullable',
    ]);
    expect(letRead('release')).toEqual(letRead('string'));
    expect(letRead('quantity')).toEqual([
      ...letRead('string'),
      ...letRead('integer'),
      'intOrString',
      'intOrStringPercent',
      'quantity',
      'quantityNullable',
    ]);
  });

  it('refuses a reader only where the API server accepts a value it could not read', () => {
    const needless: string[] = [];
    for (const [reading, read] of Object.entries(readers) as [ValueReading, (raw: unknown) => unknown][]) {
      for (const [shape, values] of accepted) {
        if (readingProblem(reading, shapes[shape]!) === undefined) continue;
        if (!values.some((value) => value !== absent && value !== null && read(value) === undefined))
          needless.push(`${reading} on ${shape}`);
      }
    }
    expect(needless).toEqual([]);
  });
});
