import fc from 'fast-check';
import type { KubeObject } from '../../index.ts';
import { annotations, group } from './types.ts';

// Generators of GeoDatabases in every version, for the conversion properties. "Valid-ish": the shapes each version
// declares, with any field absent, values from many spellings (and some no validation would let through), and a
// few wrong types, because conversion runs before validation on writes.

const record = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }) =>
  fc.record(model, { requiredKeys: [], noNullPrototype: true });

const anyText = fc.oneof(
  { weight: 8, arbitrary: fc.string({ maxLength: 12 }) },
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  // Large values, built by repetition: generating thousands of random graphemes would dominate the run time.
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 4 }), fc.integer({ min: 250, max: 2000 }))
      .map(([unit, times]) => unit.repeat(times)),
  },
);

/** Any JSON, as the API server sends it: jsonValue also yields -0, which JSON turns into 0. */
const someJson = fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);

const quantitySuffix = fc.constantFrom('', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei', 'm', 'k', 'M', 'G', 'T', 'P', 'E');

/** Quantities in many spellings, with values that round, that overflow, that do not parse, and a few non-strings. */
export const quantity: fc.Arbitrary<unknown> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '50Gi',
      '51200Mi',
      '1.5Gi',
      '1073741824',
      '1e9',
      '500M',
      '1Gi',
      '64Mi',
      '2Gi',
      '1536Mi',
      '1024Gi',
      '0',
      '0Gi',
      '8Ei',
      '1e100',
      '100m',
      '-1Gi',
      '0.5Mi',
      '+2Gi',
      '2.0Gi',
      '.5Gi',
      'abc',
      '',
      'Gi',
      '9007199254740991Gi',
    ),
  },
  {
    weight: 4,
    arbitrary: fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 22n }), quantitySuffix).map(([n, suffix]) => `${n}${suffix}`),
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.nat(99_999), fc.nat(999), quantitySuffix).map(([i, f, suffix]) => `${i}.${f}${suffix}`),
  },
  { weight: 1, arbitrary: fc.tuple(fc.nat(9_999), fc.integer({ min: -12, max: 24 })).map(([m, e]) => `${m}e${e}`) },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), anyText) },
);

const version = fc.oneof(fc.constantFrom('16.4', '13.0', '17.2', '3.4.2', '3.5.0', '7.2', '7.4'), anyText);
const replicas = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: 0, max: 15 }) },
  { weight: 1, arbitrary: fc.integer() },
);
const cacheName = fc.oneof(
  { weight: 4, arbitrary: fc.constant('default') },
  { weight: 4, arbitrary: fc.constantFrom('tiles', 'sessions', 'a') },
  { weight: 1, arbitrary: anyText },
);

/** Now and then a value of the wrong type where an object or array belongs. */
const orWrongType = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 30, arbitrary },
    { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.string(), fc.integer(), fc.constant([])) },
  );

/** Fields no version defines, under names that mean something elsewhere, so that a careless mapping would mix them up. */
const unknownFields = (names: string[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...names), someJson, { maxKeys: 2, noNullPrototype: true }) },
  );

const withUnknown = <T extends object>(arbitrary: fc.Arbitrary<T>, names: string[]) =>
  fc.tuple(unknownFields(names), arbitrary).map(([unknown, known]) => ({ ...unknown, ...known }));

const hubCache = withUnknown(
  record({ name: cacheName, version, memory: quantity, replicas: fc.integer({ min: 0, max: 6 }) }),
  ['size', 'at', 'nth', 'tier', 'replacedAnnotation'],
);

const hubSpec = withUnknown(
  record({
    postgres: orWrongType(withUnknown(record({ version, postgis: version }), ['major', 'postgresVersion'])),
    readReplicas: replicas,
    storage: orWrongType(withUnknown(record({ size: quantity, storageClassName: anyText }), ['storageGB', 'iops'])),
    caches: orWrongType(fc.array(orWrongType(hubCache), { maxLength: 6 })),
  }),
  ['replicas', 'storageGB', 'cacheMB', 'postgresVersion', 'backup', 'spec', 'defaultCache', 'otherCaches'],
);

const v1beta1Spec = record({
  postgres: orWrongType(record({ version, postgis: version })),
  replicas,
  storage: orWrongType(record({ size: quantity, storageClassName: anyText })),
  caches: orWrongType(fc.array(orWrongType(record({ name: cacheName, memory: quantity })), { maxLength: 6 })),
});

const count = fc.oneof(
  { weight: 6, arbitrary: fc.nat(100_000) },
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constantFrom(1, 1024, 2 ** 33, Number.MAX_SAFE_INTEGER) },
);

const v1alpha1Spec = record({
  postgresVersion: version,
  postgisVersion: version,
  replicas,
  storageGB: count,
  cacheMB: count,
});

