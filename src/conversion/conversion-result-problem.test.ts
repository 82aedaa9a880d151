import { describe, expect, it } from 'vitest';
import { conversionResultProblem } from './conversion-result-problem.ts';

const source = {
  apiVersion: 'geo.example.com/v1alpha1',
  kind: 'GeoDatabase',
  metadata: { name: 'db', namespace: 'prod', uid: 'u', labels: { a: 'b' }, managedFields: [{ manager: 'kubectl' }] },
  spec: { replicas: 1 },
};
const converted = { ...source, apiVersion: 'geo.example.com/v1', spec: { readReplicas: 1 } };

describe('conversionResultProblem', () => {
  it('accepts a result that changes the apiVersion as asked, the spec, labels and annotations', () => {
    expect(conversionResultProblem(source, converted, 'geo.example.com/v1')).toBeUndefined();
    const relabelled = { ...converted, metadata: { ...converted.metadata, labels: {}, annotations: { x: 'y' } } };
    expect(conversionResultProblem(source, relabelled, 'geo.example.com/v1')).toBeUndefined();
  });

  it('compares metadata by value, ignoring key order', () => {
    const reordered = {
      ...converted,
      metadata: { managedFields: [{ manager: 'kubectl' }], uid: 'u', namespace: 'prod', name: 'db' },
    };
    expect(conversionResultProblem(source, reordered, 'geo.example.com/v1')).toBeUndefined();
  });

  it.each([
    ['a non-object', null, 'the conversion did not return an object'],
    [
      'another apiVersion',
      { ...converted, apiVersion: 'geo.example.com/v2' },
      'the conversion returned apiVersion geo.example.com/v2, not geo.example.com/v1',
    ],
    ['another kind', { ...converted, kind: 'Other' }, 'the conversion changed the kind from GeoDatabase to Other'],
    [
      'a renamed object',
      { ...converted, metadata: { ...converted.metadata, name: 'x' } },
      'the conversion changed metadata.name',
    ],
    [
      'a lost uid',
      { ...converted, metadata: { ...converted.metadata, uid: undefined } },
      'the conversion changed metadata.uid',
    ],
    [
      'changed managedFields',
      { ...converted, metadata: { ...converted.metadata, managedFields: [] } },
      'the conversion changed metadata.managedFields',
    ],
    [
      'added metadata',
      { ...converted, metadata: { ...converted.metadata, finalizers: ['f'] } },
      'the conversion changed metadata.finalizers',
    ],
    ['no metadata', { ...converted, metadata: undefined }, 'the conversion changed metadata.name'],
  ])('names what changed for %s', (_case, result, problem) => {
    expect(conversionResultProblem(source, result, 'geo.example.com/v1')).toBe(problem);
  });
});
