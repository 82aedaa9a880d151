import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCorpus, type CorpusCrd } from '../../test/fixtures/crd-corpus/corpus.ts';
import { defineContract } from '../../src/contract/define-contract.ts';
import { fromCrd } from '../../src/contract/from-crd.ts';
import { productionEnv } from '../bench-environment.ts';
import { buildCompiledCopy, type CompiledBuild } from '../compiled-build.ts';
import { deploymentNodeOptions } from '../deployment-resources.ts';
import { textTable } from '../report/text-table.ts';
import { makeFreshCertDir, type FreshCertDir } from '../support/fresh-cert-dir.ts';
import { startApiServerHoldingCrds, type ApiServerHoldingCrds } from './api-server-holding-crds.ts';
import { writeContractProjects, type ContractProjects, type GuardedKind } from './contract-projects.ts';
import { measureContractLoading, type ContractLoading } from './contract-loading.ts';
import { startContractServer, type ResourceSample } from './contract-server.ts';
import { mountNamespaceProblem } from '../../test/e2e/support/service-account-mount.ts';
import { selectCrds } from './crd-selection.ts';
import { kindReviews, type KindReview } from './kind-reviews.ts';
import {
  deriveRows,
  manyKindsRatioLimit,
  manyKindsTargetCount,
  manyKindsTargets,
  mib,
  seconds,
  type DerivedRow,
  type MeasuredRow,
  type Series,
  type Target,
} from './many-kinds-targets.ts';
import { sendLoad, warmUp, type LoadPlan, type LoadResult } from './review-load.ts';
import { scrapeMetrics, untilOwnerCrdsRead, validatorsCompiled } from './server-metrics.ts';

// `npm run bench -- --many-kinds`: `crdgate serve` guarding N contracts made from real CRDs (the corpus of
// test/fixtures/crd-corpus), each N a fresh process: its time to ready, its RSS then, and under a load of reviews
// spread over the kinds its RSS after and its CPU per review; against the built-in example in the same run.

export interface ManyKindsPlan {
  /** How many contracts each measurement guards (the built-in example is measured besides, as the baseline). */
  counts: number[];
  /** The counts measured with contracts that own their CRDs too. */
  ownedCounts: number[];
  /** The counts measured with the guards beside an API server that holds their CRDs (none: no control plane). */
  liveCounts: number[];
  rounds: number;
  load: LoadPlan;
  /** crdgate from src/*.ts (as `npm start`) instead of a compiled build (as the image). */
  fromSource: boolean;
}

export interface ManyKindsResult {
  date: string;
  /** How the external-live servers reached the API server: as pods do, or by a kubeconfig (client-node loaded). */
  liveAccess: 'service account' | 'kubeconfig';
  crdgate: 'compiled' | 'source';
  plan: ManyKindsPlan;
  /** The CRDs in the order the counts take them. */
  kinds: Array<{
    id: string;
    project: string;
    yamlBytes: number;
    hub: string;
    objects: number;
    objectsFrom: GuardedKind['objectsFrom'];
  }>;
  /** Each figure the best of the rounds (the least: interference only ever slows a run or grows it). */
  rows: DerivedRow[];
  /** Every round's figures, in the order measured. */
  rounds: MeasuredRow[][];
  /** Reviews the servers allowed and denied over all rounds, per series and count. */
  answers: Array<{ series: Series; contracts: number; allowed: number; denied: number }>;
  /**
   * The reviews denied in the warm-up of the most kinds served (each review once), per CRD with any, and the first
   * denial's message: objects of the projects' samples crdgate refuses.
   */
  denials: { kinds: number; crds: Array<{ crd: string; reviews: number; denied: number; firstDenial?: string }> };
  /** The sets of contracts crdgate could not serve or answer with, and why (each is left out of the rows). */
  failures: Array<{ series: Series; contracts: number; reason: string }>;
  targets: { external: Target[]; 'external-live': Target[]; owned: Target[] };
  /** The machine's load average (1 minute) as the run started and as it ended. */
  loadAverage: { start: number; end: number };
  /** Where the guards' start-up goes, per count of the external series: each part in a process of its own. */
  loading: Array<{ contracts: number; yamlBytes: number } & ContractLoading>;
}