const labelKey = fc
  .oneof(
    fc.constantFrom('app', 'geo.example.com/postgres-major', 'kubectl.kubernetes.io/last-applied-configuration'),
    anyText,
  )
  .filter((key) => key !== '__proto__' && key !== annotations.conversionData);
const labelMap = fc.dictionary(labelKey, anyText, { minKeys: 1, maxKeys: 5, noNullPrototype: true });

const metadataOf = (annotationMap: fc.Arbitrary<Record<string, string> | undefined>) =>
  fc
    .tuple(
      fc.record(
        {
          name: anyText,
          namespace: anyText,
          uid: fc.uuid(),
          resourceVersion: fc.nat().map(String),
          generation: fc.nat(),
          creationTimestamp: fc.constant('2024-05-01T10:00:00Z'),
          finalizers: fc.array(anyText, { maxLength: 2 }),
          managedFields: fc.array(someJson, { maxLength: 2 }),
          labels: labelMap,
        },
        { requiredKeys: ['name', 'uid'], noNullPrototype: true },
      ),
      annotationMap,
    )
    .map(([metadata, annotationsOfObject]) =>
      annotationsOfObject ? { ...metadata, annotations: annotationsOfObject } : metadata,
    );

const status = fc.oneof(
  {
    weight: 6,
    arbitrary: record({
      phase: fc.constantFrom(
        'Pending',
        'Provisioning',
        'Ready',
        'Scaling',
        'Resizing',
        'Upgrading',
        'Degraded',
        'Failed',
      ),
      observedGeneration: fc.nat(),
      readyReplicas: fc.nat(15),
      conditions: fc.array(
        record({
          type: fc.constant('Ready'),
          status: fc.constantFrom('True', 'False'),
          reason: anyText,
          message: anyText,
        }),
        { maxLength: 2 },
      ),
    }),
  },
  { weight: 1, arbitrary: someJson },
);

/** A whole object: spec and status each present, empty, or absent; metadata as the API server has it. */
function objectOf(
  apiVersion: string,
  spec: fc.Arbitrary<unknown>,
  annotationMap: fc.Arbitrary<Record<string, string> | undefined>,
) {
  return fc
    .record(
      {
        apiVersion: fc.constant(apiVersion),
        kind: fc.constant('GeoDatabase'),
        metadata: metadataOf(annotationMap),
        spec: fc.oneof({ weight: 8, arbitrary: spec }, { weight: 1, arbitrary: fc.constant({}) }),
        status,
        somethingElse: someJson,
      },
      { requiredKeys: ['apiVersion', 'kind', 'metadata'], noNullPrototype: true },
    )
    .map((object) => object as KubeObject);
}

const withAnnotation = (value: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.option(labelMap, { nil: undefined }), value)
    .map(([others, text]) => ({ ...others, [annotations.conversionData]: text }));

/**
 * Stashes a spoke object written by hand could carry: garbage, JSON of any shape, and JSON in the shape of either
 * spoke's stash with values that belong to some other object.
 */
const staleStash = fc.oneof(
  anyText,
  someJson.map((value) => JSON.stringify(value)),
  record({
    spec: fc.oneof(hubSpec, someJson),
    caches: fc.array(fc.oneof(hubCache, someJson), { maxLength: 4 }),
    defaultCache: fc.oneof(hubCache, someJson),
    defaultCacheAt: fc.oneof(fc.integer({ min: -2, max: 8 }), someJson),
    otherCaches: fc.oneof(fc.array(orWrongType(hubCache), { maxLength: 4 }), someJson),
    replacedAnnotation: fc.oneof(anyText, someJson),
  }).map((stash) => JSON.stringify(stash)),
);

/**
 * Hub objects; now and then one carrying the stash annotation itself (written on v1 by hand), which a trip through
 * an older version must keep too.
 */
export const hubObject = objectOf(
  `${group}/v1`,
  hubSpec,
  fc.oneof(
    { weight: 6, arbitrary: fc.constant(undefined) },
    { weight: 6, arbitrary: labelMap },
    { weight: 1, arbitrary: withAnnotation(fc.oneof(anyText, staleStash)) },
  ),
);

/** Spoke objects, with and without a stash they may have brought along from another object or another time. */
export const spokeObjects = {
  v1beta1: spokeObject(`${group}/v1beta1`, v1beta1Spec),
  v1alpha1: spokeObject(`${group}/v1alpha1`, v1alpha1Spec),
};

function spokeObject(apiVersion: string, spec: fc.Arbitrary<unknown>) {
  return objectOf(
    apiVersion,
    spec,
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(undefined) },
      { weight: 4, arbitrary: labelMap },
      { weight: 2, arbitrary: withAnnotation(staleStash) },
    ),
  );
}
