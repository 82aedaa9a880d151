import { readCorpus } from '../test/fixtures/crd-corpus/corpus.ts';

// Gateway API's HTTPRoute (its CRD carries about 180 CEL rules) from the repository's pinned corpus, and objects for
// the bench made from the project's own examples of it: its conformance tests' and its standard examples' routes.
// The invalid examples (written to be refused) and the experimental ones (fields of the experimental channel's CRD,
// which the standard CRD prunes or refuses) are left out; which of the rest every checker allows is for the bench to
// find out, since a refusal is a cheaper path.

export const HTTPROUTE_CRD_ID = 'httproutes.gateway.networking.k8s.io';

export interface HttpRouteSource {
  /** The project and release it was published in, as the corpus records them. */
  release: string;
  crd: Record<string, unknown>;
  /** Every example route, with the file it came from. */
  samples: Array<{ path: string; object: Record<string, unknown> }>;
}

export function httpRouteSource(): HttpRouteSource {
  const crd = readCorpus().crds.find((entry) => entry.id === HTTPROUTE_CRD_ID);
  if (!crd) throw new Error(`the corpus (test/fixtures/crd-corpus) has no ${HTTPROUTE_CRD_ID}`);
  const samples = crd.samples
    .filter((sample) => !/(^|\/)(hack|experimental)\//.test(sample.path))
    .flatMap((sample) =>
      sample.documents
        .filter((document) => document['kind'] === 'HTTPRoute')
        .map((object, index) => ({ path: `${sample.path}#${index}`, object })),
    );
  if (samples.length === 0) throw new Error(`the corpus has no example of ${HTTPROUTE_CRD_ID}`);
  return { release: `${crd.project} ${crd.tag ?? crd.commit.slice(0, 12)}`, crd: crd.crd, samples };
}

/**
 * `count` routes drawn from the examples in turn, each under a name of its own (route-N) in one of 40 namespaces, so
 * that no two objects are the same one; everything else as the example has it.
 */
export function httpRouteObjects(examples: readonly Record<string, unknown>[], count: number): object[] {
  if (examples.length === 0) throw new Error('no example routes to make objects from');
  return Array.from({ length: count }, (_, n) => {
    const example = examples[n % examples.length]!;
    const metadata = (example['metadata'] ?? {}) as Record<string, unknown>;
    return { ...example, metadata: { ...metadata, name: `route-${n}`, namespace: `team-${n % 40}` } };
  });
}
