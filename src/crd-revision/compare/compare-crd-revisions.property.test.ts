import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareCrdRevisions } from './compare-crd-revisions.ts';
import { schemasAtPath } from '../schema/schema-path.ts';

// Generated revisions of a CRD: schemas drawn from a few field names (so that two revisions share many fields),
// every keyword a rule reads, sometimes a value of the wrong type. The comparison must answer for any pair, and a
// finding about a field must name one that one of the two revisions has.

const runs = Number(process.env['CRDGATE_FUZZ_RUNS'] ?? 500);

const keyword = <T>(name: string, value: fc.Arbitrary<T>) =>
  fc.option(
    value.map((v) => ({ [name]: v })),
    { nil: {} },
  );
const junk = fc.oneof(fc.constant(null), fc.string({ maxLength: 3 }), fc.integer(), fc.constant([]), fc.constant({}));

/** A schema nested at most `depth` levels below: the generator stays small enough to run hundreds of pairs. */
function schemaOfDepth(depth: number): fc.Arbitrary<Record<string, unknown>> {
  const nested =
    depth === 0 ? fc.constant(undefined) : fc.option(schemaOfDepth(depth - 1), { nil: undefined, freq: 2 });
  const child = <T>(name: string, value: fc.Arbitrary<T | undefined>) =>
    value.map((v) => (v === undefined ? {} : { [name]: v }));
  return fc
    .tuple(
      keyword('type', fc.oneof(fc.constantFrom('object', 'array', 'string', 'integer', 'number', 'boolean'), junk)),
      depth === 0
        ? fc.constant({})
        : keyword(
            'properties',
            fc.dictionary(fc.constantFrom('a', 'b', 'c', 'app.kubernetes.io/x', '*'), schemaOfDepth(depth - 1), {
              maxKeys: 3,
            }),
          ),
      child('items', nested),
      child('additionalProperties', fc.oneof(fc.constant(undefined), fc.boolean(), nested)),
      keyword('enum', fc.oneof(fc.array(fc.constantFrom('x', 'y', 1, null), { maxLength: 3 }), junk)),
      keyword('default', fc.oneof(fc.constantFrom('x', 1, true), junk)),
      keyword('maximum', fc.oneof(fc.integer({ min: -3, max: 3 }), junk)),
      keyword('minLength', fc.integer({ min: 0, max: 3 })),
      keyword('multipleOf', fc.oneof(fc.integer({ min: 0, max: 4 }), junk)),
      keyword('required', fc.oneof(fc.array(fc.constantFrom('a', 'b', 'z'), { maxLength: 2 }), junk)),
      keyword('pattern', fc.oneof(fc.constantFrom('^a', '^b'), junk)),
      keyword('nullable', fc.boolean()),
      keyword(
        'x-kubernetes-validations',
        fc.oneof(
          fc.array(
            fc.record({ rule: fc.constantFrom('self > 0', 'self == oldSelf'), message: fc.constantFrom('m', 'n') }),
            { maxLength: 2 },
          ),
          junk,
        ),
      ),
      keyword('x-kubernetes-list-type', fc.oneof(fc.constantFrom('atomic', 'set', 'map'), junk)),
      keyword('x-kubernetes-list-map-keys', fc.array(fc.constantFrom('a', 'b'), { maxLength: 2 })),
      keyword('x-kubernetes-preserve-unknown-fields', fc.boolean()),
      keyword('x-kubernetes-embedded-resource', fc.boolean()),
      keyword('anyOf', fc.array(fc.constant({ required: ['a'] }), { maxLength: 1 })),
      keyword('description', fc.oneof(fc.constantFrom('A thing.', ''), junk)),
    )
    .map((parts) => Object.assign({}, ...parts) as Record<string, unknown>);
}

const schema = schemaOfDepth(3);

