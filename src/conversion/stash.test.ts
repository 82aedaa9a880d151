import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { ConversionError } from './conversion-error.ts';
import { putStash, takeStash } from './stash.ts';

const key = 'geo.example.com/conversion-data';

function object(annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'geo.example.com/v1alpha1',
    kind: 'GeoDatabase',
    metadata: { name: 'db', namespace: 'prod', ...(annotations ? { annotations } : {}) },
  };
}

describe('putStash', () => {
  it('writes no annotation when nothing was lost', () => {
    const spoke = object({ team: 'maps' });
    expect(putStash(spoke, key, {})).toBe(spoke);
  });

  it('keeps the lost data as compact JSON next to the other annotations', () => {
    const stashed = putStash(object({ team: 'maps' }), key, { spec: { storage: { storageClassName: 'ssd' } } });
    expect(stashed.metadata?.annotations).toEqual({
      team: 'maps',
      [key]: '{"spec":{"storage":{"storageClassName":"ssd"}}}',
    });
  });

  it('creates the annotations of an object that has none, without touching its input', () => {
    const spoke = Object.freeze(object());
    expect(putStash(spoke, key, { a: 1 }).metadata).toEqual({
      name: 'db',
      namespace: 'prod',
      annotations: { [key]: '{"a":1}' },
    });
    expect(spoke.metadata?.annotations).toBeUndefined();
  });

  it('keeps a value the object already had under the annotation, even when nothing else was lost', () => {
    expect(putStash(object({ [key]: 'hand-written' }), key, {}).metadata?.annotations).toEqual({
      [key]: '{"replacedAnnotation":"hand-written"}',
    });
  });

  it('refuses lost data that uses the field reserved for a replaced annotation', () => {
    expect(() => putStash(object(), key, { replacedAnnotation: 'x' })).toThrow(/reserved/);
  });

  it('accepts annotations of exactly 256 KiB and refuses one byte more with STASH_TOO_LARGE naming the object', () => {
    const stashBytes = key.length + '{"a":1}'.length;
    const filler = (bytes: number) => ({ f: 'x'.repeat(bytes - 1 - stashBytes) });
    expect(() => putStash(object(filler(256 * 1024)), key, { a: 1 })).not.toThrow();
    let error: unknown;
    try {
      putStash(object(filler(256 * 1024 + 1)), key, { a: 1 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConversionError);
    expect((error as ConversionError).code).toBe('STASH_TOO_LARGE');
    expect((error as ConversionError).message).toContain('GeoDatabase prod/db to geo.example.com/v1alpha1');
    expect((error as ConversionError).message).toContain('262145 bytes');
  });

  it('counts bytes, not characters, as the API server does', () => {
    const stashBytes = key.length + '{"a":1}'.length;
    // 'é' is one character and two bytes.
    const filler = { f: 'é'.repeat((256 * 1024 - 1 - stashBytes) / 2 + 1) };
    expect(() => putStash(object(filler), key, { a: 1 })).toThrow(ConversionError);
  });
});

describe('takeStash', () => {
  it('leaves an object without the annotation alone', () => {
    const spoke = object({ team: 'maps' });
    expect(takeStash(spoke, key)).toEqual({ object: spoke, lost: undefined });
    expect(takeStash(spoke, key).object).toBe(spoke);
  });

  it('returns the lost data and the object without the annotation', () => {
    const { object: hub, lost } = takeStash(object({ team: 'maps', [key]: '{"a":1}' }), key);
    expect(lost).toEqual({ a: 1 });
    expect(hub.metadata?.annotations).toEqual({ team: 'maps' });
  });

  it('removes an annotations map it leaves empty: the API server has no empty maps', () => {
    const { object: hub } = takeStash(object({ [key]: '{"a":1}' }), key);
    expect(hub.metadata).toEqual({ name: 'db', namespace: 'prod' });
  });

  it('puts back the value the stash had replaced', () => {
    const { object: hub, lost } = takeStash(object({ [key]: '{"a":1,"replacedAnnotation":"hand-written"}' }), key);
    expect(lost).toEqual({ a: 1 });
    expect(hub.metadata?.annotations).toEqual({ [key]: 'hand-written' });
  });

  it.each([['not JSON'], ['[1,2]'], ['"text"'], ['null']])(
    'drops an annotation that is no stash (%s) and restores nothing',
    (text) => {
      const { object: hub, lost } = takeStash(object({ [key]: text }), key);
      expect(lost).toBeUndefined();
      expect(hub.metadata?.annotations).toBeUndefined();
    },
  );

  it('does not modify its input', () => {
    const annotations = Object.freeze({ [key]: '{"a":1}' });
    const spoke = object(annotations);
    takeStash(spoke, key);
    expect(spoke.metadata?.annotations).toBe(annotations);
  });
});
