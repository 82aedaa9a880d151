import { describe, expect, it } from 'vitest';
import { objectShapeProblem } from './object-shape-problem.ts';

const object = (metadata: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'geo.example.com/v1',
  kind: 'GeoDatabase',
  metadata,
  ...extra,
});

describe('objectShapeProblem', () => {
  it('accepts an object as the API server writes it, unknown metadata fields and creationTimestamp null included', () => {
    const metadata = {
      name: 'db',
      generateName: 'db-',
      namespace: 'maps',
      uid: 'u',
      resourceVersion: '1',
      selfLink: '/x',
      creationTimestamp: null,
      deletionTimestamp: '2026-11-22T09:12:31Z',
      generation: 3,
      deletionGracePeriodSeconds: 0,
      labels: { a: 'b' },
      annotations: {},
      finalizers: ['f'],
      ownerReferences: [{ kind: 'X' }],
      managedFields: [],
      somethingElse: 7,
    };
    expect(objectShapeProblem(object(metadata), 'request.object')).toBeUndefined();
    expect(objectShapeProblem({}, 'request.object')).toBeUndefined();
  });

  it.each([
    ['a name that is a number', object({ name: 7 }), 'request.object.metadata.name must be a string, got a number'],
    ['a name that is null', object({ name: null }), 'request.object.metadata.name must be a string, got null'],
    [
      'a namespace that is an object',
      object({ namespace: {} }),
      'request.object.metadata.namespace must be a string, got an object',
    ],
    [
      'a generateName that is a list',
      object({ generateName: ['x'] }),
      'request.object.metadata.generateName must be a string, got an array',
    ],
    ['a uid that is a boolean', object({ uid: true }), 'request.object.metadata.uid must be a string, got a boolean'],
    [
      'a generation that is a fraction',
      object({ generation: 1.5 }),
      'request.object.metadata.generation must be an integer, got a number',
    ],
    [
      'a generation that is a string',
      object({ generation: '1' }),
      'request.object.metadata.generation must be an integer, got "1"',
    ],
    [
      'labels that are a list',
      object({ labels: [] }),
      'request.object.metadata.labels must be an object of strings, got an array',
    ],
    [
      'a label value that is a number',
      object({ labels: { a: 'b', c: 1 } }),
      'request.object.metadata.labels["c"] must be a string, got a number',
    ],
    [
      'an annotation value that is an object',
      object({ annotations: { a: { deep: 1 } } }),
      'request.object.metadata.annotations["a"] must be a string, got an object',
    ],
    [
      'finalizers that are a string',
      object({ finalizers: 'x' }),
      'request.object.metadata.finalizers must be a list, got "x"',
    ],
    [
      'a finalizer that is null',
      object({ finalizers: ['a', null] }),
      'request.object.metadata.finalizers[1] must be a string, got null',
    ],
    [
      'an owner reference that is a string',
      object({ ownerReferences: ['x'] }),
      'request.object.metadata.ownerReferences[0] must be an object, got "x"',
    ],
    ['metadata that is a number', object(1), 'request.object.metadata must be an object, got a number'],
    ['metadata that is null', object(null), 'request.object.metadata must be an object, got null'],
    [
      'an apiVersion that is a number',
      object({}, { apiVersion: 1 }),
      'request.object.apiVersion must be a string, got a number',
    ],
    ['a kind that is a list', object({}, { kind: [] }), 'request.object.kind must be a string, got an array'],
  ])('refuses %s, naming the field', (_label, value, problem) => {
    expect(objectShapeProblem(value, 'request.object')).toBe(problem);
  });

  it('looks at a nested value no deeper than its type: labels 100,000 levels deep cost one step', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(objectShapeProblem(object({ labels: { a: deep } }), 'o')).toBe(
      'o.metadata.labels["a"] must be a string, got an object',
    );
  });

  it('never repeats a long value or key in its message', () => {
    expect(objectShapeProblem(object({ labels: { ['k'.repeat(10_000)]: 1 } }), 'o')!.length).toBeLessThan(100);
  });
});
