import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { ApiException, CustomObjectsApi, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import type { Contract } from '../../src/contract/contract-definition.ts';
import { isPlainObject, type KubeObject } from '../../src/contract/values/kube-object.ts';
import { jsonEqual } from '../../src/contract/values/json-equal.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { admissionCallsFromMetrics } from '../../src/local-loop/put-in-front.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { mutatingWebhookName, validatingWebhookName } from '../../src/render/webhook-names.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import type { CrdgateProcess } from './support/crdgate-restartable-process.ts';
import { declarativeDbPoolerContract, operatorCrdFile } from './support/db-operator-contracts.ts';
import { removeGeoDatabaseInstall, renderGeoDatabaseInstall, type RenderedInstall } from './support/floor-install.ts';
import { validGeoDatabase } from './support/geodatabases.ts';
import { kubectl, waitEstablished, type KubectlResult } from './support/kubectl.ts';
import { writeServiceAccountKubeconfig } from './support/service-account-kubeconfig.ts';

// The outage drill: crdgate (one process serving two contracts) SIGKILLed and frozen in front of the real
// kube-apiserver, for a kind crdgate owns (GeoDatabase) and an operator's kind whose state is in its conditions
// (DbPooler, crdOwner external, its CRD applied as the operator's chart does), in both modes (the base, webhooks at
// failurePolicy Fail; the policy floor, webhooks at Ignore plus the admission policies). Each write is made by a
// person (kubectl, as the admin) or by the kind's operator (a client with the operator's own ServiceAccount token and
// RBAC), and each is timed: with crdgate frozen, a write the API server sends it waits timeoutSeconds (2 here, set
// with `crdgate manifests --timeout-seconds`; the default is 10) for each webhook it calls. "before" is the webhook
// configurations as crdgate rendered them until it derived what reaches it (every CREATE, UPDATE and DELETE of the
// kind and every status UPDATE sent to it, and a mutating webhook for every contract), reproduced here from the
// rendered ones. Outcomes are asserted; durations are only reported (printed at the end), never asserted.

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const timeoutSeconds = 2;
const contractModule = (file: string) => fileURLToPath(new URL(`./support/contracts/${file}`, import.meta.url));

type Mode = 'base' | 'policy floor';
type Rendering = 'before' | 'after';
type Outage = 'killed' | 'frozen' | 'up';

const writes = [
  'create',
  'spec change crdgate refuses',
  'spec change crdgate allows',
  'label edit',
  'annotation edit',
  'status write keeping the state',
  'status write moving the state',
  'delete',
  'finalizer removal completing a deletion',
] as const;
type Write = (typeof writes)[number];

/** Who makes a write: a person with kubectl, or the kind's operator with its ServiceAccount. */
const byOperator: ReadonlySet<Write> = new Set([
  'status write keeping the state',
  'status write moving the state',
  'finalizer removal completing a deletion',
]);

interface DrillKind {
  kind: 'GeoDatabase' | 'DbPooler';
  contract: Contract;
  api: { group: string; version: string; plural: string };
  /** A new object, as its author writes it (leaving the defaults out). */
  object(namespace: string, name: string): KubeObject;
  /** What a create stores under the policy floor with crdgate down: the defaults the floor sets (or the CRD's own). */
  createdSpec: Record<string, unknown>;
  createdLabels: Record<string, string> | undefined;
  /** The status an object is given before the outage, per write (none: the object stays as created). */
  startingStatus: Partial<Record<Write, Record<string, unknown>>>;
  /** The spec changes and status writes of the drill, as merge patches. */
  patches: Record<
    | 'spec change crdgate refuses'
    | 'spec change crdgate allows'
    | 'status write keeping the state'
    | 'status write moving the state',
    Record<string, unknown>
  >;
}

const ready = { conditions: [{ type: 'Ready', status: 'True' }], observedGeneration: 1 };
const reconfiguring = { conditions: [{ type: 'Ready', status: 'False' }], observedGeneration: 1 };

const geoDatabase: DrillKind = {
  kind: 'GeoDatabase',
  contract: geoDatabaseContract(),
  api: { group: 'geo.example.com', version: 'v1', plural: 'geodatabases' },
  object: validGeoDatabase,
  createdSpec: {
    ...(validGeoDatabase('', '').spec as object),
    readReplicas: 0,
    caches: [{ name: 'tiles', memory: '1Gi', version: '7.2', replicas: 1 }],
  },
  createdLabels: { 'geo.example.com/postgres-major': '16' },
  startingStatus: {
    'spec change crdgate refuses': { phase: 'Ready' },
    'spec change crdgate allows': { phase: 'Ready' },
    'status write keeping the state': { phase: 'Ready' },
    'status write moving the state': { phase: 'Ready' },
  },
  patches: {
    // Volumes cannot shrink, in any state.
    'spec change crdgate refuses': { spec: { storage: { size: '10Gi' } } },
    'spec change crdgate allows': { spec: { readReplicas: 2 } },
    'status write keeping the state': { status: { readyReplicas: 1 } },
    // A move the machine expects from Ready.
    'status write moving the state': { status: { phase: 'Degraded' } },
  },
};

const dbPooler: DrillKind = {
  kind: 'DbPooler',
  contract: declarativeDbPoolerContract(),
  api: { group: 'dbops.example.com', version: 'v1', plural: 'dbpoolers' },
  object: (namespace, name) => ({
    apiVersion: 'dbops.example.com/v1',
    kind: 'DbPooler',
    metadata: { name, namespace },
    spec: { instances: 2 },
  }),
  // No contract default: the mode is the CRD's own schema default, which the API server sets in every mode.
  createdSpec: { instances: 2, mode: 'session' },
  createdLabels: undefined,
  startingStatus: {
    'spec change crdgate refuses': reconfiguring,
    'spec change crdgate allows': ready,
    'status write keeping the state': ready,
    'status write moving the state': reconfiguring,
  },
  patches: {
    // Not while the operator is reconfiguring the pooler (its Ready condition False).
    'spec change crdgate refuses': { spec: { instances: 4 } },
    'spec change crdgate allows': { spec: { mode: 'transaction' } },
    // Another condition beside Ready: the state stays Ready, yet the status changes.
    'status write keeping the state': {
      status: { conditions: [...ready.conditions, { type: 'Progressing', status: 'False' }] },
    },
    'status write moving the state': { status: ready },
  },
};

const kinds = [geoDatabase, dbPooler];

/** Whether every value the merge patch sets is in `value`. */
function carries(patch: unknown, value: unknown): boolean {
  if (!isPlainObject(patch)) return jsonEqual(patch, value);
  return isPlainObject(value) && Object.entries(patch).every(([key, part]) => carries(part, value[key]));
}

/** Who refused a write, from the API server's message: a webhook that could not be called, or a policy. */
function refusedBy(message: string): string {
  const webhook = /failed calling webhook "([^"]+)"/.exec(message)?.[1];
  if (webhook !== undefined) return `webhook ${webhook}`;
  const denied = /admission webhook "([^"]+)" denied the request/.exec(message)?.[1];
  if (denied !== undefined) return `webhook ${denied} denied`;
  const policy = /ValidatingAdmissionPolicy '([^']+)'/.exec(message)?.[1];
  if (policy !== undefined) return `policy ${policy}`;
  return `refused otherwise: ${message}`;
}

