import { availableParallelism } from 'node:os';
import type { Contract } from '../src/contract/contract-definition.ts';
import type { KubeObject } from '../src/contract/values/kube-object.ts';
import { geoDatabaseContract } from '../src/contracts/geodatabase/index.ts';
import { schemaV1 } from '../src/contracts/geodatabase/schema-v1.ts';
import { startControlPlane, type ControlPlane } from '../src/control-plane/control-plane.ts';
import { eventually } from '../src/local-loop/eventually.ts';
import { renderAdmissionPolicies } from '../src/render/admission-policy.ts';
import { renderCustomResourceDefinition } from '../src/render/custom-resource-definition.ts';
import type { Manifest } from '../src/render/manifest.ts';
import {
  classifyRefusal,
  counterDifference,
  countRefusals,
  readServerCounters,
  summarizeWindows,
  type MeasuredWindow,
  type PolicyMode,
  type RefusalCounts,
  type ServerCounters,
  type VariantComparison,
} from './policy-cost-summary.ts';
import { createApiServerClient, type ApiServerClient } from './support/api-server-client.ts';
import { busyCores, readMachineCpu } from './support/machine-cpu.ts';
import { parsePrometheusText, type MetricSample } from './support/prometheus-text.ts';

// What the policy floor costs the API server: the same allowed UPDATE of a GeoDatabase, with the rendered
// ValidatingAdmissionPolicy bound and without, in alternating rounds on one kube-apiserver + etcd.

export interface PolicyCostPlan {
  /** Rounds with the policy bound, and as many without; they alternate, starting without. */
  roundsPerMode: number;
  /** Untimed updates per variant at the start of each round: the first requests after a binding change. */
  warmupUpdates: number;
  /** Timed updates per variant and round, one at a time. */
  latencyUpdates: number;
  /** A closed loop per variant and round: `concurrency` updates in flight, each writer on its own object. */
  throughput: { concurrency: number; warmupMs: number; measureMs: number };
}

export interface PolicyVariant {
  name: string;
  caches: number;
  /** The PUT body of one timed update. */
  updateBytes: number;
}

export interface PolicyCostResult {
  startedAt: string;
  kubeApiserverVersion: string;
  cpus: number;
  plan: PolicyCostPlan;
  policy: { name: string; validations: number; variables: number };
  variants: PolicyVariant[];
  comparisons: VariantComparison[];
  refusals: RefusalCounts;
  /** From each binding change to the first probe that saw it in effect. */
  bindingTakesEffectMs: { bind: number[]; unbind: number[] };
  /** apiserver_validating_admission_policy_check_total at the end, by label set: it counts denials (and errors) only. */
  policyChecks: Array<{ labels: Record<string, string>; value: number }>;
  /** The whole mode, the control plane's start included. */
  seconds: number;
}

const contract = geoDatabaseContract();
const { group, plural } = contract.identity;
const namespace = 'policy-bench';
const installName = 'crdgate';
const collection = `/apis/${group}/${contract.hub}/namespaces/${namespace}/${plural}`;
const bindings = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

/** The most caches a GeoDatabase may have, read from the schema, so the variant follows the contract. */
const maxCaches = (() => {
  const maxItems = (schemaV1.properties?.['spec']?.properties?.['caches'] as { maxItems?: number } | undefined)
    ?.maxItems;
  if (maxItems === undefined || !Number.isSafeInteger(maxItems))
    throw new Error('the GeoDatabase v1 schema no longer bounds spec.caches with maxItems');
  return maxItems;
})();

const variantShapes = [
  { name: 'caches: 3', caches: 3 },
  { name: `caches: ${maxCaches} (maxItems)`, caches: maxCaches },
];

/**
 * The CRD crdgate renders for the contract's hub version alone. With one version the API server converts nothing,
 * so the CRD names no conversion webhook (strategy None) and needs no running crdgate; the policy matches the hub
 * version, so this is the version every write reaches it in anyway.
 */
function hubOnlyCrd(): Manifest {
  const hubOnly: Contract = {
    ...contract,
    versions: contract.versions
      .filter((version) => version.name === contract.hub)
      .map((version) => ({ ...version, storage: true })),
  };
  // The endpoint is only rendered into a conversion webhook, which a single version does not have.
  const crd = renderCustomResourceDefinition(hubOnly, { target: { url: 'https://127.0.0.1' } }) as Manifest & {
    spec: { conversion: { strategy: string } };
  };
  if (crd.spec.conversion.strategy !== 'None')
    throw new Error(`expected a CRD without conversion, got strategy ${crd.spec.conversion.strategy}`);
  return crd;
}

