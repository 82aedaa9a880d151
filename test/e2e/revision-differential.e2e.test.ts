import { describe, expect, it } from 'vitest';
import { labelWriteLabel } from '../../src/crd-revision/objects/predict-stored-object.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { expectFloors } from './support/case-floors.ts';
import type { CrdWithObjects } from './support/crd-revisions/crd.ts';
import { corpusInputs } from './support/crd-revisions/corpus-inputs.ts';
import { fixtureInputs } from './support/crd-revisions/fixture-inputs.ts';
import {
  describeTally,
  predictAndCompare,
  type DifferentialTally,
} from './support/crd-revisions/predict-and-compare.ts';
import { runDifferential, type DifferentialRun } from './support/crd-revisions/run-differential.ts';
import { useRevisionScene } from './support/crd-revisions/revision-scene.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const corpusDir = process.env['CRDGATE_CRD_CORPUS'];

// Floors on the counts, a little under what a run gives today (10 CRDs, 233 revisions, 1,523 objects, 7,433
// observations, among them 210 status writes, 140 refused, and 921 spec writes, 76 refused): 90% of each count, and
// counts of 5 or fewer as they are. A generator cut short, objects the
// old revision no longer stores, or a kind that finds no place any more fails here, where "no difference" alone
// would still pass.
const floors: Record<string, number> = {
  revisions: 209,
  objects: 1370,
  observations: 6689,
  'fieldRemoved revisions': 9,
  'enumNarrowed revisions': 9,
  'maxItemsLowered revisions': 6,
  'patternAdded revisions': 8,
  'requiredAdded revisions': 9,
  'typeChanged revisions': 9,
  'defaultAdded revisions': 8,
  'defaultChanged revisions': 8,
  'celRuleAdded revisions': 9,
  'celTransitionRuleAdded revisions': 9,
  'nullableRemoved revisions': 7,
  'preserveUnknownFieldsDropped revisions': 9,
  'listTypeChanged revisions': 6,
  'versionUnserved revisions': 9,
  'versionRemoved revisions': 9,
  'storageVersionMoved revisions': 9,
  'statusEnumNarrowed revisions': 9,
  'statusEnumNarrowedInListMap revisions': 9,
  'statusRequiredAdded revisions': 9,
  'status writes': 189,
  'status writes refused': 126,
  'spec writes': 828,
  'spec writes refused': 68,
  'optionalFieldAdded revisions': 9,
  'boundLoosened revisions': 5,
  'maximumLowered revisions': 4,
  'minimumRaised revisions': 5,
  'maxLengthLowered revisions': 7,
};

/**
 * Proof by difference, with kube-apiserver as the oracle: for each CRD, revisions of every kind `crdgate check`
 * names (generated, seeded), its objects stored under the old revision on the real API server, the new revision
 * applied, and each object then read in every served version, written back unchanged and with a label (dry runs),
 * deleted and created again. What the API server did must be what `crdgate check` predicts from the objects as
 * stored, object for object and observation by observation.
 */
describe.skipIf(!controlPlane)(
  'CRD revisions: what kube-apiserver does with each stored object is what crdgate predicts',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const { runId, namespace, rest } = useRevisionScene(cp, 'crdgate-e2e-revisions');

    const differential = async (
      what: string,
      inputs: readonly CrdWithObjects[],
      notes: readonly string[] = [],
    ): Promise<{ run: DifferentialRun; tally: DifferentialTally }> => {
      const started = Date.now();
      const run = await runDifferential(rest(), inputs, { namespace, runId, label: labelWriteLabel });
      const tally = predictAndCompare(run.observations);
      process.stderr.write(
        `[e2e] ${describeTally(what, tally)}\n` +
          `  not stored under the old revision (first 5): ${
            run.observations
              .flatMap((observation) =>
                observation.notStored.map(
                  (object) => `${observation.revision.id} ${object.name}: ${JSON.stringify(object.refused)}`,
                ),
              )
              .slice(0, 5)
              .join('; ') || 'none'
          }\n` +
          `  kinds without a place: ${run.withoutSite.map((miss) => `${miss.source} ${miss.kind} (${miss.reason})`).join('; ') || 'none'}\n` +
          (notes.length > 0 ? `  notes: ${notes.join('; ')}\n` : '') +
          `  ${((Date.now() - started) / 1000).toFixed(0)} s\n`,
      );
      expect(
        run.failed.map((failure) => `${failure.revision.id} (${failure.revision.change}): ${failure.error}`),
      ).toEqual([]);
      expect(tally.predictionFailures).toEqual([]);
      expect(tally.differences).toEqual([]);
      return { run, tally };
    };

    it("holds for the fixtures' CRDs and objects made from their schemas", async () => {
      const { tally } = await differential('test/fixtures', await fixtureInputs(namespace, 42));
      // Every object of the fixtures is one crdgate can see: nothing set apart.
      expect(tally.unseen).toEqual([]);
      const counts = {
        revisions: tally.revisions,
        objects: tally.objects,
        observations: tally.observations,
        ...Object.fromEntries([...tally.byKind].map(([kind, entry]) => [`${kind} revisions`, entry.revisions])),
        'status writes': tally.oneFieldWrites.status,
        'status writes refused': tally.oneFieldWrites.statusRefused,
        'spec writes': tally.oneFieldWrites.spec,
        'spec writes refused': tally.oneFieldWrites.specRefused,
      };
      expectFloors('revision differential', counts, floors);
    }, 900_000);

    if (corpusDir) {
      it('holds for the CRD corpus of CRDGATE_CRD_CORPUS and its samples', async () => {
        const { inputs, notes } = await corpusInputs(corpusDir, namespace);
        const { tally } = await differential(
          `corpus (${inputs.length} CRDs, ${inputs.reduce((sum, input) => sum + input.objects.length, 0)} samples)`,
          inputs,
          notes,
        );
        expect(tally.objects).toBeGreaterThan(0);
      }, 3_600_000);
    }
  },
);
