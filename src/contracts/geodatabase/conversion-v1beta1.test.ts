import { describe, expect, it } from 'vitest';
import { conversionContext } from '../../testing.ts';
import { geoDatabaseIn, stashOf } from './conversion-objects.fixture.ts';
import { v1beta1Conversion } from './conversion-v1beta1.ts';
import { geoDatabaseContract } from './index.ts';

const stashKey = 'geo.example.com/conversion-data';

const object = geoDatabaseIn;
const context = conversionContext(geoDatabaseContract(), 'v1beta1');

describe('v1beta1 conversion', () => {
  it('renames readReplicas and stashes the caches’ version and replicas, compactly', () => {
    const hub = object('v1', {
      postgres: { version: '16.4', postgis: '3.4.2' },
      readReplicas: 2,
      storage: { size: '50Gi', storageClassName: 'ssd' },
      caches: [
        { name: 'tiles', version: '7.2', memory: '2Gi', replicas: 1 },
        { name: 'sessions', memory: '64Mi' },
      ],
    });
    const spoke = v1beta1Conversion.fromHub(hub, context);
    expect(spoke).toEqual({
      ...object('v1beta1', {
        postgres: { version: '16.4', postgis: '3.4.2' },
        replicas: 2,
        storage: { size: '50Gi', storageClassName: 'ssd' },
        caches: [
          { name: 'tiles', memory: '2Gi' },
          { name: 'sessions', memory: '64Mi' },
        ],
      }),
      metadata: {
        name: 'db',
        namespace: 'maps',
        annotations: { [stashKey]: '{"caches":[{"name":"tiles","version":"7.2","replicas":1}]}' },
      },
    });
    expect(v1beta1Conversion.toHub(spoke, context)).toEqual(hub);
  });

  it('writes no annotation when v1beta1 can show everything', () => {
    const hub = object('v1', {
      postgres: { version: '16.4', postgis: '3.4.2' },
      storage: { size: '1Gi' },
      caches: [{ name: 'a', memory: '1Gi' }],
    });
    expect(v1beta1Conversion.fromHub(hub, context).metadata).toEqual({ name: 'db', namespace: 'maps' });
  });

  it('keeps absent fields absent and empty ones empty', () => {
    expect(v1beta1Conversion.fromHub(object('v1', { caches: [] }), context).spec).toStrictEqual({ caches: [] });
    expect(v1beta1Conversion.fromHub(object('v1', {}), context).spec).toStrictEqual({});
    expect(v1beta1Conversion.toHub(object('v1beta1', { replicas: 0 }), context).spec).toStrictEqual({
      readReplicas: 0,
    });
    expect(v1beta1Conversion.toHub(object('v1beta1'), context).spec).toBeUndefined();
  });

  it('gives a cache its version and replicas back by name, so reordering caches in v1beta1 keeps them', () => {
    const stash = '{"caches":[{"name":"tiles","version":"7.4","replicas":3},{"name":"gone","version":"6.2"}]}';
    const spoke = object(
      'v1beta1',
      {
        caches: [
          { name: 'new', memory: '1Gi' },
          { name: 'tiles', memory: '4Gi' },
        ],
      },
      { [stashKey]: stash },
    );
    expect(v1beta1Conversion.toHub(spoke, context).spec).toEqual({
      caches: [
        { name: 'new', memory: '1Gi' },
        { name: 'tiles', memory: '4Gi', version: '7.4', replicas: 3 },
      ],
    });
  });

  it('gives every cache of a repeated name an entry, so the n-th entry goes to the n-th cache of that name', () => {
    const hub = object('v1', {
      caches: [
        { name: 'a', memory: '1Gi' },
        { name: 'a', memory: '2Gi', version: '7.4' },
      ],
    });
    const spoke = v1beta1Conversion.fromHub(hub, context);
    expect(stashOf(spoke)).toEqual({ caches: [{ name: 'a' }, { name: 'a', version: '7.4' }] });
    expect(v1beta1Conversion.toHub(spoke, context)).toEqual(hub);
  });

  it('stashes fields v1 has and v1beta1 lacks at their v1 paths, and drops fields v1beta1 does not define', () => {
    const hub = object('v1', { storage: { size: '1Gi', iops: 3000 }, backup: { schedule: 'daily' } });
    const spoke = v1beta1Conversion.fromHub(hub, context);
    expect(spoke.spec).toEqual({ storage: { size: '1Gi' } });
    expect(stashOf(spoke)).toEqual({ spec: { backup: { schedule: 'daily' }, storage: { iops: 3000 } } });
    expect(v1beta1Conversion.toHub(spoke, context)).toEqual(hub);
    // The API server prunes unknown fields before converting; when one comes anyway, it is not carried up.
    expect(
      v1beta1Conversion.toHub(
        object('v1beta1', { replicas: 1, readReplicas: 5, caches: [{ name: 'a', version: '1' }] }),
        context,
      ).spec,
    ).toEqual({
      readReplicas: 1,
      caches: [{ name: 'a' }],
    });
  });

  it('ignores a stash that would contradict the spoke, such as a postgres the spoke no longer has', () => {
    const spoke = object('v1beta1', { replicas: 1 }, { [stashKey]: '{"spec":{"postgres":{"major":16}}}' });
    expect(v1beta1Conversion.toHub(spoke, context).spec).toEqual({ readReplicas: 1 });
  });
});