const version = fc.record({
  name: fc.constantFrom('v1alpha1', 'v1beta1', 'v1'),
  served: fc.boolean(),
  storage: fc.boolean(),
  schema: fc.option(
    fc.record({ openAPIV3Schema: fc.oneof({ weight: 5, arbitrary: schema }, { weight: 1, arbitrary: junk }) }),
    { nil: undefined },
  ),
  additionalPrinterColumns: fc.array(
    fc.record({
      name: fc.constantFrom('A', 'B'),
      type: fc.constantFrom('string', 'integer'),
      jsonPath: fc.constantFrom('.spec.a', '.spec.b'),
    }),
    { maxLength: 2 },
  ),
  selectableFields: fc.array(fc.record({ jsonPath: fc.constantFrom('.spec.a', '.spec.b') }), { maxLength: 2 }),
  subresources: fc.oneof(
    fc.record(
      {
        status: fc.oneof(fc.constant({}), junk),
        scale: fc.option(
          fc.record({
            specReplicasPath: fc.constantFrom('.spec.a', '.spec.b'),
            statusReplicasPath: fc.constant('.status.a'),
            labelSelectorPath: fc.option(fc.constant('.status.s'), { nil: undefined }),
          }),
          { nil: undefined },
        ),
      },
      { requiredKeys: [] },
    ),
    junk,
  ),
});

const crd = fc.record({
  apiVersion: fc.constant('apiextensions.k8s.io/v1'),
  kind: fc.constant('CustomResourceDefinition'),
  spec: fc.record({
    scope: fc.constantFrom('Namespaced', 'Cluster'),
    names: fc.record({
      kind: fc.constantFrom('Widget', 'Gadget'),
      plural: fc.constant('widgets'),
      shortNames: fc.array(fc.constantFrom('wd', 'wg'), { maxLength: 2 }),
    }),
    versions: fc.oneof({ weight: 5, arbitrary: fc.array(version, { maxLength: 3 }) }, { weight: 1, arbitrary: junk }),
    conversion: fc.option(
      fc.record({
        strategy: fc.constantFrom('None', 'Webhook'),
        webhook: fc.constant({ conversionReviewVersions: ['v1'] }),
      }),
      { nil: undefined },
    ),
  }),
  status: fc.option(
    fc.record({ storedVersions: fc.array(fc.constantFrom('v1alpha1', 'v1beta1', 'v1'), { maxLength: 2 }) }),
    { nil: undefined },
  ),
});

/** The first schema a version of this name has in a revision, as the comparison reads it. */
function schemaOf(revision: any, name: string): unknown {
  const versions = Array.isArray(revision.spec.versions) ? revision.spec.versions : [];
  return versions.find((v: any) => v?.name === name)?.schema?.openAPIV3Schema;
}

describe('compareCrdRevisions on generated revisions', () => {
  it('answers for every pair, and every finding about a field names one a revision has', () => {
    fc.assert(
      fc.property(crd, crd, (old, now) => {
        const findings = compareCrdRevisions(old, now);
        for (const finding of findings) {
          expect(finding.message).not.toBe('');
          if (finding.path === undefined) continue;
          expect(finding.version, finding.message).toBeDefined();
          // A difference between two served versions of the new revision names a field of the one or the other.
          const roots =
            finding.comparedWith === undefined
              ? [schemaOf(old, finding.version!), schemaOf(now, finding.version!)]
              : [schemaOf(now, finding.version!), schemaOf(now, finding.comparedWith)];
          const found = roots.some((root) => schemasAtPath(root, finding.path!).length > 0);
          expect(found, `${finding.version} ${finding.path}: ${finding.message}`).toBe(true);
        }
      }),
      { numRuns: runs },
    );
  });

  it('finds nothing between a generated revision and its copy', () => {
    fc.assert(
      fc.property(crd, (revision) => {
        expect(compareCrdRevisions(revision, structuredClone(revision))).toEqual([]);
      }),
      { numRuns: runs },
    );
  });
});
