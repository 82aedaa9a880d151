import { describe, expect, it } from 'vitest';
import { compareVersions, parseVersion } from '../values/release-version.ts';
import { byDirection, byReleaseStep, whenDifferent } from './comparisons.ts';
import { fieldClassifier } from './field-classifier.ts';
import { cannotRead } from './value-readers.ts';

const readNumber = (raw: unknown) => (typeof raw === 'number' ? raw : undefined);
const size = fieldClassifier({
  path: 'storage.size',
  read: readNumber,
  compare: byDirection({ compare: (a: number, b: number) => a - b, increase: 'grow', decrease: 'shrink' }),
});
const replicas = fieldClassifier({
  path: 'replicas',
  absentMeans: 1,
  read: readNumber,
  compare: whenDifferent('scale'),
});
const spec = { field: 'spec' };

describe('fieldClassifier', () => {
  it('reports a change with its field and display values', () => {
    expect(size.classify({ storage: { size: 10 } }, { storage: { size: 20 } }, spec)).toEqual([
      { kind: 'grow', field: 'spec.storage.size', from: '10', to: '20' },
    ]);
    expect(size.kinds).toEqual(['grow', 'shrink']);
  });

  it('names the item when comparing inside a list item', () => {
    expect(replicas.classify({ replicas: 1 }, { replicas: 3 }, { field: 'spec.caches[2]', item: 'tiles' })).toEqual([
      { kind: 'scale', field: 'spec.caches[2].replicas', from: '1', to: '3', item: 'tiles' },
    ]);
  });

  it('treats an absent or null field as its default, so writing the default is no change', () => {
    expect(replicas.classify({}, { replicas: 1 }, spec)).toEqual([]);
    expect(replicas.classify({ replicas: null }, {}, spec)).toEqual([]);
    expect(replicas.classify({}, { replicas: 2 }, spec)).toEqual([
      { kind: 'scale', field: 'spec.replicas', from: '1', to: '2' },
    ]);
  });

  it('leaves values it cannot read to schema validation', () => {
    expect(size.classify({ storage: { size: 'big' } }, { storage: { size: 20 } }, spec)).toEqual([]);
    expect(size.classify({ storage: { size: 10 } }, { storage: { size: [20] } }, spec)).toEqual([]);
    expect(size.classify('junk', { storage: { size: [20] } }, spec)).toEqual([]);
  });

  it('reports a value that appears or disappears as undecidable where the comparison orders present values only', () => {
    const reason =
      'an absent value is neither smaller nor larger than a present one (absentMeans would say what absence means)';
    expect(size.classify({}, { storage: { size: 20 } }, spec)).toEqual([
      { kind: 'grow', field: 'spec.storage.size', to: '20', undecidable: reason },
    ]);
    expect(size.classify({ storage: { size: 10 } }, { storage: {} }, spec)).toEqual([
      { kind: 'grow', field: 'spec.storage.size', from: '10', undecidable: reason },
    ]);
    const sized = fieldClassifier({
      path: 'size',
      absentMeans: 1,
      read: readNumber,
      compare: byDirection({ compare: (a: number, b: number) => a - b, increase: 'grow', decrease: 'shrink' }),
    });
    expect(sized.classify({}, { size: 0 }, spec)).toEqual([{ kind: 'shrink', field: 'spec.size', from: '1', to: '0' }]);
  });

  it('reports nothing for equal values', () => {
    expect(size.classify({ storage: { size: 10 } }, { storage: { size: 10 } }, spec)).toEqual([]);
  });
});

describe('fieldClassifier: readings that fail closed', () => {
  // The version in an image's tag: `registry/postgres:16.4` is 16.4; a digest, or a tag without a version, says nothing.
  const readImageVersion = (raw: unknown) => {
    if (typeof raw !== 'string') return undefined;
    if (raw.includes('@')) return cannotRead('an image by digest names no version');
    const tag = /:([^/:]+)$/.exec(raw)?.[1];
    const version = tag === undefined ? undefined : parseVersion(/^\d+(\.\d+)*/.exec(tag)?.[0] ?? '');
    return version ?? cannotRead(`the tag of ${raw} names no version`);
  };
  const image = fieldClassifier({
    path: 'imageName',
    absentMeans: cannotRead(
      "an absent imageName is the operator's default image, whose version the contract cannot know",
    ),
    read: readImageVersion,
    compare: byReleaseStep({ compare: compareVersions, upgrade: 'minor', major: 'major', downgrade: 'downgrade' }),
  });
  const classify = (from: unknown, to: unknown) =>
    image.classify(from === undefined ? {} : { imageName: from }, to === undefined ? {} : { imageName: to }, {
      field: 'spec',
    });

  it('reads what it can as before', () => {
    expect(classify('pg:16.4', 'pg:17.0')).toEqual([
      { kind: 'major', field: 'spec.imageName', from: 'pg:16.4', to: 'pg:17.0' },
    ]);
    expect(classify('pg:16.4', 'pg:16.4')).toEqual([]);
    expect(classify(undefined, undefined)).toEqual([]);
  });

  it('reports a change it cannot read as undecidable, with the values and why', () => {
    expect(classify('pg:16', 'pg@sha256:abc')).toEqual([
      {
        kind: 'minor',
        field: 'spec.imageName',
        from: 'pg:16',
        to: 'pg@sha256:abc',
        undecidable: 'an image by digest names no version',
      },
    ]);
    expect(classify(undefined, 'pg:17')).toEqual([
      {
        kind: 'minor',
        field: 'spec.imageName',
        to: 'pg:17',
        undecidable: "an absent imageName is the operator's default image, whose version the contract cannot know",
      },
    ]);
    expect(classify('pg:latest', 'pg:17')[0]?.undecidable).toBe('the tag of pg:latest names no version');
  });

  it('reads with readRelease when given parseVersion, a parser: a string that is no release fails closed', () => {
    const version = fieldClassifier({
      path: 'version',
      read: parseVersion,
      compare: byReleaseStep({ compare: compareVersions, upgrade: 'minor', major: 'major', downgrade: 'downgrade' }),
    });
    expect(version.classify({ version: '16.4' }, { version: 'v16' }, { field: 'spec' })).toEqual([
      {
        kind: 'minor',
        field: 'spec.version',
        from: '16.4',
        to: 'v16',
        undecidable: '"v16" is not a release number such as 16.4',
      },
    ]);
    expect(version.target).toEqual({ classify: 'field', path: 'version', reading: 'release' });
  });

  it('still leaves a value of the wrong type to the schema', () => {
    expect(classify('pg:16', 16)).toEqual([]);
  });

  it('reads a reader that throws as one that cannot read', () => {
    const throwing = fieldClassifier({
      path: 'x',
      read: () => {
        throw new Error('boom');
      },
      compare: whenDifferent('x'),
    });
    expect(throwing.classify({ x: 1 }, { x: 2 }, { field: 'spec' })[0]?.undecidable).toBe('the reader failed: boom');
  });
});
