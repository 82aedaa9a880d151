import { describe, expect, it } from 'vitest';
import { ConversionError } from '../../index.ts';
import { conversionContext, contractTester } from '../../testing.ts';
import { geoDatabaseIn, stashOf } from './conversion-objects.fixture.ts';
import { v1alpha1Conversion } from './conversion-v1alpha1.ts';
import { geoDatabaseContract } from './index.ts';

const stashKey = 'geo.example.com/conversion-data';

const object = geoDatabaseIn;
const context = conversionContext(geoDatabaseContract(), 'v1alpha1');

const down = (spec: unknown, annotations?: Record<string, string>) =>
  v1alpha1Conversion.fromHub(object('v1', spec, annotations), context);
const up = (spec: unknown, annotations?: Record<string, string>) =>
  v1alpha1Conversion.toHub(object('v1alpha1', spec, annotations), context);

const hubSpec = {
  postgres: { version: '16.4', postgis: '3.4.2' },
  readReplicas: 2,
  storage: { size: '50Gi', storageClassName: 'ssd' },
  caches: [{ name: 'default', version: '7.2', memory: '2Gi', replicas: 1 }],
};

describe('v1alpha1 conversion down', () => {
  it('flattens the spec and stashes only what v1alpha1 cannot show, as compact JSON', () => {
    const spoke = down(hubSpec);
    expect(spoke.spec).toStrictEqual({
      postgresVersion: '16.4',
      postgisVersion: '3.4.2',
      replicas: 2,
      storageGB: 50,
      cacheMB: 2048,
    });
    const text = spoke.metadata?.annotations?.[stashKey];
    expect(JSON.parse(text!)).toEqual({
      spec: { storage: { storageClassName: 'ssd' } },
      defaultCache: { version: '7.2', replicas: 1 },
    });
    expect(text).toBe(JSON.stringify(JSON.parse(text!)));
  });

  it('writes no annotation when v1alpha1 can show everything', () => {
    const spoke = down({
      postgres: { version: '16.4', postgis: '3.4.2' },
      storage: { size: '50Gi' },
      caches: [{ name: 'default', memory: '1Gi' }],
    });
    expect(spoke.metadata).toEqual({ name: 'db', namespace: 'maps' });
  });

  it.each([
    ['51200Mi', 50],
    ['1.5Gi', 2],
    ['1073741824', 1],
    ['1e9', 1],
    ['500M', 1],
    ['1024Gi', 1024],
  ])('rounds a size of %s up to %i GiB and keeps the size as written', (size, storageGB) => {
    const spoke = down({ storage: { size } });
    expect(spoke.spec).toEqual({ storageGB });
    expect(stashOf(spoke)).toEqual({ spec: { storage: { size } } });
    expect(v1alpha1Conversion.toHub(spoke, context).spec).toEqual({ storage: { size } });
  });

  it.each([['abc'], ['-1Gi'], ['1e100']])('shows no storageGB for a size of %s, and keeps the size', (size) => {
    const spoke = down({ storage: { size } });
    expect(spoke.spec).toEqual({});
    expect(stashOf(spoke)).toEqual({ spec: { storage: { size } } });
  });

  it('rounds cache memory up to whole MiB and keeps the memory as written', () => {
    const spoke = down({ caches: [{ name: 'default', memory: '100M' }] });
    expect(spoke.spec).toEqual({ cacheMB: 96 });
    expect(stashOf(spoke)).toEqual({ defaultCache: { memory: '100M' } });
  });

  it('tells absent caches (no cacheMB), no caches (0) and other caches (0 and stashed) apart', () => {
    expect(down({}).spec).toStrictEqual({});
    expect(down({ caches: [] }).spec).toStrictEqual({ cacheMB: 0 });
    expect(down({ caches: [] }).metadata?.annotations).toBeUndefined();
    const others = down({ caches: [{ name: 'tiles', memory: '1Gi' }] });
    expect(others.spec).toStrictEqual({ cacheMB: 0 });
    expect(stashOf(others)).toEqual({ otherCaches: [{ name: 'tiles', memory: '1Gi' }] });
  });

  it('shows the first cache named default and keeps the others whole, and its place when it is not last', () => {
    const caches = [
      { name: 'default', memory: '1Gi' },
      { name: 'tiles', memory: '2Gi', version: '7.4' },
      { name: 'default', memory: '4Gi' },
    ];
    const spoke = down({ caches });
    expect(spoke.spec).toEqual({ cacheMB: 1024 });
    expect(stashOf(spoke)).toEqual({ defaultCacheAt: 0, otherCaches: caches.slice(1) });
    expect(v1alpha1Conversion.toHub(spoke, context).spec).toEqual({ caches });
  });

  it('keeps a default cache cacheMB cannot show (no memory, or zero) among the others', () => {
    for (const memory of [undefined, '0', 'lots']) {
      const caches = [{ name: 'default', ...(memory === undefined ? {} : { memory }) }];
      const spoke = down({ caches });
      expect(spoke.spec).toEqual({ cacheMB: 0 });
      expect(stashOf(spoke)).toEqual({ otherCaches: caches });
      expect(v1alpha1Conversion.toHub(spoke, context).spec).toEqual({ caches });
    }
  });

  it('keeps fields v1 has and v1alpha1 lacks, and a postgres without versions', () => {
    const spec = { postgres: {}, storage: { storageClassName: 'ssd' }, backup: { schedule: 'daily' } };
    const spoke = down(spec);
    expect(spoke.spec).toEqual({});
    expect(stashOf(spoke)).toEqual({ spec });
    expect(v1alpha1Conversion.toHub(spoke, context).spec).toEqual(spec);
  });

  it('keeps a stash annotation the hub object itself carried', () => {
    const spoke = down({ storage: { size: '1Gi', storageClassName: 'ssd' } }, { [stashKey]: 'written by hand' });
    expect(stashOf(spoke)).toEqual({
      spec: { storage: { storageClassName: 'ssd' } },
      replacedAnnotation: 'written by hand',
    });
    expect(v1alpha1Conversion.toHub(spoke, context).metadata?.annotations).toEqual({ [stashKey]: 'written by hand' });
  });

  it('converts objects with no spec', () => {
    expect(down(undefined)).toEqual(object('v1alpha1'));
    expect(up(undefined)).toEqual(object('v1'));
  });

  it('fails with STASH_TOO_LARGE, naming the object, when the stash cannot fit next to the annotations', () => {
    const nearlyFull = { 'notes.example.com/history': 'x'.repeat(256 * 1024 - 100) };
    const hub = object(
      'v1',
      { storage: { size: '50Gi', storageClassName: 'a-storage-class-with-a-long-name' } },
      nearlyFull,
    );
    let error: unknown;
    try {
      contractTester(geoDatabaseContract()).convert(hub, 'geo.example.com/v1alpha1');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConversionError);
    expect((error as ConversionError).code).toBe('STASH_TOO_LARGE');
    expect((error as ConversionError).message).toMatch(
      /^cannot convert GeoDatabase maps\/db to geo\.example\.com\/v1alpha1: /,
    );
  });
});