const readyTimeoutMs = 300_000;
/** From ready to every owner's CRD read by its follower (each a list of one CRD; the API server is idle). */
const ownerCrdsReadTimeoutMs = 60_000;
const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The built-in example's kind, with the object of the admission fixtures. */
async function exampleReviews(): Promise<KindReview[]> {
  const fixture = JSON.parse(
    await readFile(join(repoRoot, 'test', 'fixtures', 'admission', 'create-geodatabase.json'), 'utf8'),
  ) as { request: { object: Record<string, unknown> } };
  const kind = {
    group: 'geo.example.com',
    kind: 'GeoDatabase',
    plural: 'geodatabases',
    version: 'v1',
    namespaced: true,
  };
  return kindReviews(kind, [fixture.request.object]);
}

function guardedReviews(kind: GuardedKind): KindReview[] {
  return kindReviews({ ...kind, version: kind.hub }, kind.objects);
}

/** The corpus' CRDs in the order the counts take them (crd-selection.ts). */
function chosenCrds(count: number): CorpusCrd[] {
  const { crds } = readCorpus();
  const storageVersion = (crd: CorpusCrd): string | undefined =>
    ((crd.crd['spec'] as { versions?: Array<{ name?: string; storage?: boolean }> } | undefined)?.versions ?? []).find(
      (version) => version.storage,
    )?.name;
  const candidates = crds.map((crd) => ({
    id: crd.id,
    project: crd.project,
    bytes: Buffer.byteLength(crd.text),
    hubSamples: crd.samples
      .flatMap((sample) => sample.documents)
      .filter((document) => document['apiVersion'] === `${crd.group}/${storageVersion(crd)}`).length,
  }));
  const byId = new Map(crds.map((crd) => [crd.id, crd]));
  return selectCrds(candidates, count).map((chosen) => byId.get(chosen.id)!);
}

interface Configuration {
  series: Series;
  contracts: number;
  modules: string[];
  /** NODE_OPTIONS as `crdgate manifests` renders them for these contracts (the heap cap sized for them). */
  nodeOptions: string;
  reviewsByKind: KindReview[][];
  yamlBytes: number;
}

function configurations(
  plan: ManyKindsPlan,
  projects: ContractProjects,
  example: KindReview[],
  crds: readonly CorpusCrd[],
): Configuration[] {
  // The schemas size the Deployment alike for a guard and an owned contract of the same CRD.
  const sized = crds.flatMap((crd) => {
    try {
      return [defineContract(fromCrd(crd.crd, { crdOwner: 'external' }))];
    } catch {
      return []; // crdgate cannot serve it: that configuration fails on its own, and says why.
    }
  });
  const guarded = (series: 'external' | 'external-live' | 'owned', count: number): Configuration => {
    const kinds = projects.kinds.slice(0, count);
    return {
      series,
      contracts: count,
      modules: kinds.map((kind) => kind.modules[series === 'owned' ? 'crdgate' : 'external']!),
      nodeOptions: deploymentNodeOptions(sized.slice(0, count)),
      reviewsByKind: kinds.map(guardedReviews),
      yamlBytes: kinds.reduce((total, kind) => total + kind.yamlBytes, 0),
    };
  };
  return [
    {
      series: 'example',
      contracts: 0,
      modules: [],
      nodeOptions: deploymentNodeOptions(),
      reviewsByKind: [example],
      yamlBytes: 0,
    },
    {
      series: 'example-module',
      contracts: 1,
      modules: [projects.exampleModule],
      nodeOptions: deploymentNodeOptions(),
      reviewsByKind: [example],
      yamlBytes: 0,
    },
    ...plan.counts.flatMap((count) => [
      guarded('external', count),
      ...(plan.liveCounts.includes(count) ? [guarded('external-live', count)] : []),
      ...(plan.ownedCounts.includes(count) ? [guarded('owned', count)] : []),
    ]),
  ];
}

