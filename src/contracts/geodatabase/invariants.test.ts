import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../index.ts';
import {
  cachesWithinLimits,
  geoDatabaseInvariants,
  postgisSupportsPostgres,
  postgresMajorSupported,
  storageLargeEnough,
} from './invariants.ts';

const db = (spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'geo.example.com/v1',
  kind: 'GeoDatabase',
  spec,
});
const summary = (errors: Array<{ field: string; type: string }>) => errors.map((e) => `${e.field} ${e.type}`);

describe('GeoDatabase invariants', () => {
  it.each([
    ['13.0', []],
    ['17.2', []],
    ['12.9', ['spec.postgres.version FieldValueNotSupported']],
    ['18.1', ['spec.postgres.version FieldValueNotSupported']],
  ])('PostgreSQL %s', (version, expected) => {
    expect(summary(postgresMajorSupported(db({ postgres: { version, postgis: '3.5.0' } })))).toEqual(expected);
  });

  it.each([
    ['15.4', '3.3.6', []],
    ['16.4', '3.3.6', ['spec.postgres.postgis FieldValueInvalid']],
    ['16.4', '3.4.2', []],
    ['17.0', '3.4.2', ['spec.postgres.postgis FieldValueInvalid']],
    ['17.0', '3.5.1', []],
    ['13.4', '3.6.0', ['spec.postgres.postgis FieldValueNotSupported']],
  ])('PostgreSQL %s with PostGIS %s', (version, postgis, expected) => {
    expect(summary(postgisSupportsPostgres(db({ postgres: { version, postgis } })))).toEqual(expected);
  });

  it.each([
    ['1Gi', []],
    ['1024Mi', []],
    ['1023Mi', ['spec.storage.size FieldValueInvalid']],
    ['1G', ['spec.storage.size FieldValueInvalid']],
  ])('storage %s', (size, expected) => {
    expect(summary(storageLargeEnough(db({ storage: { size } })))).toEqual(expected);
  });

  it('checks each cache memory, unique names, and the total', () => {
    const caches = [
      { name: 'a', memory: '63Mi' },
      { name: 'b', memory: '64Mi' },
      { name: 'a', memory: '64Gi' },
      { name: 'c', memory: '65Gi' },
    ];
    expect(summary(cachesWithinLimits(db({ caches })))).toEqual([
      'spec.caches[0].memory FieldValueInvalid',
      'spec.caches[2] FieldValueDuplicate',
      'spec.caches[3].memory FieldValueInvalid',
      'spec.caches FieldValueInvalid',
    ]);
    expect(
      cachesWithinLimits(
        db({
          caches: [
            { name: 'a', memory: '32Gi' },
            { name: 'b', memory: '32Gi' },
          ],
        }),
      ),
    ).toEqual([]);
    expect(
      summary(
        cachesWithinLimits(
          db({
            caches: [
              { name: 'a', memory: '32Gi' },
              { name: 'b', memory: '32769Mi' },
            ],
          }),
        ),
      ),
    ).toEqual(['spec.caches FieldValueInvalid']);
  });

  it('tolerates schema-invalid input: no throw, nothing invented', () => {
    for (const spec of [
      undefined,
      null,
      'x',
      { postgres: 'x', storage: [], caches: {} },
      { caches: [null, 3, { memory: 5 }] },
    ]) {
      for (const invariant of geoDatabaseInvariants) {
        expect(invariant({ apiVersion: 'geo.example.com/v1', kind: 'GeoDatabase', spec })).toEqual([]);
      }
    }
  });
});
