import { describe, expect, it } from 'vitest';
import type { Defaulter } from '../../index.ts';
import { geoDatabaseDefaults } from './defaults.ts';

/** The list applied in order, each to what the one before returned, as the webhook applies a contract's defaults. */
const defaultGeoDatabase: Defaulter = (object) =>
  geoDatabaseDefaults.reduce((defaulted, defaulter) => defaulter(defaulted), object);

const minimal = () => ({
  apiVersion: 'geo.example.com/v1',
  kind: 'GeoDatabase',
  metadata: { name: 'db', namespace: 'maps' },
  spec: {
    postgres: { version: '15.7', postgis: '3.4.2' },
    storage: { size: '20Gi' },
    caches: [
      { name: 'tiles', memory: '1Gi' },
      { name: 'geo', memory: '2Gi', version: '7.4', replicas: 3 },
    ],
  },
});

describe('defaultGeoDatabase', () => {
  it('fills every absent default and the postgres-major label', () => {
    const result = defaultGeoDatabase(minimal());
    expect(result.spec).toEqual({
      postgres: { version: '15.7', postgis: '3.4.2' },
      storage: { size: '20Gi' },
      readReplicas: 0,
      caches: [
        { name: 'tiles', memory: '1Gi', version: '7.2', replicas: 1 },
        { name: 'geo', memory: '2Gi', version: '7.4', replicas: 3 },
      ],
    });
    expect(result.metadata?.labels).toEqual({ 'geo.example.com/postgres-major': '15' });
  });

  it('never rewrites a value the user set, and keeps other labels', () => {
    const object = minimal();
    Object.assign(object.spec, { readReplicas: 4, caches: [] });
    Object.assign(object.metadata, { labels: { team: 'maps' } });
    const result = defaultGeoDatabase(object);
    expect(result.spec).toMatchObject({ readReplicas: 4, caches: [] });
    expect(result.metadata?.labels).toEqual({ team: 'maps', 'geo.example.com/postgres-major': '15' });
  });

  it('adds an empty cache list when caches are absent', () => {
    const object = minimal();
    delete (object.spec as { caches?: unknown }).caches;
    expect((defaultGeoDatabase(object).spec as { caches: unknown }).caches).toEqual([]);
  });

  it('is idempotent and does not mutate its input', () => {
    const input = minimal();
    const snapshot = structuredClone(input);
    const once = defaultGeoDatabase(input);
    expect(input).toEqual(snapshot);
    expect(defaultGeoDatabase(once)).toEqual(once);
  });

  it('copies on write: an object that needs nothing is returned as is, untouched parts are shared', () => {
    const once = defaultGeoDatabase(minimal());
    expect(defaultGeoDatabase(once)).toBe(once);
    const input = { ...minimal(), status: { phase: 'Ready' } };
    const result = defaultGeoDatabase(input);
    expect(result.status).toBe(input.status);
    expect((result.spec as { postgres: unknown }).postgres).toBe(input.spec.postgres);
  });

  it('keeps the derived label in step with the PostgreSQL major', () => {
    const object = { ...minimal(), metadata: { name: 'db', labels: { 'geo.example.com/postgres-major': '14' } } };
    expect(defaultGeoDatabase(object).metadata?.labels?.['geo.example.com/postgres-major']).toBe('15');
  });

  it('leaves ill-typed parts alone instead of throwing', () => {
    const junk = {
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { labels: 'x' },
      spec: { caches: 'many', postgres: 7 },
    };
    expect(() => defaultGeoDatabase(junk as never)).not.toThrow();
    expect(defaultGeoDatabase({ apiVersion: 'geo.example.com/v1', kind: 'GeoDatabase' })).toEqual({
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
    });
  });
});
