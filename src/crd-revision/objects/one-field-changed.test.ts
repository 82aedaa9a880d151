import { describe, expect, it } from 'vitest';
import { withOneFieldChanged } from './one-field-changed.ts';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        image: { type: 'string', pattern: '^[a-z]+$' },
        mode: { type: 'string', enum: ['fast', 'safe'] },
        replicas: { type: 'integer', minimum: 1, maximum: 3 },
        name: { type: 'string', maxLength: 4 },
        enabled: { type: 'boolean' },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        frozen: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

const object = (spec: Record<string, unknown>) => ({
  apiVersion: 'x.example.com/v1',
  kind: 'Thing',
  metadata: { name: 'a' },
  spec,
});

describe('withOneFieldChanged', () => {
  it('changes the first value it can change to one the keywords take, and leaves the rest', () => {
    const changed = withOneFieldChanged(object({ image: 'app', mode: 'fast', replicas: 3 }), schema, 'spec');
    // A pattern may refuse any other string: the image is passed over.
    expect(changed).toMatchObject({ path: 'spec.mode', old: 'fast', new: 'safe' });
    expect(changed!.object.spec).toEqual({ image: 'app', mode: 'safe', replicas: 3 });
  });

  it('keeps numbers within their bounds and strings within their maxLength', () => {
    expect(withOneFieldChanged(object({ replicas: 3 }), schema, 'spec')).toMatchObject({ new: 2 });
    expect(withOneFieldChanged(object({ name: 'abcd' }), schema, 'spec')).toMatchObject({ new: 'abcx' });
    expect(withOneFieldChanged(object({ name: 'ab' }), schema, 'spec')).toMatchObject({ new: 'abx' });
    expect(withOneFieldChanged(object({ enabled: true }), schema, 'spec')).toMatchObject({ new: false });
  });

  it('passes over list-map keys, set items, values under a transition rule and the revision’s own fields', () => {
    const ports = [{ name: 'http', port: 80 }];
    expect(withOneFieldChanged(object({ tags: ['a'], frozen: 'x', ports }), schema, 'spec')).toMatchObject({
      path: 'spec.ports[0].port',
      new: 81,
    });
    expect(
      withOneFieldChanged(object({ ports, labels: { app: 'web' } }), schema, 'spec', ['spec.ports[*].port']),
    ).toMatchObject({ path: 'spec.labels.app', new: 'webx' });
  });

  it('changes a status value for the status write, and nothing where there is nothing to change', () => {
    const withStatus = { ...object({ enabled: true }), status: { phase: 'Ready' } };
    expect(withOneFieldChanged(withStatus, schema, 'status')).toMatchObject({ path: 'status.phase', new: 'Readyx' });
    expect(withOneFieldChanged(object({ enabled: true }), schema, 'status')).toBeUndefined();
    expect(withOneFieldChanged(object({ image: 'app', tags: ['a'] }), schema, 'spec')).toBeUndefined();
  });
});
