import { eventually } from '../../../../src/local-loop/eventually.ts';
import { judgementOf, type Judgement } from '../differential/api-server-judge.ts';
import type { Crd } from '../crd-revisions/crd.ts';
import { inParallel } from '../crd-revisions/in-parallel.ts';
import { expectStatus, type Rest } from '../raw-api.ts';
import type { CorpusCrd } from '../../../fixtures/crd-corpus/corpus.ts';
import type { SampleCase } from './corpus-samples.ts';

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** kube-apiserver's verdict on creating a CRD as written (a dry run): accepted, or refused in its words. */
export type CrdVerdict = { accepted: true } | { accepted: false; message: string };

export async function crdVerdict(api: Rest, crd: Record<string, unknown>): Promise<CrdVerdict> {
  const response = await api.send('POST', `${crds}?dryRun=All&fieldValidation=Strict`, crd);
  if (response.status === 201) return { accepted: true };
  const status = response.body as { code?: number; message?: string } | undefined;
  if (response.status !== 422 && response.status !== 400)
    throw new Error(`the API server answered HTTP ${response.status} to the CRD: ${response.text.slice(0, 400)}`);
  return { accepted: false, message: status?.message ?? response.text };
}

/**
 * The CRD as this test installs it: a conversion webhook (nothing here serves one) becomes conversion None, which
 * changes no object's validation, only what a read in another version returns; the status and the metadata but its
 * name, labels and annotations (an approval annotation a protected group needs) go.
 */
export function installable(crd: Crd): { crd: Crd; conversionReplaced: boolean } {
  const { status: _status, ...rest } = structuredClone(crd) as Crd & { status?: unknown };
  const { name, labels, annotations } = crd.metadata as { name: string; labels?: unknown; annotations?: unknown };
  const installed = {
    ...rest,
    metadata: {
      name,
      ...(labels === undefined ? {} : { labels }),
      ...(annotations === undefined ? {} : { annotations }),
    },
  } as Crd;
  const conversionReplaced = installed.spec.conversion?.strategy === 'Webhook';
  if (conversionReplaced) installed.spec.conversion = { strategy: 'None' };
  return { crd: installed, conversionReplaced };
}

function collectionPath(crd: Crd, version: string, namespace: string): string {
  const scope = crd.spec.scope === 'Namespaced' ? `/namespaces/${namespace}` : '';
  return `/apis/${crd.spec.group}/${version}${scope}/${crd.spec.names.plural}`;
}

/**
 * Creates the CRDs for real and resolves once every version each serves answers a list (what Established promises
 * a moment before it is true). A CRD of the same name another file left behind is waited out first.
 */
export async function installCrds(api: Rest, batch: readonly Crd[], namespace: string): Promise<void> {
  await inParallel(batch, 4, async (crd) => {
    const path = `${crds}/${crd.metadata.name}`;
    await eventually(
      `an earlier ${crd.metadata.name} to be gone`,
      async () => ((await api.send('GET', path)).status === 404 ? true : undefined),
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    await api.send('POST', `${crds}?fieldValidation=Strict`, crd).then(expectStatus(201));
    for (const version of crd.spec.versions.filter((candidate) => candidate.served))
      await eventually(
        `${crd.metadata.name} to serve ${version.name}`,
        async () =>
          (await api.send('GET', collectionPath(crd, version.name, namespace))).status === 200 ? true : undefined,
        { timeoutMs: 120_000, intervalMs: 100 },
      );
  });
}

/** Deletes the CRDs (no object of theirs was ever stored) and resolves once they are gone. */
export async function removeCrds(api: Rest, batch: readonly Crd[]): Promise<void> {
  await inParallel(batch, 4, async (crd) => {
    const path = `${crds}/${crd.metadata.name}`;
    await api.send('DELETE', path).then(expectStatus(200, 404));
    await eventually(
      `${crd.metadata.name} to be deleted`,
      async () => ((await api.send('GET', path)).status === 404 ? true : undefined),
      { timeoutMs: 120_000, intervalMs: 200 },
    );
  });
}

/**
 * kube-apiserver's answer to creating the sample as kubectl does with `--dry-run=server` (strict field validation,
 * kubectl's default): allowed with the object as it would store it (pruned, defaulted, its metadata set), or refused
 * with its causes.
 */
export async function sampleJudgement(api: Rest, crd: Crd, sample: SampleCase, namespace: string): Promise<Judgement> {
  const path = `${collectionPath(crd, sample.version, namespace)}?dryRun=All&fieldValidation=Strict`;
  return judgementOf(await api.send('POST', path, sample.object));
}

/** What kube-apiserver said of one CRD and of each of its samples (in order; none when it was not installed). */
export interface ApiServerAnswers {
  verdict: CrdVerdict;
  samples: Judgement[];
}

/**
 * One batch on the API server's side: its verdict on each CRD (a dry run of the CRD as written); those it accepts
 * that have samples installed (conversion None), every sample created with a dry run, then the CRDs deleted: their
 * deletion, which the next batch need not wait for, is pushed to `removals`.
 */
export async function apiServerBatch(
  api: Rest,
  batch: readonly CorpusCrd[],
  casesOf: ReadonlyMap<string, { cases: SampleCase[] }>,
  namespace: string,
  removals: Promise<void>[],
): Promise<Map<string, ApiServerAnswers>> {
  const verdicts = await inParallel(batch, 4, (crd) => crdVerdict(api, crd.crd));
  const answers = new Map<string, ApiServerAnswers>();
  batch.forEach((crd, index) => answers.set(crd.id, { verdict: verdicts[index]!, samples: [] }));
  const withSamples = batch.filter((crd, index) => verdicts[index]!.accepted && casesOf.get(crd.id)!.cases.length > 0);
  const installed = withSamples.map((crd) => installable(crd.crd as unknown as Crd).crd);
  await installCrds(api, installed, namespace);
  try {
    const work = withSamples.flatMap((crd, index) =>
      casesOf.get(crd.id)!.cases.map((sample) => ({ crd, installed: installed[index]!, sample })),
    );
    const judged = await inParallel(work, 8, ({ installed: crd, sample }) =>
      sampleJudgement(api, crd, sample, namespace),
    );
    work.forEach(({ crd }, index) => answers.get(crd.id)!.samples.push(judged[index]!));
  } finally {
    removals.push(removeCrds(api, installed));
  }
  return answers;
}
