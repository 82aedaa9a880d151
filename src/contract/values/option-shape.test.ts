import { describe, expect, it } from 'vitest';
import {
  either,
  integer,
  json,
  listOf,
  maybe,
  oneOf,
  recordOf,
  shapeProblems,
  text,
  withFields,
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
});