interface GeoDatabase extends KubeObject {
  metadata: { name: string; namespace: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: {
    postgres: { version: string; postgis: string };
    readReplicas: number;
    storage: { size: string; storageClassName: string };
    caches: Array<{ name: string; version: string; memory: string; replicas: number }>;
  };
}

function newGeoDatabase(name: string, caches: number): GeoDatabase {
  return {
    apiVersion: `${group}/${contract.hub}`,
    kind: contract.identity.kind,
    metadata: { name, namespace, labels: { 'app.kubernetes.io/part-of': 'policy-bench', tier: 'maps' } },
    spec: {
      postgres: { version: '16.4', postgis: '3.4.2' },
      readReplicas: 1,
      storage: { size: '20Gi', storageClassName: 'fast' },
      caches: Array.from({ length: caches }, (_, i) => ({
        name: `cache-${i}`,
        version: '7.2',
        memory: '1Gi',
        replicas: 1,
      })),
    },
  };
}

/** The timed update: scale (readReplicas 1 <-> 2) and cache.resize (the last cache's memory 1Gi <-> 2Gi), both allowed in Ready. */
function toggled(object: GeoDatabase): GeoDatabase {
  const next = structuredClone(object);
  const up = next.spec.readReplicas === 1;
  next.spec.readReplicas = up ? 2 : 1;
  next.spec.caches.at(-1)!.memory = up ? '2Gi' : '1Gi';
  return next;
}

/** A change the policy refuses whatever the state (cache.major is unsupported): the probe of whether it is in effect. */
function cacheMajorUpgrade(object: GeoDatabase): GeoDatabase {
  const next = structuredClone(object);
  next.spec.caches.at(-1)!.version = '8.0';
  return next;
}

const objectPath = (object: GeoDatabase) => `${collection}/${object.metadata.name}`;

export async function runPolicyCostBenchmark(
  assetsDir: string,
  plan: PolicyCostPlan,
  progress: (line: string) => void,
): Promise<PolicyCostResult> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  let plane: ControlPlane | undefined;
  let client: ApiServerClient | undefined;
  try {
    plane = await startControlPlane({ assetsDir, log: progress });
    client = createApiServerClient(plane.kubeconfigPath, plan.throughput.concurrency);
    const api = client;
    await api.json('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace },
    });
    const crd = hubOnlyCrd();
    await api.json('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    await eventually(`${crd.metadata.name} to be established`, async () => {
      const read = await api.json<{ status?: { conditions?: Array<{ type: string; status: string }> } }>(
        'GET',
        `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
      );
      return read.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True') ? true : undefined;
    });

    const [policy, binding] = renderAdmissionPolicies([contract], installName) as [
      Manifest & { spec: { validations: unknown[]; variables?: unknown[] } },
      Manifest,
    ];
    await api.json('POST', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies', policy);

    progress(`creating ${variantShapes.length} x ${plan.throughput.concurrency} GeoDatabases in phase Ready`);
    const objects = new Map<string, GeoDatabase[]>();
    for (const shape of variantShapes) {
      const mine: GeoDatabase[] = [];
      for (let i = 0; i < plan.throughput.concurrency; i++) {
        const body = newGeoDatabase(`caches-${shape.caches}-${i}`, shape.caches);
        // The CRD is established a moment before its resource is served.
        await eventually(`${plural} to be served`, () => api.json('POST', collection, body));
        // No operator runs here: the status subresource is written as one would, and the policy reads the phase from it.
        mine.push(
          await api.json<GeoDatabase>(
            'PATCH',
            `${collection}/${body.metadata.name}/status`,
            { status: { phase: 'Ready' } },
            'application/merge-patch+json',
          ),
        );
      }
      objects.set(shape.name, mine);
    }
    const variants: PolicyVariant[] = variantShapes.map((shape) => ({
      ...shape,
      updateBytes: Buffer.byteLength(JSON.stringify(toggled(objects.get(shape.name)![0]!))),
    }));

    // Whether the policy is in effect, by a dry run of a change it denies on an object of the first variant.
    const probe = async (): Promise<'denied' | 'allowed'> => {
      const object = cacheMajorUpgrade(objects.get(variantShapes[0]!.name)![0]!);
      const answer = await api.call('PUT', `${objectPath(object)}?dryRun=All`, object);
      if (answer.status === 200) return 'allowed';
      const message = statusMessage(answer.body);
      if (answer.status === 403 && classifyRefusal(message) === 'policy-denied') return 'denied';
      throw new Error(`probe: HTTP ${answer.status}: ${message}`);
    };
    const bindingTakesEffectMs = { bind: [] as number[], unbind: [] as number[] };
    const switchPolicy = async (mode: PolicyMode) => {
      const changed = performance.now();
      if (mode === 'with') await api.json('POST', bindings, binding);
      else await api.json('DELETE', `${bindings}/${binding.metadata.name}`);
      const expected = mode === 'with' ? 'denied' : 'allowed';
      await eventually(
        `the policy to be ${mode === 'with' ? 'in effect' : 'out of effect'}`,
        async () => ((await probe()) === expected ? true : undefined),
        { intervalMs: 20 },
      );
      bindingTakesEffectMs[mode === 'with' ? 'bind' : 'unbind'].push(performance.now() - changed);
    };

    const scrape = async (): Promise<MetricSample[]> => {
      const answer = await api.call('GET', '/metrics');
      if (answer.status !== 200) throw new Error(`GET /metrics: HTTP ${answer.status}`);
      return parsePrometheusText(answer.body.toString('utf8'));
    };
    const counters = async (): Promise<ServerCounters> => readServerCounters(await scrape(), { group, plural });

    // One update of one object; the latency of an allowed one, or why it was refused.
    const update = async (
      list: GeoDatabase[],
      index: number,
      window: Pick<MeasuredWindow, 'latenciesMs' | 'refusals'> | undefined,
    ) => {
      const next = toggled(list[index]!);
      const answer = await api.call('PUT', objectPath(next), next);
      if (answer.status === 200) {
        window?.latenciesMs.push(answer.ms);
        list[index] = JSON.parse(answer.body.toString('utf8')) as GeoDatabase;
        return;
      }
      const message = statusMessage(answer.body);
      if (!window) throw new Error(`an untimed update was refused: HTTP ${answer.status}: ${message}`);
      window.refusals.push({ kind: classifyRefusal(message), status: answer.status, message });
    };
    const closedLoop = async (
      list: GeoDatabase[],
      ms: number,
      window?: Pick<MeasuredWindow, 'latenciesMs' | 'refusals'>,
    ) => {
      const deadline = performance.now() + ms;
      await Promise.all(
        list.map(async (_object, index) => {
          while (performance.now() < deadline) await update(list, index, window);
        }),
      );
    };
    const timed = async (
      base: Pick<MeasuredWindow, 'round' | 'mode' | 'variant' | 'phase' | 'concurrency'>,
      load: (window: Pick<MeasuredWindow, 'latenciesMs' | 'refusals'>) => Promise<void>,
    ): Promise<MeasuredWindow> => {
      const window = { latenciesMs: [] as number[], refusals: [] as MeasuredWindow['refusals'] };
      const before = await counters();
      const cpuBefore = readMachineCpu();
      const start = performance.now();
      await load(window);
      const seconds = (performance.now() - start) / 1000;
      const cpuAfter = readMachineCpu();
      const server = counterDifference(await counters(), before);
      return { ...base, ...window, seconds, server, machineBusyCores: busyCores(cpuBefore, cpuAfter) };
    };

    // Before any timing: with the policy bound, each variant's probe change is denied (the classifiers run on
    // that shape within the cost budget: an evaluation error would be a 422) and its timed update is allowed.
    await switchPolicy('with');
    for (const shape of variantShapes) {
      const object = cacheMajorUpgrade(objects.get(shape.name)![0]!);
      const answer = await api.call('PUT', `${objectPath(object)}?dryRun=All`, object);
      const message = statusMessage(answer.body);
      if (answer.status !== 403 || classifyRefusal(message) !== 'policy-denied')
        throw new Error(
          `${shape.name}: expected the policy to deny a cache major upgrade, got HTTP ${answer.status}: ${message}`,
        );
      progress(`warm-up, ${shape.name}: ${message}`);
      await closedLoop(objects.get(shape.name)!, plan.throughput.warmupMs);
    }

    const windows: MeasuredWindow[] = [];
    const rounds = plan.roundsPerMode * 2;
    for (let round = 1; round <= rounds; round++) {
      const mode: PolicyMode = round % 2 === 1 ? 'without' : 'with';
      await switchPolicy(mode);
      for (const shape of variantShapes) {
        progress(`round ${round}/${rounds}, policy ${mode === 'with' ? 'bound' : 'unbound'}: ${shape.name}`);
        const list = objects.get(shape.name)!;
        for (let i = 0; i < plan.warmupUpdates; i++) await update(list, i % list.length, undefined);
        const base = { round, mode, variant: shape.name };
        windows.push(
          await timed({ ...base, phase: 'latency', concurrency: 1 }, async (window) => {
            for (let i = 0; i < plan.latencyUpdates; i++) await update(list, i % list.length, window);
          }),
        );
        await closedLoop(list, plan.throughput.warmupMs);
        windows.push(
          await timed({ ...base, phase: 'throughput', concurrency: list.length }, (window) =>
            closedLoop(list, plan.throughput.measureMs, window),
          ),
        );
      }
    }

    const finalSamples = await scrape();
    return {
      startedAt,
      kubeApiserverVersion: plane.kubeApiserverVersion,
      cpus: availableParallelism(),
      plan,
      policy: {
        name: policy.metadata.name,
        validations: policy.spec.validations.length,
        variables: policy.spec.variables?.length ?? 0,
      },
      variants,
      comparisons: summarizeWindows(windows),
      refusals: countRefusals(windows),
      bindingTakesEffectMs,
      policyChecks: finalSamples
        .filter((sample) => sample.name === 'apiserver_validating_admission_policy_check_total')
        .map(({ labels, value }) => ({ labels, value })),
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    client?.close();
    await plane?.stop();
  }
}

function statusMessage(body: Buffer): string {
  const text = body.toString('utf8');
  try {
    return String((JSON.parse(text) as { message?: unknown }).message ?? text);
  } catch {
    return text;
  }
}