interface MeasureContext {
  binPath: string;
  cwd: string;
  certs: FreshCertDir;
  env: Record<string, string>;
  load: LoadPlan;
  /** The API server of the external-live series, or why there is none. */
  apiServer: ApiServerHoldingCrds | { unavailable: string } | undefined;
  /** The external-live servers reach it as pods do (a mount namespace for their service account's folder). */
  podAccess: boolean;
  kinds: readonly GuardedKind[];
}

interface Measurement {
  row: MeasuredRow;
  answers: { allowed: number; denied: number };
  /** The warm-up: every review of every kind once. */
  warmUp: LoadResult;
}

/** A fresh server: ready, its RSS; every review once; then the timed load, its CPU and the RSS after it. */
async function measureOnce(configuration: Configuration, context: MeasureContext): Promise<Measurement> {
  const { certs, load: plan } = context;
  const live = configuration.series === 'external-live' ? liveSetting(configuration, context) : undefined;
  const server = await startContractServer({
    binPath: context.binPath,
    modules: configuration.modules,
    cwd: context.cwd,
    certDir: certs.dir,
    ca: certs.ca,
    env: { ...context.env, NODE_OPTIONS: configuration.nodeOptions, ...live?.env },
    readyTimeoutMs,
    ...(live?.serviceAccountDir !== undefined ? { serviceAccountDir: live.serviceAccountDir } : {}),
  });
  try {
    const ready = server.sample();
    // Not ready's business (a guard in contract mode serves before its follower has read anything): the load starts
    // once every version in step has been handed to the API server, as it would be long before in a cluster.
    const read = live ? await untilOwnerCrdsRead(server.port, certs.ca, live.crds, ownerCrdsReadTimeoutMs) : undefined;
    let warmedUp: LoadResult;
    let before: ResourceSample;
    let load: LoadResult;
    try {
      warmedUp = await warmUp(server.port, certs.ca, configuration.reviewsByKind, plan.concurrency);
      before = server.sample();
      load = await sendLoad(server.port, certs.ca, configuration.reviewsByKind, plan);
    } catch (error) {
      // A server that dies under the load (its heap exhausted) drops its connections: say so, not only ECONNRESET.
      const exit = await server.exitWithin(1_000);
      if (exit === undefined) throw error;
      throw new Error(`crdgate serve exited (${exit}) under the load: ${(error as Error).message}`, { cause: error });
    }
    const after = server.sample();
    const compiled = validatorsCompiled(await scrapeMetrics(server.port, certs.ca));
    return {
      row: {
        series: configuration.series,
        contracts: configuration.contracts,
        kinds: configuration.reviewsByKind.length,
        yamlBytes: configuration.yamlBytes,
        readyMs: server.readyMs,
        readyRssBytes: ready.rssBytes,
        loadedRssBytes: after.rssBytes,
        peakRssBytes: after.peakRssBytes,
        cpuMicrosPerReview: ((after.cpuSeconds - before.cpuSeconds) * 1e6) / load.reviews,
        validatorsCompiled: compiled,
        ...(read ? { driftedVersions: read.driftedVersions } : {}),
      },
      answers: { allowed: load.allowed, denied: load.denied },
      warmUp: warmedUp,
    };
  } finally {
    await server.stop();
  }
}

/**
 * How a server of the configuration reaches the API server holding its CRDs, and their names; an error if it
 * cannot. As a pod does (its service account's folder and the kubelet's variables, no client-node) where the bench
 * may give it a mount namespace; else by the admin's kubeconfig, which loads client-node (40-50 MiB more).
 */
