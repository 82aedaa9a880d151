import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { forgetContractCrd } from '../../src/api-server-engine/contract-crd.ts';
import type { Contract } from '../../src/contract/contract-definition.ts';
import { contractTester, type CheckResult } from '../../src/testing.ts';
import { readCorpus, type CorpusCrd } from '../fixtures/crd-corpus/corpus.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { expectFloors } from './support/case-floors.ts';
import {
  apiServerBatch,
  installable,
  type ApiServerAnswers,
  type CrdVerdict,
} from './support/crd-corpus/api-server-side.ts';
import { sampleCases, type SampleCase, type SkippedSample } from './support/crd-corpus/corpus-samples.ts';
import {
  externalLoad,
  initInProcess,
  loadProjectContract,
  ownedLoad,
  projectsFolder,
  type Load,
} from './support/crd-corpus/crdgate-side.ts';
import { withGeneratedNamesAlike } from './support/crd-corpus/generated-names.ts';
import { reviewAsSent } from './support/crd-corpus/webhook-review.ts';
import type { Crd } from './support/crd-revisions/crd.ts';
import { crdgate } from './support/crdgate-cli.ts';
import type { Judgement } from './support/differential/api-server-judge.ts';
import { disagreementOf } from './support/differential/compare.ts';
import { expectStatus, restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

// The corpus of real CRDs (test/fixtures/crd-corpus: 342 CRDs of 44 projects as they publish them, and their own
// example objects) through this lane's kube-apiserver, against crdgate's contract path:
// - every CRD: the API server's verdict on creating it as written (a dry run) against fromCrd through defineContract
//   (owned, with the pass-through conversions init scaffolds, and external) and `crdgate init --from-crd FILE
//   --crd-owner external` (the command's code in this process, then the contract of the project it wrote);
// - every sample in a version its CRD serves: created with a dry run (CRDs installed a batch at a time, a conversion
//   webhook replaced by None, which the output counts), then crdgate's validating webhook given the object as that
//   API server would send it must allow every sample it accepts (a denial is a webhook blocking a valid write), and
//   contractTester's check (`crdgate check --contract`'s decision) must give its outcome: the same stored object
//   when allowed, the same fields and messages when refused.
// The API server works a batch ahead of crdgate, so that both cores are busy; the output gives the time of each.

interface CrdResult {
  crd: CorpusCrd;
  verdict: CrdVerdict;
  owned: Load;
  external: Load;
  init: Load;
  conversionReplaced: boolean;
  cases: SampleCase[];
  skipped: SkippedSample[];
}

interface SampleResult {
  crd: string;
  sample: SampleCase;
  apiServer: Judgement;
  check: CheckResult;
  /** The validating webhook's answer on a sample the API server accepted. */
  webhook?: { allowed: boolean; message?: string };
}

/** CRDs per batch: enough to keep the API server busy while crdgate decides the batch before. */
const batchSize = 16;

/** A CRD crdgate declines to own though the API server takes it: its storage migration could never read it. */
const unmigratable = /storage version \S+ must be served: crdgate's storage migration reads and writes objects in it/;

describe.skipIf(!controlPlane)('the CRD corpus: every CRD and sample as kube-apiserver decides it', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const namespace = `crd-corpus-${randomUUID().slice(0, 8)}`;
  let api: Rest;
  let workDir: string;
  const crdResults: CrdResult[] = [];
  const sampleResults: SampleResult[] = [];

  beforeAll(async () => {
    const started = performance.now();
    const cpuAtStart = process.cpuUsage();
    api = restClient(cp.kubeconfigPath, { maxSockets: 8, timeoutMs: 120_000 });
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-corpus-'));
    await projectsFolder(workDir);
    await api
      .send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
      .then(expectStatus(201));
    const corpus = readCorpus();
    const casesOf = new Map(corpus.crds.map((crd) => [crd.id, sampleCases(crd, namespace)]));

    const batches: CorpusCrd[][] = [];
    for (let index = 0; index < corpus.crds.length; index += batchSize)
      batches.push(corpus.crds.slice(index, index + batchSize));
    const removals: Promise<void>[] = [];
    let apiServerBusy = 0;
    let previous: Promise<unknown> = Promise.resolve();
    const fromApiServer = batches.map((batch) => {
      const answers = previous.then(async () => {
        const from = performance.now();
        const batchAnswers = await apiServerBatch(api, batch, casesOf, namespace, removals);
        apiServerBusy += performance.now() - from;
        return batchAnswers;
      });
      previous = answers.catch(() => undefined);
      return answers;
    });

    let crdgateBusy = 0;
    for (const [index, batch] of batches.entries()) {
      const from = performance.now();
      const decided = [];
      for (const crd of batch) decided.push(await decideWithCrdgate(crd, casesOf.get(crd.id)!, workDir));
      crdgateBusy += performance.now() - from;
      const answers = await fromApiServer[index]!;
      const comparedFrom = performance.now();
      for (const entry of decided) compare(entry, answers.get(entry.result.crd.id)!);
      crdgateBusy += performance.now() - comparedFrom;
    }
    await Promise.all(removals);
    const cpu = process.cpuUsage(cpuAtStart);
    const seconds = (ms: number) => Math.round(ms / 100) / 10;
    console.info(
      `crd-corpus time: ${seconds(performance.now() - started)} s in all; crdgate busy ${seconds(crdgateBusy)} s, ` +
        `the API server's side ${seconds(apiServerBusy)} s (both at once); this process's CPU ` +
        `${seconds((cpu.user + cpu.system) / 1000)} s`,
    );
  }, 900_000);

  afterAll(async () => {
    await api?.send('DELETE', `/api/v1/namespaces/${namespace}`);
    api?.close();
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  /** What crdgate makes of one CRD, and for its samples contractTester's check of each (they need no API server). */
  async function decideWithCrdgate(
    crd: CorpusCrd,
    samples: { cases: SampleCase[]; skipped: SkippedSample[] },
    dir: string,
  ) {
    // Lets the API server's requests go out and their answers in between CRDs.
    await new Promise((resolve) => setImmediate(resolve));
    const init = await initInProcess(crd, dir);
    const result: CrdResult = {
      crd,
      verdict: { accepted: true },
      owned: ownedLoad(crd),
      external: externalLoad(crd),
      init: init.load,
      conversionReplaced: installable(crd.crd as unknown as Crd).conversionReplaced,
      ...samples,
    };
    if (!init.load.loaded || samples.cases.length === 0) return { result };
    const contract = init.load.contract;
    const tester = contractTester(contract);
    return { result, contract, tester, checks: samples.cases.map((sample) => tester.check(sample.object)) };
  }

  /** The API server's answers beside crdgate's: the webhook asked on each sample it accepted. */
  function compare(decided: Awaited<ReturnType<typeof decideWithCrdgate>>, answers: ApiServerAnswers): void {
    const { result } = decided;
    result.verdict = answers.verdict;
    crdResults.push(result);
    if (!('tester' in decided)) return;
    const { contract, tester, checks } = decided as Required<typeof decided> & { contract: Contract };
    result.cases.forEach((sample, index) => {
      const apiServer = answers.samples[index];
      if (apiServer === undefined) return;
      const sampleResult: SampleResult = { crd: result.crd.id, sample, apiServer, check: checks[index]! };
      if (apiServer.allowed) {
        const response = tester.review(
          'validate',
          reviewAsSent(contract, apiServer.stored as never, sample.version),
        ).response;
        sampleResult.webhook = {
          allowed: response?.allowed === true,
          ...(response?.status?.message === undefined ? {} : { message: response.status.message }),
        };
      }
      sampleResults.push(sampleResult);
    });
    // The engine's memory only grows: each contract's compiled CRD goes once its samples are decided.
    forgetContractCrd(contract);
  }

  it('loads every CRD kube-apiserver accepts (owned, external, through crdgate init), and refuses what it refuses', () => {
    const disagreements: string[] = [];
    for (const result of crdResults) {
      const loads = { owned: result.owned, external: result.external, 'init --from-crd': result.init };
      for (const [how, load] of Object.entries(loads)) {
        const { verdict } = result;
        if (verdict.accepted && !load.loaded && !(how === 'owned' && unmigratable.test(load.error)))
          disagreements.push(`${result.crd.id} (${how}): kube-apiserver accepts it, crdgate refuses: ${load.error}`);
        if (!verdict.accepted && load.loaded)
          disagreements.push(
            `${result.crd.id} (${how}): kube-apiserver refuses it (${verdict.message}), crdgate loads it`,
          );
        if (!verdict.accepted && !load.loaded && !load.error.includes(verdict.message))
          disagreements.push(
            `${result.crd.id} (${how}): kube-apiserver refuses it with "${verdict.message}", crdgate with "${load.error}"`,
          );
      }
    }
    for (const line of disagreements) console.info(`crd-corpus CRD disagreement: ${line}`);
    const accepted = crdResults.filter((result) => result.verdict.accepted);
    const loaded = (pick: (result: CrdResult) => Load) => accepted.filter((result) => pick(result).loaded).length;
    const notOwnable = accepted.filter((result) => !result.owned.loaded && unmigratable.test(result.owned.error));
    for (const result of notOwnable)
      console.info(
        `crd-corpus CRD crdgate would not own: ${result.crd.id}: ${(result.owned as { error: string }).error}`,
      );
    const counts = {
      CRDs: crdResults.length,
      projects: new Set(crdResults.map((result) => result.crd.project)).size,
      accepted: accepted.length,
      refused: crdResults.length - accepted.length,
      'owned loads': loaded((result) => result.owned),
      'owned refused: storage version not served': notOwnable.length,
      'external loads': loaded((result) => result.external),
      'init loads': loaded((result) => result.init),
      'conversion webhook replaced by None': crdResults.filter((result) => result.conversionReplaced).length,
    };
    console.info(`crd-corpus CRDs: ${JSON.stringify(counts)}`);
    expect(disagreements).toEqual([]);
    // What a run gives today: all 342 CRDs of 44 projects accepted, NATS' StreamTemplate (no version served) the one
    // crdgate will not own; 6 conversion webhooks replaced.
    expectFloors('crd-corpus CRDs', counts, {
      CRDs: 342,
      projects: 44,
      accepted: 342,
      'owned loads': 341,
      'external loads': 342,
      'init loads': 342,
      'conversion webhook replaced by None': 6,
    });
    expect(notOwnable.length).toBeLessThanOrEqual(1);
  });

  it("allows every sample kube-apiserver accepts in crdgate's validating webhook", () => {
    const blocked = sampleResults.filter((result) => result.webhook?.allowed === false);
    for (const result of blocked)
      console.info(
        `crd-corpus webhook blocks a valid write: ${result.crd} ${result.sample.name}: ${result.webhook!.message}`,
      );
    const counts = {
      'samples accepted': sampleResults.filter((result) => result.apiServer.allowed).length,
      'sent to the webhook': sampleResults.filter((result) => result.webhook !== undefined).length,
      'webhook allows': sampleResults.filter((result) => result.webhook?.allowed === true).length,
      'sent in another version than written': sampleResults.filter(
        (result) => result.webhook !== undefined && result.sample.version !== hubOf(result),
      ).length,
    };
    console.info(`crd-corpus webhook: ${JSON.stringify(counts)}`);
    expect(blocked.map((result) => `${result.crd} ${result.sample.name}`)).toEqual([]);
    // What a run gives today: 3,484 accepted samples, every one allowed; 120 of them written in a version other than
    // the hub, which the API server relabels as the hub for the webhook.
    expectFloors('crd-corpus webhook', counts, {
      'samples accepted': 3480,
      'sent to the webhook': 3480,
      'webhook allows': 3480,
      'sent in another version than written': 115,
    });
  });

  /** The version the contract's webhooks are registered for. */
  function hubOf(result: SampleResult): string | undefined {
    const init = crdResults.find((candidate) => candidate.crd.id === result.crd)?.init;
    return init?.loaded ? init.contract.hub : undefined;
  }

  it('decides every sample with contractTester (crdgate check) as kube-apiserver does', () => {
    const disagreements = sampleResults.flatMap((result) => {
      const alike = withGeneratedNamesAlike(result.sample.object, result.apiServer, result.check);
      const disagreement = disagreementOf(`${result.crd} ${result.sample.name}`, alike.apiServer, alike.check);
      return disagreement === undefined ? [] : [disagreement];
    });
    for (const disagreement of disagreements)
      console.info(
        `crd-corpus check disagrees: ${disagreement.case}\n  kube-apiserver: ${disagreement.apiServer}\n  crdgate:        ${disagreement.crdgate}`,
      );
    const skipped = crdResults.flatMap((result) => result.skipped.map((sample) => ({ crd: result.crd.id, ...sample })));
    for (const sample of skipped)
      console.info(`crd-corpus sample skipped: ${sample.crd} ${sample.name}: ${sample.why}`);
    const counts = {
      'sample documents': crdResults.reduce((sum, result) => sum + result.cases.length + result.skipped.length, 0),
      decided: sampleResults.length,
      'skipped (version not served)': skipped.length,
      accepted: sampleResults.filter((result) => result.apiServer.allowed).length,
      refused: sampleResults.filter((result) => !result.apiServer.allowed).length,
      agreed: sampleResults.length - disagreements.length,
      'CRDs with samples': new Set(sampleResults.map((result) => result.crd)).size,
    };
    console.info(`crd-corpus samples: ${JSON.stringify(counts)}`);
    expect(disagreements.map((disagreement) => disagreement.case)).toEqual([]);
    // What a run gives today: 4,071 documents, 7 in versions no longer served; of the 4,064 decided, 3,484 accepted
    // and 580 refused, by 241 CRDs.
    expectFloors('crd-corpus samples', counts, {
      'sample documents': 4071,
      decided: 4060,
      accepted: 3480,
      refused: 575,
      agreed: 4060,
      'CRDs with samples': 241,
    });
  });

  it('makes the same contract with crdgate init as a user runs it (a process of its own, npm steps included)', async () => {
    // postgresql (a lowercase kind), the largest CRD of the corpus, and Cluster API's Cluster (several versions).
    // init depends on the crdgate this run packed, and makes package-lock.json with npm.
    const chosen = ['postgresqls.acid.zalan.do', 'cronworkflows.argoproj.io', 'clusters.cluster.x-k8s.io'];
    const tarball = inject('packedCrdgate').tarball;
    const corpus = readCorpus();
    await mkdir(join(workDir, 'real'), { recursive: true });
    await Promise.all(
      chosen.map(async (id) => {
        const crd = corpus.crds.find((candidate) => candidate.id === id)!;
        const file = join(workDir, 'real', `${id}.yaml`);
        await writeFile(file, crd.text);
        const project = join(workDir, 'real', id);
        const init = await crdgate(
          workDir,
          'init',
          project,
          '--from-crd',
          file,
          '--crd-owner',
          'external',
          '--crdgate',
          tarball,
        );
        expect(init, init.stderr).toMatchObject({ code: 0, stderr: '' });
        expect(init.stdout).toContain(`wrote a ${crd.kind}.${crd.group} project`);
        expect(init.stdout).toContain('wrote package-lock.json');
        const made = await loadProjectContract(project);
        const direct = externalLoad(crd);
        if (!made.loaded || !direct.loaded) throw new Error(`${id}: ${JSON.stringify([made, direct])}`);
        const { identity, hub, versions } = made.contract;
        expect({ identity, hub, versions }).toEqual({
          identity: direct.contract.identity,
          hub: direct.contract.hub,
          versions: direct.contract.versions,
        });
      }),
    );
  }, 300_000);
});
