import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { geoDatabaseContract } from '../../../../src/contracts/geodatabase/index.ts';
import { committedCrdsDir } from '../../../fixtures/controller-gen/generate.ts';
import type { CheckResult } from '../../../../src/check/check-object.ts';
import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import { defineContract } from '../../../../src/contract/define-contract.ts';
import { fromCrd } from '../../../../src/contract/from-crd.ts';
import { contractTester } from '../../../../src/testing.ts';
import { storableVariant } from '../differential/storable-base.ts';
import { validGeoDatabase } from '../geodatabases.ts';
import { hubOnlyCrd } from '../raw-api.ts';
import { storageVersionOf, type Crd, type CrdWithObjects } from './crd.ts';
import { sampleObjects } from './sample-objects.ts';
import { seededRandom, seedOf } from './seeded-random.ts';

const handWrittenCrdsDir = new URL('../../../fixtures/crds/', import.meta.url).pathname;

/** Objects made per CRD besides the minimal and the full one. */
const sampledObjects = 6;

/** Objects per CRD brought to the nearest variant its rules allow (the minimal one, the full one, and one sample). */
const repairedObjects = 3;

/**
 * The CRDs of test/fixtures, each with objects made from its schema (seeded): controller-gen's, the hand-written
 * ones of test/fixtures/crds, and GeoDatabase's as `crdgate manifests` renders it, with its hub version alone (its
 * conversion webhook would need crdgate running in front of the API server).
 */
export async function fixtureInputs(namespace: string, seed: number): Promise<CrdWithObjects[]> {
  const crds: Array<{ source: string; crd: Crd; example?: KubeObject }> = [];
  for (const dir of [committedCrdsDir, handWrittenCrdsDir]) {
    for (const file of (await readdir(dir)).filter((name) => name.endsWith('.yaml')).sort()) {
      for (const document of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
        const crd = document.toJS() as Crd | null;
        if (crd?.kind === 'CustomResourceDefinition') crds.push({ source: crd.spec.names.kind, crd });
      }
    }
  }
  crds.push({
    source: 'GeoDatabase',
    crd: hubOnlyCrd(geoDatabaseContract()) as unknown as Crd,
    example: validGeoDatabase(namespace, 'example'),
  });
  return crds.map(({ source, crd, example }) => {
    const objects = sampleObjects(crd, sampledObjects, seededRandom(seedOf(seed, source)), namespace, example);
    const check = storableCheck(crd);
    // Repairing takes seconds an object for a CRD of many rules: the first few are repaired; of the rest, those
    // crdgate says the CRD refuses are left out, rather than sent to be refused.
    if (!check) return { source, crd, objects };
    return {
      source,
      crd,
      objects: objects.flatMap((object, index) =>
        index < repairedObjects ? [storable(crd, object, check)] : check(object).allowed ? [object] : [],
      ),
    };
  });
}

/**
 * The nearest variant of a sampled object that the CRD's own rules allow (crdgate's check of the CRD alone): a
 * sample seldom meets every CEL rule as made (fields that exclude each other, a window whose end must follow its
 * start), and objects the old revision refuses teach nothing about the new one. The API server has the last word:
 * what it still refuses is left out and counted.
 */
function storable(crd: Crd, object: KubeObject, check: (object: KubeObject) => CheckResult): KubeObject {
  const schema = storageVersionOf(crd).schema!.openAPIV3Schema;
  return (
    (storableVariant(schema, object as Record<string, unknown>, (candidate) =>
      check({ ...candidate, metadata: object.metadata } as KubeObject),
    ) as KubeObject | undefined) ?? object
  );
}

function storableCheck(crd: Crd): ((object: KubeObject) => CheckResult) | undefined {
  if (!storageVersionOf(crd).schema) return undefined;
  const tester = contractTester(defineContract(fromCrd(crd as never)));
  return (object) => tester.check(object as never);
}