function liveSetting(
  configuration: Configuration,
  context: MeasureContext,
): { env: Record<string, string>; serviceAccountDir?: string; crds: string[] } {
  const { apiServer } = context;
  if (apiServer === undefined || 'unavailable' in apiServer)
    throw new Error(`no API server to hold the CRDs: ${apiServer?.unavailable ?? 'none was started'}`);
  const crds = context.kinds.slice(0, configuration.contracts).map((kind) => kind.id);
  const refused = crds.filter((crd) => apiServer.refused.has(crd));
  if (refused.length > 0)
    throw new Error(
      `the API server does not hold ${refused.map((crd) => `${crd}: ${apiServer.refused.get(crd)}`).join('; ')}`,
    );
  return context.podAccess
    ? { env: apiServer.podAccess.env, serviceAccountDir: apiServer.podAccess.serviceAccountDir, crds }
    : { env: { KUBECONFIG: apiServer.kubeconfigPath }, crds };
}

export async function runManyKindsBenchmark(
  plan: ManyKindsPlan,
  progress: (line: string) => void,
): Promise<ManyKindsResult> {
  const loadAtStart = loadavg()[0]!;
  const maxCount = Math.max(...plan.counts);
  const crds = chosenCrds(maxCount);
  let build: CompiledBuild | undefined;
  if (!plan.fromSource) {
    progress('compiling src/ into a temporary directory (tsc)');
    build = await buildCompiledCopy();
    if (build.diagnostics)
      progress(`tsc reported problems (the emitted JavaScript is used all the same):\n${build.diagnostics}`);
  }
  const certs = await makeFreshCertDir();
  let projects: ContractProjects | undefined;
  let apiServer: ApiServerHoldingCrds | { unavailable: string } | undefined;
  let liveAccess: ManyKindsResult['liveAccess'] = 'kubeconfig';
  try {
    if (plan.liveCounts.length > 0) {
      const held = crds.slice(0, Math.max(...plan.liveCounts));
      progress(`starting a control plane and applying ${held.length} CRDs (the external-live series)`);
      apiServer = await startApiServerHoldingCrds(held, progress);
      if ('unavailable' in apiServer) progress(`WARNING: no external-live series: ${apiServer.unavailable}`);
    }
    progress(`scaffolding ${crds.length} contracts (crdgate init --from-crd's src/contract.ts) from the corpus' CRDs`);
    projects = await writeContractProjects(
      crds,
      Math.max(0, ...plan.ownedCounts),
      build ? { srcDir: build.srcDir, extension: 'js' } : { srcDir: join(repoRoot, 'src'), extension: 'ts' },
    );
    const binPath = build ? join(build.srcDir, 'bin.js') : join(repoRoot, 'src', 'bin.ts');
    const { KUBERNETES_SERVICE_HOST: _host, KUBERNETES_SERVICE_PORT: _port, ...inherited } = process.env;
    const env = {
      ...(inherited as Record<string, string>),
      // No API server: a guard's follower of the owner's CRD finds no kubeconfig, says so and tries again now and
      // then, and serving goes on (the mode the figures stand for: --owner-schema contract, the default). As in a
      // pod, nothing loads client-node: there, crdgate reads its service account without it. The external-live
      // series names the control plane's kubeconfig instead (measureOnce), and so loads client-node.
      KUBECONFIG: '',
      HOME: projects.dir,
      ...(build ? productionEnv : {}),
    };
    const measured = configurations(plan, projects, await exampleReviews(), crds);
    const noPodAccess = apiServer && !('unavailable' in apiServer) ? await mountNamespaceProblem() : 'no API server';
    if (apiServer && !('unavailable' in apiServer) && noPodAccess !== undefined)
      progress(
        `WARNING: the external-live servers use the admin's kubeconfig, and so load client-node, not as pods do: ${noPodAccess}`,
      );
    liveAccess = noPodAccess === undefined ? 'service account' : 'kubeconfig';
    const context: MeasureContext = {
      podAccess: noPodAccess === undefined,
      binPath,
      cwd: projects.dir,
      certs,
      env,
      load: plan.load,
      apiServer,
      kinds: projects.kinds,
    };
    const rounds: MeasuredRow[][] = [];
    const measurements = new Map<Configuration, Measurement[]>();
    const failures = new Map<Configuration, string>();
    for (let round = 1; round <= plan.rounds; round++) {
      const rows: MeasuredRow[] = [];
      for (const configuration of measured) {
        if (failures.has(configuration)) continue;
        const label = `round ${round}/${plan.rounds}: ${describe(configuration)}`;
        let measurement: Measurement;
        try {
          measurement = await measureOnce(configuration, context);
        } catch (error) {
          // Without the example there is nothing to compare with; a set of contracts crdgate cannot serve (its heap
          // exhausted at start-up, say) is a finding of the run, reported with the rest.
          if (configuration.series === 'example' || configuration.series === 'example-module')
            throw new Error(`${label}: ${(error as Error).message}`, { cause: error });
          failures.set(configuration, (error as Error).message);
          progress(`${label}: FAILED: ${(error as Error).message}`);
          continue;
        }
        const { row, answers } = measurement;
        measurements.set(configuration, [...(measurements.get(configuration) ?? []), measurement]);
        rows.push(row);
        progress(
          `${label}: ready in ${seconds(row.readyMs)} s at ${mib(row.readyRssBytes)} MiB; ${plan.load.reviews} reviews ` +
            `(${answers.allowed} allowed), ${Math.round(row.cpuMicrosPerReview)} µs of CPU each, then ${mib(row.loadedRssBytes)} MiB, ` +
            `${row.validatorsCompiled} validators compiled` +
            (row.driftedVersions === undefined ? '' : `, ${row.driftedVersions} versions drifted from the live CRDs`),
        );
      }
      rounds.push(rows);
    }
    const served = measured.filter((configuration) => !failures.has(configuration));
    const loading: ManyKindsResult['loading'] = [];
    for (const configuration of served.filter((each) => each.series === 'external')) {
      progress(`timing the parts of loading ${configuration.contracts} guards, each in a process of its own`);
      const parts = await measureContractLoading({
        benchDir: build ? build.benchDir : join(repoRoot, 'bench'),
        extension: build ? 'js' : 'ts',
        cwd: projects.dir,
        env,
        nodeOptions: configuration.nodeOptions,
        modules: configuration.modules,
        crdFiles: projects.kinds.slice(0, configuration.contracts).map((kind) => kind.crdFile),
        rounds: plan.rounds,
      });
      loading.push({ contracts: configuration.contracts, yamlBytes: configuration.yamlBytes, ...parts });
    }
    const mostKinds = served.filter((configuration) => configuration.series === 'external').at(-1);
    const warmUpOfMost = mostKinds ? measurements.get(mostKinds)![0]!.warmUp : undefined;
    const rows = deriveRows(served.map((configuration) => bestOf(measurements.get(configuration)!)));
    return {
      date: new Date().toISOString(),
      liveAccess,
      crdgate: build ? 'compiled' : 'source',
      plan,
      kinds: projects.kinds.map((kind) => ({
        id: kind.id,
        project: kind.project,
        yamlBytes: kind.yamlBytes,
        hub: kind.hub,
        objects: kind.objects.length,
        objectsFrom: kind.objectsFrom,
      })),
      rows,
      rounds,
      answers: served.map((configuration) => ({
        series: configuration.series,
        contracts: configuration.contracts,
        allowed: sum(measurements.get(configuration)!.map((each) => each.answers.allowed)),
        denied: sum(measurements.get(configuration)!.map((each) => each.answers.denied)),
      })),
      denials: {
        kinds: mostKinds?.contracts ?? 0,
        crds: [...(warmUpOfMost?.byCrd ?? [])]
          .filter(([, tally]) => tally.denied > 0)
          .map(([crd, tally]) => ({ crd, ...tally })),
      },
      failures: [...failures].map(([configuration, reason]) => ({
        series: configuration.series,
        contracts: configuration.contracts,
        reason,
      })),
      targets: {
        external: manyKindsTargets(rows, 'external'),
        'external-live': manyKindsTargets(rows, 'external-live'),
        owned: manyKindsTargets(rows, 'owned'),
      },
      loadAverage: { start: loadAtStart, end: loadavg()[0]! },
      loading,
    };
  } finally {
    await Promise.all([
      certs.remove(),
      projects?.remove(),
      build?.remove(),
      apiServer && 'stop' in apiServer ? apiServer.stop() : undefined,
    ]);
  }
}

