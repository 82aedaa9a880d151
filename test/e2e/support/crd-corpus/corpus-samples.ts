import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import type { CorpusCrd } from '../../../fixtures/crd-corpus/corpus.ts';
import type { Crd } from '../crd-revisions/crd.ts';

/** One upstream document of a CRD's kind, as this test sends it to kube-apiserver and gives it to crdgate. */
export interface SampleCase {
  /** `path#N`: the file it came from, and which of that file's documents of the kind it is (from 0). */
  name: string;
  version: string;
  /** The document, in the test's namespace when its kind is namespaced; nothing else changed. */
  object: KubeObject;
}

/** A document of the kind that is not sent, and why. */
export interface SkippedSample {
  name: string;
  why: string;
}

/**
 * The documents of the CRD's group and kind in a version it serves, each as written but for its namespace: the
 * test's own, where the kind is namespaced (the API server requires the object's namespace to be the request's).
 * Names stay as written, placeholders and generateName alike: a dry run stores nothing, so names never collide, and
 * the API server decides a `${NAME}` as any other value. Documents in a version the CRD does not serve are skipped.
 */
export function sampleCases(
  corpusCrd: CorpusCrd,
  namespace: string,
): { cases: SampleCase[]; skipped: SkippedSample[] } {
  const crd = corpusCrd.crd as unknown as Crd;
  const served = crd.spec.versions.filter((version) => version.served).map((version) => version.name);
  const cases: SampleCase[] = [];
  const skipped: SkippedSample[] = [];
  for (const sample of corpusCrd.samples) {
    sample.documents.forEach((document, index) => {
      const name = `${sample.path}#${index}`;
      const apiVersion = String(document['apiVersion']);
      const version = apiVersion.slice(apiVersion.indexOf('/') + 1);
      if (!served.includes(version)) {
        skipped.push({
          name,
          why: `${apiVersion} is not served (the CRD serves ${served.join(', ') || 'no version'})`,
        });
        return;
      }
      cases.push({ name, version, object: inNamespace(document, crd.spec.scope, namespace) });
    });
  }
  return { cases, skipped };
}

function inNamespace(document: Record<string, unknown>, scope: string, namespace: string): KubeObject {
  const object = structuredClone(document) as KubeObject;
  if (scope !== 'Namespaced') return object;
  const metadata = object.metadata;
  // A metadata that is no object is the API server's to refuse as written.
  if (metadata === undefined || metadata === null) return { ...object, metadata: { namespace } };
  if (typeof metadata === 'object' && !Array.isArray(metadata))
    return { ...object, metadata: { ...metadata, namespace } };
  return object;
}