/**
 * The webhook configurations as crdgate rendered them before it derived what reaches it, from the ones it renders
 * now: per contract one validating webhook for every CREATE, UPDATE and DELETE of the kind and every UPDATE of its
 * status, and one mutating webhook for every CREATE and UPDATE, defaults or not; no matchConditions.
 */
function asRenderedBefore(
  configurations: any[],
  contracts: readonly Contract[],
  failurePolicy: 'Fail' | 'Ignore',
): any[] {
  const validatingWebhooks = configurations.find(
    (configuration) => configuration.kind === 'ValidatingWebhookConfiguration',
  ).webhooks as any[];
  return configurations.map((configuration) => {
    const validating = configuration.kind === 'ValidatingWebhookConfiguration';
    const webhooks = contracts.map((contract) => {
      const { matchConditions: _skipped, ...main } = validatingWebhooks.find(
        (webhook) => webhook.name === validatingWebhookName(contract),
      );
      const rule = { ...main.rules[0], resources: [contract.identity.plural] };
      if (validating) {
        return {
          ...main,
          rules: [
            { ...rule, operations: ['CREATE', 'UPDATE', 'DELETE'] },
            { ...rule, operations: ['UPDATE'], resources: [`${contract.identity.plural}/status`] },
          ],
          failurePolicy,
        };
      }
      const clientConfig = { ...main.clientConfig, url: main.clientConfig.url.replace(/\/validate$/, '/mutate') };
      return {
        ...main,
        name: mutatingWebhookName(contract),
        clientConfig,
        rules: [{ ...rule, operations: ['CREATE', 'UPDATE'] }],
        failurePolicy,
        reinvocationPolicy: 'IfNeeded',
      };
    });
    return { ...configuration, webhooks };
  });
}