function describe(configuration: Configuration): string {
  if (configuration.series === 'example') return 'the built-in example';
  if (configuration.series === 'example-module') return 'the built-in example as a .ts --contract module';
  const what: Record<'external' | 'external-live' | 'owned', string> = {
    external: "guards of operators' CRDs",
    'external-live': "guards of operators' CRDs, the API server holding them",
    owned: 'owned CRDs',
  };
  return `${configuration.contracts} ${what[configuration.series]}`;
}

/** A configuration's figures, each the least of its rounds. */
function bestOf(measurements: Measurement[]): MeasuredRow {
  const rows = measurements.map((each) => each.row);
  const least = (figure: (row: MeasuredRow) => number) => Math.min(...rows.map(figure));
  return {
    ...rows[0]!,
    readyMs: least((row) => row.readyMs),
    readyRssBytes: least((row) => row.readyRssBytes),
    loadedRssBytes: least((row) => row.loadedRssBytes),
    peakRssBytes: least((row) => row.peakRssBytes),
    cpuMicrosPerReview: least((row) => row.cpuMicrosPerReview),
    // Not a cost that interference changes: the most any round compiled, so that a round that compiled more shows.
    validatorsCompiled: Math.max(...rows.map((row) => row.validatorsCompiled)),
  };
}

