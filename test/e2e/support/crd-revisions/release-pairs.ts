import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import { readCorpus } from '../../../fixtures/crd-corpus/corpus.ts';
import { asSample } from './corpus-inputs.ts';
import { applicableCrd, type Crd } from './crd.ts';
import type { CrdRevision } from './generate-revisions.ts';

/**
 * Each pair of consecutive releases of the corpus' release series (test/fixtures/crd-corpus) as a revision: the
 * CRD at one release, the CRD at the next, and the upstream examples of the first release as the objects stored
 * under it (their status kept, written as an operator writes it). Examples of a version the first release does not
 * serve are left out; at most `maxObjects` per pair, in the order the corpus gives them. Each CRD is taken as the
 * observation applies it (applicableCrd: no status, of its metadata its name and annotations), and a conversion
 * webhook is replaced by None in both releases (no webhook runs here), which the notes say.
 */
export function releasePairs(options: { namespace: string; maxObjects?: number }): {
  pairs: CrdRevision[];
  notes: string[];
} {
  const pairs: CrdRevision[] = [];
  const notes: string[] = [];
  for (const series of readCorpus().releaseSeries) {
    for (const [index, release] of series.releases.slice(0, -1).entries()) {
      const next = series.releases[index + 1]!;
      // As the observation applies them (applicableCrd), so that what is predicted is what is applied: a label of
      // a chart's template left in a CRD file (cert-manager's) is not the revision's.
      const [old, now] = [release.crd, next.crd].map((crd) => applicableCrd(crd as unknown as Crd));
      const id = `${series.project} ${series.kind} ${release.tag} → ${next.tag}`;
      for (const crd of [old!, now!]) {
        if (crd.spec.conversion?.strategy !== 'Webhook') continue;
        crd.spec.conversion = { strategy: 'None' };
        if (crd === old) notes.push(`${id}: conversion webhook replaced by None`);
      }
      const served = new Set(
        old!.spec.versions.filter((version) => version.served).map((version) => `${old!.spec.group}/${version.name}`),
      );
      const objects = release.samples
        .flatMap((sample) => sample.documents)
        .filter((document) => served.has(String(document['apiVersion'])))
        .slice(0, options.maxObjects ?? Infinity)
        .map((document, at) => asSample(structuredClone(document) as KubeObject, at, old!, options.namespace));
      pairs.push({
        id,
        source: `${series.project} ${series.kind}`,
        kind: 'release',
        change: `${release.tag} → ${next.tag}`,
        old: old!,
        new: now!,
        objects,
      });
    }
  }
  return { pairs, notes };
}