/** What the API server does with each write, by mode and rendering, whether crdgate is killed or frozen (or up). */
function expectedOutcome(
  mode: Mode,
  rendering: Rendering,
  outage: Outage,
  kind: DrillKind,
  write: Write,
  policyName: string,
): string {
  const validating = `webhook ${validatingWebhookName(kind.contract)}`;
  if (outage === 'up') return write === 'spec change crdgate refuses' ? `${validating} denied` : 'admitted';
  if (mode === 'policy floor') return write === 'spec change crdgate refuses' ? `policy ${policyName}` : 'admitted';
  if (rendering === 'before') {
    // Everything reached crdgate at Fail; a create or update reached the mutating webhook first.
    return write === 'delete' || write.startsWith('status write')
      ? validating
      : `webhook ${mutatingWebhookName(kind.contract)}`;
  }
  if (!['create', 'spec change crdgate refuses', 'spec change crdgate allows'].includes(write)) return 'admitted';
  // GeoDatabase has defaults, so its mutating webhook is called first; DbPooler has none, and no mutating webhook.
  return kind === geoDatabase ? `webhook ${mutatingWebhookName(kind.contract)}` : validating;
}

interface Measured {
  mode: Mode;
  rendering: Rendering;
  outage: Outage;
  kind: string;
  write: Write;
  outcome: string;
  seconds: number;
}

