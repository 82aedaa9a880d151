import { describe, expect, it } from 'vitest';
import {
  either,
  flag,
  integer,
  json,
  listOf,
  maybe,
  number,
  oneOf,
  recordOf,
  recursive,
  shapeProblems,
  text,
  withFields,
  type OptionShape,
} from './option-shape.ts';

const place = { path: ['options'], whole: 'the options' };

describe('shapeProblems', () => {
  it('names each place of the wrong type by its path, and looks no further below it', () => {
    const shape = withFields('an object: { name, sizes }', {
      name: text(),
      sizes: listOf(integer('a size'), 'a list of sizes'),
      note: maybe(text()),
    });
    expect(shapeProblems({ name: 'a', sizes: [1, 2] }, shape, place)).toEqual([]);
    expect(shapeProblems({ name: 1, sizes: [1, 'two', 2.5] }, shape, place)).toEqual([
      'options.name must be a string, got 1',
      'options.sizes[1] must be a size, got "two"',
      'options.sizes[2] must be a size, got 2.5',
    ]);
    expect(shapeProblems({ sizes: 'many', note: null }, shape, place)).toEqual([
      'options.name must be a string, got undefined',
      'options.sizes must be a list of sizes, got "many"',
      'options.note must be a string, got null',
    ]);
    expect(shapeProblems(null, shape, { path: [], whole: 'the options' })).toEqual([
      'the options must be an object: { name, sizes }, got null',
    ]);
  });

  it("says a value's problems in the order of the shape's fields, whatever the order of its keys", () => {
    const shape = withFields('an object: { a, b, c, d }', {
      a: maybe(text()),
      b: text(),
      c: maybe(text()),
      d: text(),
    });
    const value: Record<string, unknown> = { c: 3, a: 1 };
    // An own field that is not enumerable is still the value's own: it is read, as Object.hasOwn reads it.
    Object.defineProperty(value, 'd', { value: 4, enumerable: false });
    expect(shapeProblems(value, shape, place)).toEqual([
      'options.a must be a string, got 1',
      'options.b must be a string, got undefined',
      'options.c must be a string, got 3',
      'options.d must be a string, got 4',
    ]);
  });

  it('brackets a key that is not a plain field name, as Kubernetes paths do', () => {
    expect(shapeProblems({ 'storage.grow': 5 }, recordOf(text(), 'an object of strings'), place)).toEqual([
      'options[storage.grow] must be a string, got 5',
    ]);
  });

  it('takes the first shape of several whose type the value has', () => {
    const shape = either('true, or an object', oneOf([true]), withFields('an object', { a: text() }));
    expect(shapeProblems(true, shape, place)).toEqual([]);
    expect(shapeProblems({ a: 1 }, shape, place)).toEqual(['options.a must be a string, got 1']);
    expect(shapeProblems(false, shape, place)).toEqual(['options must be true, or an object, got false']);
  });

  it('refuses the fields an object rendered as it is cannot have, and what JSON cannot hold', () => {
    expect(shapeProblems({ a: 'x', b: 1 }, withFields('an object: { a }', { a: text() }, 'none'), place)).toEqual([
      'options.b is not a field it can have (a)',
    ]);
    expect(shapeProblems({ list: [1, { deep: () => 1 }], n: Number.NaN }, json, place)).toEqual([
      'options.list[1].deep must be a JSON value, got a function',
      'options.n must be a JSON value, got NaN',
    ]);
  });

  it('stops at a value that contains itself', () => {
    const looping: Record<string, unknown> = {};
    looping['self'] = looping;
    expect(shapeProblems(looping, json, place)).toEqual(['options.self contains itself']);
  });

  it('says of any value under json what the same shape, built anew and so walked value by value, says', () => {
    // json's own object is checked by a walk without paths first; a shape equal to it is not.
    const walkedJson: OptionShape = recursive(() =>
      either(
        'a JSON value',
        text(),
        number(),
        flag,
        oneOf([null]),
        listOf(walkedJson, 'a list'),
        recordOf(walkedJson, 'an object'),
      ),
    );
    const looping: Record<string, unknown> = { fine: [1, 'two', null, true, { deep: {} }] };
    (looping['fine'] as unknown[]).push({ back: looping });
    const holed: unknown[] = [1];
    holed[2] = 'x';
    const values: unknown[] = [
      { spec: { versions: [{ name: 'v1', schema: { type: 'object', properties: { a: { maximum: 1.5 } } } }] } },
      [[[]], {}, '', 0, -0, false],
      { deep: [{ deeper: [1, 2, { deepest: Number.POSITIVE_INFINITY }] }], after: undefined },
      { f: () => 1, n: Number.NaN, u: undefined, s: Symbol('s'), b: 1n },
      looping,
      holed,
      new Map([['a', 1]]),
      undefined,
    ];
    for (const value of values) {
      const expected = shapeProblems(value, walkedJson, place);
      expect(shapeProblems(value, json, place)).toEqual(expected);
    }
    expect(shapeProblems(values[3], json, place)).toHaveLength(5);
    expect(shapeProblems(looping, json, place)).toEqual(['options.fine[5].back contains itself']);
  });
});