const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

const seriesNames: Record<Series, string> = {
  example: 'built-in example',
  'example-module': 'example as .ts module',
  external: "operator's CRD",
  'external-live': "operator's CRD, API server holds it",
  owned: 'owned CRD',
};

/** YAML's size as the report's tables give it: KB, '-' for the example, whose schemas are TypeScript. */
const kb = (bytes: number): string => (bytes === 0 ? '-' : Math.round(bytes / 1024).toLocaleString('en-US'));

export function renderManyKindsReport(result: ManyKindsResult): string {
  const ratio = (value: number) => `${value.toFixed(2)}x`;
  const deniedShare = (row: DerivedRow): string => {
    const answers = result.answers.find((each) => each.series === row.series && each.contracts === row.contracts);
    return answers ? `${Math.round((100 * answers.denied) / (answers.allowed + answers.denied))}%` : '-';
  };
  const table = textTable(
    [
      'contracts',
      'kinds',
      'YAML KB',
      'ready s',
      'vs example',
      'RSS ready MiB',
      'vs example',
      'RSS after load MiB',
      'peak RSS MiB',
      'MiB per added kind',
      'CPU µs/review',
      'denied',
      'validators compiled',
    ],
    result.rows.map((row) => [
      row.series === 'example' ? `0 (${seriesNames[row.series]})` : `${row.contracts} (${seriesNames[row.series]})`,
      String(row.kinds),
      kb(row.yamlBytes),
      seconds(row.readyMs),
      ratio(row.readyRatio),
      mib(row.readyRssBytes),
      ratio(row.readyRssRatio),
      mib(row.loadedRssBytes),
      mib(row.peakRssBytes),
      row.addedKindBytes === undefined ? '-' : mib(row.addedKindBytes),
      String(Math.round(row.cpuMicrosPerReview)),
      deniedShare(row),
      String(row.validatorsCompiled),
    ]),
  );
  const kinds = result.kinds
    .map(
      (kind, index) =>
        `${index + 1}. ${kind.id} (${kb(kind.yamlBytes)} KB, ${kind.objects} ${kind.objectsFrom === 'samples' ? 'samples' : 'example'})`,
    )
    .join(', ');
  const total = result.kinds.reduce((sum, kind) => sum + kind.yamlBytes, 0);
  const targets = (series: 'external' | 'external-live' | 'owned', title: string) => [
    title,
    ...result.targets[series].map((target) => `  ${target.goal}: ${target.measured}: ${target.verdict}`),
  ];
  const { plan } = result;
  return [
    `crdgate serve guarding N contracts made from real CRDs (${result.crdgate}; best of ${plan.rounds} round${plan.rounds === 1 ? '' : 's'}; ` +
      `${plan.load.reviews} reviews per server after a warm-up, ${plan.load.concurrency} at once; load average ` +
      `${result.loadAverage.start.toFixed(1)} at the start, ${result.loadAverage.end.toFixed(1)} at the end)`,
    table,
    ...(result.rows.some((row) => row.series === 'external-live')
      ? [
          `The guards beside an API server reach it ${
            result.liveAccess === 'service account'
              ? "as pods do: their service account's folder where a pod has it, in a mount namespace of their own"
              : "by the admin's kubeconfig, which loads client-node (40-50 MiB a pod does not load): compare their growth per kind, not their RSS"
          }.`,
        ]
      : []),
    ...result.failures.map(
      (failure) => `${failure.contracts} (${seriesNames[failure.series]}): FAILED: ${failure.reason}`,
    ),
    ...loadingLines(result),
    `The kinds, in the order the counts take them (${kb(total)} KB of YAML in all): ${kinds}`,
    ...(result.denials.kinds > 0
      ? [
          `Denied in the warm-up of ${result.denials.kinds} kinds (each review once): ${
            result.denials.crds.map((each) => `${each.crd} ${each.denied} of ${each.reviews}`).join(', ') || 'none'
          }`,
        ]
      : []),
    '',
    ...targets('external', "Issue 55's targets, guards of operators' CRDs against the built-in example:"),
    ...targets('external-live', 'The same, guards beside an API server that holds their CRDs:'),
    ...targets('owned', 'The same, contracts that own their CRDs:'),
    '',
  ].join('\n');
}