describe.skipIf(!controlPlane)(
  'the outage drill: what a crdgate outage blocks, and what it costs, for a kind crdgate owns and an operator’s',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const id = randomUUID().slice(0, 8);
    const installName = `drill-${id}`;
    const namespace = `crdgate-e2e-outage-drill-${id}`;
    const policyName = (kind: DrillKind) => `${installName}.${kind.api.plural}.${kind.api.group}`;
    const report: Measured[] = [];
    let install: RenderedInstall | undefined;
    let gate: CrdgateProcess;
    let admin: CustomObjectsApi;
    const operators = new Map<DrillKind, CustomObjectsApi>();
    let files = 0;

    const resourceOf = (kind: DrillKind) => `${kind.api.plural}.${kind.api.group}`;
    const stored = (kind: DrillKind, name: string): Promise<KubeObject | undefined> =>
      admin.getNamespacedCustomObject({ ...kind.api, namespace, name }).then(
        (object) => object as KubeObject,
        (error: unknown) => {
          if (error instanceof ApiException && error.code === 404) return undefined;
          throw error;
        },
      );
    const succeeded = (result: KubectlResult): string => {
      expect(result.exitCode, result.stderr).toBe(0);
      return result.stdout;
    };
    const kubectlIn = (...args: string[]) => kubectl(cp, [...args, '-n', namespace]);
    const applyFile = async (objects: unknown[], ...flags: string[]) => {
      const file = join(install!.workDir, `apply-${++files}.json`);
      await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
      return kubectl(cp, ['apply', '--server-side', ...flags, '-f', file]);
    };
    const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    const setStatus = (client: CustomObjectsApi, kind: DrillKind, name: string, status: Record<string, unknown>) =>
      client.patchNamespacedCustomObjectStatus({ ...kind.api, namespace, name, body: { status } }, mergePatch);

    /** How a client's write ended: admitted, or who refused it. */
    const outcomeOf = (call: Promise<unknown>): Promise<string> =>
      call.then(
        () => 'admitted',
        (error: unknown) => {
          if (!(error instanceof ApiException)) throw error;
          const body: unknown = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
          return refusedBy(String((body as { message?: unknown } | undefined)?.message ?? ''));
        },
      );
    const kubectlOutcome = (result: KubectlResult) => (result.exitCode === 0 ? 'admitted' : refusedBy(result.stderr));

    /** The object each write of a phase starts from: created, given its state, and for the finalizer, deleted already. */
    const stage = async (phase: string): Promise<void> => {
      await Promise.all(
        kinds.flatMap((kind) =>
          writes
            .filter((write) => write !== 'create')
            .map(async (write) => {
              const name = objectName(phase, write);
              const object = kind.object(namespace, name);
              const holds = write === 'finalizer removal completing a deletion';
              await admin.createNamespacedCustomObject({
                ...kind.api,
                namespace,
                body: {
                  ...object,
                  metadata: { ...object.metadata, ...(holds ? { finalizers: ['example.com/hold'] } : {}) },
                },
              });
              const status = kind.startingStatus[write];
              if (status) await setStatus(admin, kind, name, status);
              if (holds) await admin.deleteNamespacedCustomObject({ ...kind.api, namespace, name });
            }),
        ),
      );
    };
    const objectName = (phase: string, write: Write) =>
      `${phase}-${write
        .split(' ')
        .map((word) => word[0])
        .join('')}`;

    const run = async (phase: string, kind: DrillKind, write: Write): Promise<string> => {
      const name = objectName(phase, write);
      const resource = resourceOf(kind);
      const operator = operators.get(kind)!;
      switch (write) {
        case 'create': {
          const file = join(install!.workDir, `create-${++files}.json`);
          await writeFile(file, JSON.stringify(kind.object(namespace, name)));
          return kubectlOutcome(await kubectlIn('create', '-f', file));
        }
        case 'spec change crdgate refuses':
        case 'spec change crdgate allows':
          return kubectlOutcome(
            await kubectlIn('patch', resource, name, '--type=merge', '-p', JSON.stringify(kind.patches[write])),
          );
        case 'label edit':
          return kubectlOutcome(await kubectlIn('label', resource, name, 'team=maps'));
        case 'annotation edit':
          return kubectlOutcome(await kubectlIn('annotate', resource, name, 'example.com/owner=maps-team'));
        case 'status write keeping the state':
        case 'status write moving the state':
          return outcomeOf(setStatus(operator, kind, name, kind.patches[write]['status'] as Record<string, unknown>));
        case 'delete':
          return kubectlOutcome(await kubectlIn('delete', resource, name, '--wait=false'));
        case 'finalizer removal completing a deletion':
          return outcomeOf(
            operator.patchNamespacedCustomObject(
              { ...kind.api, namespace, name, body: [{ op: 'remove', path: '/metadata/finalizers' }] },
              setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
            ),
          );
      }
    };

    /** Whether what the write asked for is what the API server now stores. */
    const landed = async (phase: string, kind: DrillKind, write: Write): Promise<boolean> => {
      const object = await stored(kind, objectName(phase, write));
      switch (write) {
        case 'create':
          return object !== undefined;
        case 'label edit':
          return object?.metadata?.labels?.['team'] === 'maps';
        case 'annotation edit':
          return object?.metadata?.annotations?.['example.com/owner'] === 'maps-team';
        case 'delete':
        case 'finalizer removal completing a deletion':
          return object === undefined;
        default:
          return carries(kind.patches[write], object);
      }
    };

    /** crdgate SIGKILLed or frozen (or left up) for every write of the drill at once, each on its own object and timed; then what was stored. */
    const drill = async (mode: Mode, rendering: Rendering, outage: Outage, phase: string): Promise<void> => {
      if (outage === 'frozen') gate.freeze();
      if (outage === 'killed') expect((await gate.kill()).signal).toBe('SIGKILL');
      let results;
      try {
        results = await Promise.all(
          kinds.flatMap((kind) =>
            writes.map(async (write) => {
              const started = performance.now();
              const outcome = await run(phase, kind, write);
              return { kind, write, outcome, seconds: (performance.now() - started) / 1000 };
            }),
          ),
        );
      } finally {
        if (outage === 'frozen') gate.resume();
        if (outage === 'killed') await gate.start();
      }
      report.push(
        ...results.map(({ kind, write, outcome, seconds }) => ({
          mode,
          rendering,
          outage,
          kind: kind.kind,
          write,
          outcome,
          seconds,
        })),
      );
      for (const { kind, write, outcome } of results) {
        const what = `${kind.kind}, ${write} (${mode}, ${rendering}, crdgate ${outage})`;
        expect(outcome, what).toBe(expectedOutcome(mode, rendering, outage, kind, write, policyName(kind)));
        expect(await landed(phase, kind, write), `${what}: stored`).toBe(outcome === 'admitted');
        if (write === 'create' && outcome === 'admitted') {
          const created = await stored(kind, objectName(phase, write));
          expect(created?.spec, `${what}: the defaults`).toEqual(kind.createdSpec);
          expect(created?.metadata?.labels, `${what}: the defaults`).toEqual(kind.createdLabels);
        }
      }
    };

    /** Writes crdgate answers, counted by crdgate itself. */
    let reviews: () => Promise<number>;
    /** Until a label edit (a dry run) does, or does not, reach crdgate: the API server has picked the rendering up. */
    const untilLabelEditsReachCrdgate = (reach: boolean) =>
      eventually(`a label edit to ${reach ? '' : 'no longer '}reach crdgate`, async () => {
        const before = await reviews();
        succeeded(
          await kubectlIn(
            'label',
            '--dry-run=server',
            '--overwrite',
            resourceOf(geoDatabase),
            'probe-ready',
            `probe=${randomUUID().slice(0, 8)}`,
          ),
        );
        return (await reviews()) > before === reach ? true : undefined;
      });
    /** Until both policies refuse what they compile (dry runs). */
    const untilPoliciesRefuse = () =>
      Promise.all(
        kinds.map((kind) =>
          eventually(`the ${kind.kind} policy to refuse`, async () => {
            const result = await kubectlIn(
              'patch',
              '--dry-run=server',
              resourceOf(kind),
              'probe-refusing',
              '--type=merge',
              '-p',
              JSON.stringify(kind.patches['spec change crdgate refuses']),
            );
            return refusedBy(result.stderr) === `policy ${policyName(kind)}` ? true : undefined;
          }),
        ),
      );
    const built = async (directory: string): Promise<any[]> =>
      parseAllDocuments(succeeded(await kubectl(cp, ['kustomize', directory]))).map((doc) => doc.toJS());
    const applyBefore = async (directory: string, failurePolicy: 'Fail' | 'Ignore') => {
      const configurations = (await built(directory)).filter((object) => object.kind.endsWith('WebhookConfiguration'));
      succeeded(
        await applyFile(
          asRenderedBefore(
            configurations,
            kinds.map((kind) => kind.contract),
            failurePolicy,
          ),
          '--force-conflicts',
        ),
      );
      await untilLabelEditsReachCrdgate(true);
    };

    beforeAll(async () => {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(cp.kubeconfigPath);
      admin = kubeConfig.makeApiClient(CustomObjectsApi);
      // The operator's chart first: its CRDs, as their owner applies them (crdgate's server follows DbPooler's).
      succeeded(
        await kubectl(cp, [
          'apply',
          '--server-side',
          '--force-conflicts',
          '--field-manager=dbops-chart',
          '-f',
          operatorCrdFile,
        ]),
      );
      succeeded(await waitEstablished(cp, 'dbpoolers.dbops.example.com'));
      const contracts = ['geodatabase.ts', 'declarative-db-pooler.ts'].flatMap((file) => [
        '--contract',
        contractModule(file),
      ]);
      install = await renderGeoDatabaseInstall(cp, installName, namespace, {
        serve: [...contracts, '--kubeconfig', cp.kubeconfigPath],
        manifests: [...contracts, '--timeout-seconds', String(timeoutSeconds)],
      });
      gate = install.gate;
      reviews = async () => {
        const count = admissionCallsFromMetrics(`https://127.0.0.1:${gate.port}`, gate.ca.toString('utf8'));
        return (await count('validate')) + (await count('mutate'));
      };

      // The base, crdgate up: the CRD it owns, its webhooks in front of both kinds.
      succeeded(await kubectl(cp, ['apply', '--server-side', '-k', install.tree]));
      succeeded(await waitEstablished(cp, 'geodatabases.geo.example.com'));
      // Each operator's ServiceAccount, allowed what an operator does with its kind: read it, write it and its status.
      for (const kind of kinds) {
        const account = `${kind.kind.toLowerCase()}-operator`;
        succeeded(await kubectlIn('create', 'serviceaccount', account));
        succeeded(
          await kubectlIn(
            'create',
            'role',
            account,
            '--verb=get,list,watch,update,patch',
            `--resource=${resourceOf(kind)},${resourceOf(kind)}/status`,
          ),
        );
        succeeded(
          await kubectlIn(
            'create',
            'rolebinding',
            account,
            `--role=${account}`,
            `--serviceaccount=${namespace}:${account}`,
          ),
        );
        const file = join(install.workDir, `${account}.kubeconfig`);
        await writeServiceAccountKubeconfig(cp, namespace, account, file);
        const asOperator = new KubeConfig();
        asOperator.loadFromFile(file);
        operators.set(kind, asOperator.makeApiClient(CustomObjectsApi));
      }

      await eventually('the webhooks to default a GeoDatabase', async () => {
        const probe = await admin.createNamespacedCustomObject({
          ...geoDatabase.api,
          namespace,
          body: geoDatabase.object(namespace, 'probe-defaults'),
          dryRun: 'All',
        });
        return (probe as { spec?: { readReplicas?: number } }).spec?.readReplicas === 0 ? true : undefined;
      });
      for (const kind of kinds) {
        await admin.createNamespacedCustomObject({
          ...kind.api,
          namespace,
          body: kind.object(namespace, 'probe-ready'),
        });
        await admin.createNamespacedCustomObject({
          ...kind.api,
          namespace,
          body: kind.object(namespace, 'probe-refusing'),
        });
        await setStatus(admin, kind, 'probe-refusing', kind.startingStatus['spec change crdgate refuses']!);
      }
      await untilLabelEditsReachCrdgate(false);
      for (const phase of ['up', 'ba-k', 'ba-f', 'bb-f', 'fa-k', 'fa-f', 'fb-f']) await stage(phase);
    });

    afterAll(async () => {
      if (!controlPlane || !install) return;
      try {
        gate.resume();
      } catch {
        // Not running.
      }
      // The webhooks and policies first; then no finalizer the drill left keeps an object (and its CRD) from going.
      await kubectl(cp, [
        'delete',
        '--ignore-not-found',
        `validatingwebhookconfiguration/${installName}`,
        `mutatingwebhookconfiguration/${installName}`,
        ...kinds.flatMap((kind) => [
          `validatingadmissionpolicybinding/${policyName(kind)}`,
          `validatingadmissionpolicy/${policyName(kind)}`,
        ]),
      ]);
      for (const kind of kinds) {
        const list = (await admin
          .listNamespacedCustomObject({ ...kind.api, namespace })
          .catch(() => ({ items: [] }))) as { items: { metadata: { name: string; finalizers?: string[] } }[] };
        for (const object of list.items.filter((item) => (item.metadata.finalizers?.length ?? 0) > 0)) {
          await admin.patchNamespacedCustomObject(
            { ...kind.api, namespace, name: object.metadata.name, body: { metadata: { finalizers: null } } },
            mergePatch,
          );
        }
      }
      const crdDeleted = await removeGeoDatabaseInstall(cp, installName, namespace, install);
      expect(crdDeleted.exitCode, crdDeleted.stderr).toBe(0);
      // The operator's CRDs too: the next e2e file may install its own DbCluster or DbPooler on this API server.
      const operatorCrdsDeleted = await kubectl(cp, [
        'delete',
        '--ignore-not-found',
        '--wait=true',
        '-f',
        operatorCrdFile,
      ]);
      expect(operatorCrdsDeleted.exitCode, operatorCrdsDeleted.stderr).toBe(0);
      console.log(drillReport(report));
    });

    describe('the base: webhooks at failurePolicy Fail', () => {
      it('crdgate up, for reference: what a write costs with nothing down', async () => {
        await drill('base', 'after', 'up', 'up');
      });

      it('crdgate SIGKILLed (a refused connection): only creates and spec changes are refused, by the webhook; the operator’s writes, labels, annotations and deletions go on', async () => {
        await drill('base', 'after', 'killed', 'ba-k');
      });

      it('crdgate frozen (SIGSTOP): the same outcomes; only the writes crdgate judges wait for it', async () => {
        await drill('base', 'after', 'frozen', 'ba-f');
      });

      it('crdgate frozen, the webhooks as rendered before: every write of both kinds waits for it and is refused', async () => {
        await applyBefore(install!.tree, 'Fail');
        await drill('base', 'before', 'frozen', 'bb-f');
      });
    });

    describe('the policy floor: webhooks at Ignore, the ValidatingAdmissionPolicy and MutatingAdmissionPolicy', () => {
      beforeAll(async () => {
        succeeded(
          await kubectl(cp, [
            'apply',
            '--server-side',
            '--force-conflicts',
            '-k',
            join(install!.tree, 'overlays', 'policy-floor'),
          ]),
        );
        await untilLabelEditsReachCrdgate(false);
        await untilPoliciesRefuse();
        // The API server may pick the MutatingAdmissionPolicy up a moment after the rest: with crdgate killed, the dry
        // run of a create carries a label only the policy sets.
        expect((await gate.kill()).signal).toBe('SIGKILL');
        try {
          await eventually('the MutatingAdmissionPolicy to default a GeoDatabase', async () => {
            const probe = (await admin.createNamespacedCustomObject({
              ...geoDatabase.api,
              namespace,
              body: geoDatabase.object(namespace, 'probe-floor'),
              dryRun: 'All',
            })) as KubeObject;
            return probe.metadata?.labels?.['geo.example.com/postgres-major'] === '16' ? true : undefined;
          });
        } finally {
          await gate.start();
        }
      });

      it('crdgate SIGKILLed: the policy refuses what crdgate would, creates get the floor’s defaults, everything else goes on', async () => {
        await drill('policy floor', 'after', 'killed', 'fa-k');
      });

      it('crdgate frozen: the same outcomes, the judged writes waiting timeoutSeconds per webhook called', async () => {
        await drill('policy floor', 'after', 'frozen', 'fa-f');
      });

      it('crdgate frozen, the webhooks as rendered before: the same outcomes, every write waiting', async () => {
        await applyBefore(join(install!.tree, 'overlays', 'policy-floor'), 'Ignore');
        await drill('policy floor', 'before', 'frozen', 'fb-f');
      });
    });
  },
);