describe('v1alpha1 conversion up', () => {
  it('builds the nested spec and invents no defaults', () => {
    expect(up({ postgresVersion: '16.4', postgisVersion: '3.4.2', storageGB: 50 }).spec).toStrictEqual({
      postgres: { version: '16.4', postgis: '3.4.2' },
      storage: { size: '50Gi' },
    });
    expect(up({ replicas: 0, cacheMB: 0 }).spec).toStrictEqual({ readReplicas: 0, caches: [] });
    expect(up({ cacheMB: 1536 }).spec).toStrictEqual({ caches: [{ name: 'default', memory: '1536Mi' }] });
    expect(up({ postgisVersion: '3.4.2' }).spec).toStrictEqual({ postgres: { postgis: '3.4.2' } });
  });

  it('removes the stash annotation', () => {
    const hub = up({ storageGB: 50 }, { [stashKey]: '{"spec":{"storage":{"storageClassName":"ssd"}}}', team: 'maps' });
    expect(hub.spec).toEqual({ storage: { size: '50Gi', storageClassName: 'ssd' } });
    expect(hub.metadata?.annotations).toEqual({ team: 'maps' });
  });

  describe('with a stash that no longer fits the spoke, the spoke wins field by field', () => {
    const stash = JSON.stringify({
      spec: { storage: { size: '51200Mi', storageClassName: 'ssd' } },
      defaultCache: { version: '7.4', replicas: 2, memory: '1.5Gi' },
      defaultCacheAt: 0,
      otherCaches: [{ name: 'tiles', memory: '1Gi' }],
    });
    const restored = up({ storageGB: 50, cacheMB: 1536 }, { [stashKey]: stash }).spec;

    it('restores everything while the spoke still shows it', () => {
      expect(restored).toEqual({
        storage: { size: '51200Mi', storageClassName: 'ssd' },
        caches: [
          { name: 'default', version: '7.4', replicas: 2, memory: '1.5Gi' },
          { name: 'tiles', memory: '1Gi' },
        ],
      });
    });

    it('takes a grown storageGB and keeps the storage class', () => {
      expect(up({ storageGB: 100, cacheMB: 1536 }, { [stashKey]: stash }).spec).toMatchObject({
        storage: { size: '100Gi', storageClassName: 'ssd' },
      });
    });

    it('takes a resized cacheMB and keeps the cache’s version and replicas', () => {
      expect(up({ storageGB: 50, cacheMB: 4096 }, { [stashKey]: stash }).spec).toMatchObject({
        caches: [
          { name: 'default', version: '7.4', replicas: 2, memory: '4Gi' },
          { name: 'tiles', memory: '1Gi' },
        ],
      });
    });

    it('takes cacheMB 0 as removing the default cache and keeps the others', () => {
      expect(up({ storageGB: 50, cacheMB: 0 }, { [stashKey]: stash }).spec).toMatchObject({
        caches: [{ name: 'tiles', memory: '1Gi' }],
      });
    });

    it('takes a removed cacheMB as no caches at all', () => {
      expect(up({ storageGB: 50 }, { [stashKey]: stash }).spec).not.toHaveProperty('caches');
    });
  });

  it('ignores as a whole a stash that contradicts the spoke (here: a default cache where cacheMB says none)', () => {
    const stash = JSON.stringify({
      spec: { storage: { storageClassName: 'ssd' } },
      otherCaches: [{ name: 'default', memory: '1Gi' }],
    });
    expect(up({ storageGB: 1, cacheMB: 0 }, { [stashKey]: stash }).spec).toEqual({
      storage: { size: '1Gi' },
      caches: [],
    });
  });

  it('ignores an annotation that is not a stash, and removes it', () => {
    const hub = up({ storageGB: 1 }, { [stashKey]: '{not json' });
    expect(hub.spec).toEqual({ storage: { size: '1Gi' } });
    expect(hub.metadata?.annotations).toBeUndefined();
  });

  it('drops fields v1alpha1 does not define, as the API server’s pruning would', () => {
    expect(up({ storageGB: 1, storageClassName: 'ssd' }).spec).toEqual({ storage: { size: '1Gi' } });
  });

  it.each([
    [{ storageGB: '10' }, 'spec.storageGB must be a whole number of GiB, 0 or more, not "10"'],
    [{ storageGB: 1.5 }, 'spec.storageGB must be a whole number of GiB, 0 or more, not 1.5'],
    [{ cacheMB: -1 }, 'spec.cacheMB must be a whole number of MiB, 0 or more, not -1'],
    [{ cacheMB: null }, 'spec.cacheMB must be a whole number of MiB, 0 or more, not null'],
  ])('refuses a count it cannot translate: %j', (spec, message) => {
    expect(() => up(spec)).toThrow(message);
  });
});
