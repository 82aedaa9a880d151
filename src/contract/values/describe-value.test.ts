import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  describeChange,
  describeItems,
  describeText,
  describeTextPair,
  describeValue,
  describeValuePair,
  maxDescribedLength,
} from './describe-value.ts';

const controlCharacter = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

describe('describeValue', () => {
  it.each([
    ['abc', '"abc"'],
    [12, '12'],
    [1.5, '1.5'],
    [true, 'true'],
    [null, 'null'],
    [{ name: 'tiles' }, '{"name":"tiles"}'],
    [[1, 'a'], '[1,"a"]'],
  ])('renders %j as JSON', (value, expected) => {
    expect(describeValue(value)).toBe(expected);
  });

  it('reads an absent value as (none), never undefined or a blank', () => {
    expect(describeValue(undefined)).toBe('(none)');
    expect(describeValue(undefined, 3)).toBe('(none)');
  });

  it('shortens long values with an ellipsis', () => {
    const described = describeValue('x'.repeat(10_000));
    expect(described).toBe(`"${'x'.repeat(maxDescribedLength - 1)}...`);
    expect(describeValue(Array.from({ length: 10_000 }, (_, i) => i)).length).toBe(maxDescribedLength + 3);
  });

  it('escapes control characters, including those JSON leaves alone', () => {
    expect(describeValue('a\nb\u0000c\u007fd\u0085e\u2028')).toBe('"a\\nb\\u0000c\\u007fd\\u0085e\\u2028"');
  });

  it('is always short and free of control characters', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const described = describeValue(value);
        expect(described.length).toBeLessThanOrEqual(maxDescribedLength + 3);
        expect(described).not.toMatch(controlCharacter);
      }),
    );
  });
});

describe('describeText', () => {
  it('leaves ordinary text alone and escapes the rest', () => {
    expect(describeText('app.kubernetes.io/name')).toBe('app.kubernetes.io/name');
    expect(describeText('a\tb')).toBe('a\\u0009b');
    expect(describeText('^a\\.b"$')).toBe('^a\\.b"$');
    expect(describeText('y'.repeat(100))).toBe(`${'y'.repeat(maxDescribedLength)}...`);
  });

  it('is always short and free of control characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const described = describeText(text);
        expect(described.length).toBeLessThanOrEqual(maxDescribedLength + 3);
        expect(described).not.toMatch(controlCharacter);
      }),
    );
  });
});

describe('describeValuePair', () => {
  it('shows both whole when both fit, and where they differ when they do not', () => {
    expect(describeValuePair('Waiting', 'Pending')).toEqual(['"Waiting"', '"Pending"']);
    const before = 'Waiting for the controller to reconcile this resource; it has not reported a status yet';
    const after = 'Waiting for the controller to reconcile this resource; it has not reported any status yet';
    expect(describeValuePair(before, after)).toEqual([
      '...s not reported a status yet"',
      '...s not reported any status yet"',
    ]);
    expect(describeChange(1, 2)).toBe('1 → 2');
    expect(describeChange(undefined, 'atomic')).toBe('(none) → "atomic"');
  });

  it('never shows two different values alike, however long and however alike', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), fc.string(), (head, tail, edit) => {
        const [a, b] = [`${head}${tail}`, `${head}${edit}${tail}`];
        fc.pre(a !== b);
        const [x, y] = describeValuePair(a, b);
        expect(x).not.toBe(y);
        expect(x).not.toMatch(controlCharacter);
        expect(describeTextPair(a, b)[0]).not.toBe(describeTextPair(a, b)[1]);
      }),
    );
  });
});

describe('describeItems', () => {
  it('shows whole items, and how many more there are', () => {
    expect(describeItems(['Pending', 'Ready'])).toBe('["Pending", "Ready"]');
    expect(
      describeItems(['Pending', 'Ready', 'Failed', 'Unknown', 'Succeeded', 'Running', 'Terminating', 'Other']),
    ).toBe('["Pending", "Ready", "Failed", "Unknown", "Succeeded"] and 3 more');
    expect(describeItems(['x'.repeat(100)])).toBe(`[${describeValue('x'.repeat(100))}]`);
  });
});