/** The figures, as a table per mode: a row per kind and write, a column per outage and rendering. */
function drillReport(rows: readonly Measured[]): string {
  const columns: Array<[Rendering, Outage]> = [
    ['after', 'up'],
    ['after', 'killed'],
    ['after', 'frozen'],
    ['before', 'frozen'],
  ];
  const lines = [
    `outage drill (timeoutSeconds ${timeoutSeconds}; seconds per write, each made by kubectl or the operator's client, all of a phase at once)`,
  ];
  for (const mode of ['base', 'policy floor'] as const) {
    lines.push(
      '',
      `${mode} | ${columns.map(([rendering, outage]) => `${outage === 'up' ? 'crdgate up' : `crdgate ${outage}`} (${rendering})`).join(' | ')}`,
    );
    for (const kind of kinds) {
      for (const write of writes) {
        const cells = columns.map(([rendering, outage]) => {
          const row = rows.find(
            (r) =>
              r.mode === (outage === 'up' ? 'base' : mode) &&
              r.rendering === rendering &&
              r.outage === outage &&
              r.kind === kind.kind &&
              r.write === write,
          );
          return row ? `${row.outcome === 'admitted' ? 'admitted' : 'refused'} ${row.seconds.toFixed(2)}` : '-';
        });
        lines.push(`${kind.kind} ${write}${byOperator.has(write) ? ' (operator)' : ''} | ${cells.join(' | ')}`);
      }
    }
  }
  lines.push('', JSON.stringify(rows));
  return lines.join('\n');
}