/** The parts of the guards' start-up, and what the ready-time target leaves them at its count of kinds. */
function loadingLines(result: ManyKindsResult): string[] {
  if (result.loading.length === 0) return [];
  const example = result.rows.find((row) => row.series === 'example');
  const table = textTable(
    [
      'guards',
      'YAML KB',
      'modules imported s',
      'of which CRDs read s',
      'contracts made, checked, compiled s',
      'ready s',
    ],
    result.loading.map((each) => {
      const ready = result.rows.find((row) => row.series === 'external' && row.contracts === each.contracts);
      return [
        String(each.contracts),
        kb(each.yamlBytes),
        seconds(each.importMs),
        seconds(each.readMs),
        seconds(each.registryMs),
        ready ? seconds(ready.readyMs) : '-',
      ];
    }),
  );
  const atTarget = result.loading.find((each) => each.contracts === manyKindsTargetCount);
  const budget =
    example && atTarget
      ? [
          `The ${manyKindsTargetCount} guards' ready-time target (${manyKindsRatioLimit}x the example's ${seconds(example.readyMs)} s) ` +
            `leaves them ${seconds((manyKindsRatioLimit - 1) * example.readyMs)} s more than the example's start-up; ` +
            `reading their CRDs alone takes ${seconds(atTarget.readMs)} s, importing their modules (reading included) ` +
            `${seconds(atTarget.importMs)} s, and making, checking and compiling the contracts ${seconds(atTarget.registryMs)} s.`,
        ]
      : [];
  return [
    `Where the guards' start-up goes (each part in a process of its own, with the servers' NODE_OPTIONS; the least of ${result.plan.rounds} round${result.plan.rounds === 1 ? '' : 's'}):`,
    table,
    ...budget,
  ];
}
