import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isPlainObject, type KubeObject } from '../../index.ts';
import { contractTester } from '../../testing.ts';
import { hubObject, spokeObjects } from './conversion-arbitraries.fixture.ts';
import { geoDatabaseContract } from './index.ts';
import { annotations, group } from './types.ts';

const contract = geoDatabaseContract();
// Converts as the webhook does, with crdgate's checks on every step.
const tester = contractTester(contract);
const generators: Record<string, fc.Arbitrary<KubeObject>> = { v1: hubObject, ...spokeObjects };
const versions = ['v1', 'v1beta1', 'v1alpha1'];
const pairs = versions.flatMap((from) => versions.filter((to) => to !== from).map((to) => [from, to] as const));

/** The object without the stash annotation, which is all a round trip may change (and only when it brought one). */
function withoutStash(object: KubeObject): KubeObject {
  const { [annotations.conversionData]: _stash, ...others } = object.metadata?.annotations ?? {};
  const metadata = { ...object.metadata };
  if (Object.keys(others).length === 0) delete metadata.annotations;
  else metadata.annotations = others;
  return { ...object, metadata };
}

/** Frozen all the way down, so that a conversion that modifies its input throws instead of passing unnoticed. */
function deepFreeze<T>(value: T): T {
  if (Array.isArray(value) || isPlainObject(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

/** expect().toStrictEqual, with Node's much faster comparison first: vitest's only runs to explain a failure. */
function expectSame(actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) expect(actual).toStrictEqual(expected);
}

const carriesStash = (object: KubeObject) => object.metadata?.annotations?.[annotations.conversionData] !== undefined;

describe('GeoDatabase conversion round trips', () => {
  // Each property goes from -> (hub) -> to -> (hub) -> from through the hub, so spoke pairs take the longest
  // path there is: spoke -> hub -> other spoke -> hub -> spoke.
  it.each(pairs)(
    '%s -> %s -> back is exact',
    (from, to) => {
      fc.assert(
        fc.property(generators[from]!, (object) => {
          const original = structuredClone(object);
          deepFreeze(object);
          const there = tester.convert(object, `${group}/${to}`);
          expect(there.apiVersion).toBe(`${group}/${to}`);
          const back = tester.convert(there, `${group}/${from}`);
          if (from === contract.hub || !carriesStash(original)) {
            // A hub object loses nothing anywhere; a spoke object without a stash gains none on the way back.
            expectSame(back, original);
          } else {
            // A stash a spoke object brought along is replaced by one that fits it.
            expectSame(withoutStash(back), withoutStash(original));
          }
        }),
        { numRuns: 10_000 },
      );
    },
    60_000,
  );

  // The generators' stale stashes are mostly shapes no conversion writes; these are real ones, of another object.
  it.each(['v1beta1', 'v1alpha1'] as const)(
    'a %s object carrying the stash of another object still round-trips',
    (version) => {
      fc.assert(
        fc.property(spokeObjects[version], hubObject, (spoke, other) => {
          const stash = tester.convert(other, `${group}/${version}`).metadata?.annotations?.[
            annotations.conversionData
          ];
          const carrying = stash === undefined ? spoke : withAnnotation(spoke, stash);
          deepFreeze(carrying);
          const back = tester.convert(tester.convert(carrying, `${group}/v1`), `${group}/${version}`);
          expectSame(withoutStash(back), withoutStash(carrying));
        }),
        { numRuns: 5_000 },
      );
    },
    60_000,
  );
});

function withAnnotation(object: KubeObject, text: string): KubeObject {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      annotations: { ...object.metadata?.annotations, [annotations.conversionData]: text },
    },
  };
}
