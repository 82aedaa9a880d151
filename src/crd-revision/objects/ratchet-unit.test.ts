import { describe, expect, it } from 'vitest';
import { judgeAsItStands, loadCrd } from '../../api-server-engine/engine.ts';
import { oneVersionCrd } from './one-version-crd.fixture.ts';
import { keywordOf, ratchetUnit } from './ratchet-unit.ts';

describe('ratchetUnit', () => {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          size: { type: 'integer' },
          items: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
          ports: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['name'],
            items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
          },
          labels: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
  };

  it('is the value itself where ratcheting follows it there: by name, map key and list-map key', () => {
    expect(ratchetUnit(schema, 'spec.size', 'FieldValueInvalid')).toBe('spec.size');
    expect(ratchetUnit(schema, 'spec.ports[1].port', 'FieldValueInvalid')).toBe('spec.ports[1].port');
    expect(ratchetUnit(schema, 'spec.labels[app.kubernetes.io/name]', 'FieldValueTooLong')).toBe(
      'spec.labels[app.kubernetes.io/name]',
    );
  });

  it('is the list for an item of an atomic list, and the parent of a missing required field', () => {
    expect(ratchetUnit(schema, 'spec.items[2].name', 'FieldValueNotSupported')).toBe('spec.items');
    expect(ratchetUnit(schema, 'spec.size', 'FieldValueRequired')).toBe('spec');
    expect(ratchetUnit(schema, 'spec.items[0].name', 'FieldValueRequired')).toBe('spec.items');
    expect(ratchetUnit(schema, 'spec', 'FieldValueRequired')).toBe('');
  });
});

describe('keywordOf', () => {
  // Each keyword broken once, and the API server engine's own words for it: the keyword read back must be it.
  const cases: Record<string, [Record<string, unknown>, unknown]> = {
    pattern: [{ type: 'string', pattern: '^a$' }, 'b'],
    maximum: [{ type: 'integer', maximum: 1 }, 2],
    minimum: [{ type: 'integer', minimum: 5 }, 1],
    minLength: [{ type: 'string', minLength: 5 }, 'ab'],
    maxLength: [{ type: 'string', maxLength: 1 }, 'ab'],
    minItems: [{ type: 'array', items: { type: 'string' }, minItems: 3 }, ['a']],
    maxItems: [{ type: 'array', items: { type: 'string' }, maxItems: 1 }, ['a', 'b']],
    minProperties: [{ type: 'object', additionalProperties: { type: 'string' }, minProperties: 3 }, { a: 'b' }],
    maxProperties: [
      { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 },
      { a: 'a', b: 'b' },
    ],
    multipleOf: [{ type: 'integer', multipleOf: 3 }, 4],
    format: [{ type: 'string', format: 'date-time' }, 'nope'],
    type: [{ type: 'integer' }, 'x'],
    enum: [{ type: 'string', enum: ['x'] }, 'y'],
    'x-kubernetes-list-type': [
      { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
      ['a', 'a'],
    ],
    anyOf: [{ type: 'string', anyOf: [{ maxLength: 1 }, { minLength: 10 }] }, 'abc'],
    not: [{ type: 'string', not: { maxLength: 5 } }, 'abc'],
    'x-kubernetes-validations': [{ type: 'string', 'x-kubernetes-validations': [{ rule: 'self == "q"' }] }, 'z'],
    required: [{ type: 'object', required: ['inner'], properties: { inner: { type: 'string' } } }, {}],
  };

  it.each(Object.entries(cases))('reads %s back from the API server’s fault', (keyword, [fieldSchema, value]) => {
    const crd = loadCrd(
      oneVersionCrd('Thing', {
        type: 'object',
        properties: { spec: { type: 'object', properties: { field: fieldSchema } } },
      }),
    );
    const judgement = judgeAsItStands(crd, {
      apiVersion: 'x.example.com/v1',
      kind: 'Thing',
      metadata: { name: 'a', namespace: 'default' },
      spec: { field: value },
    });
    const faults = judgement.causes.filter(
      (cause) => !cause.message.includes('some validation rules were not checked'),
    );
    const keywords = faults.map((fault) => keywordOf(fault.type, fault.message, value));
    // anyOf also reports the faults of the schemas it tried (maxLength here); every other keyword its own alone.
    if (keyword === 'anyOf') expect(keywords).toContain(keyword);
    else expect(keywords).toEqual(faults.map(() => keyword));
    expect(keywords.length).toBeGreaterThan(0);
  });
});
