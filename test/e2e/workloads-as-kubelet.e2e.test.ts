import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { eventually } from '../../src/local-loop/eventually.ts';
import { builtHelm } from '../tools/suite-tools.ts';
import { installNames, migrationJobName } from '../../src/render/in-cluster-names.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { missingPrerequisite } from '../missing-prerequisite.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { crdgateImage, type SharedImage } from './support/crdgate-image.ts';
import { helm, yamlObjects } from './support/helm.ts';
import { invalidGeoDatabase, invalidGeoDatabaseFields, validGeoDatabase } from './support/geodatabases.ts';
import { kubectl, crdNotBeingDeleted } from './support/kubectl.ts';
import { writeServiceAccountFiles } from './support/service-account-kubeconfig.ts';
import { proxyService, type ServiceProxy } from './support/service-proxy.ts';
import { olmInstall, olmServiceName, type ClusterServiceVersion } from './support/olm-install.ts';
import { mountNamespaceProblem } from './support/service-account-mount.ts';
import { startContainer, type PodTemplateSpec, type RunningContainer } from './support/kubelet.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;
const execFileAsync = promisify(execFile);

const repo = fileURLToPath(new URL('../..', import.meta.url));
const nodeBinDir = dirname(process.execPath);
const certMountPath = '/etc/crdgate/certs';
const crdName = 'geodatabases.geo.example.com';
// The self-managed-certs replica finds its service account where a pod has it: in a mount namespace of its own,
// which needs root (as does running the containers as the image's user).
const noMountNamespace = await mountNamespaceProblem();
const notRoot =
  process.getuid?.() === 0 ? undefined : 'the tests do not run as root, so the container cannot run as its user';

/**
 * No container runtime runs here, so this is what the kubelet would do with crdgate's image and every workload that
 * `crdgate manifests` renders: the image built from the Dockerfile (its stages, production dependencies only, /app
 * not writable by its user), each container started with its command and args over the image's ENTRYPOINT and CMD,
 * its env over the image's ENV (NODE_OPTIONS among them: Node refuses some flags there, and a pod that passes
 * them exits at start), as the pod's non-root user, the Secret mounted where the pod mounts it; then its probes.
 * Last, the built-in example as a user installs it with `helm install`: its pod started this way and reached through
 * its Service (support/service-proxy.ts plays kube-proxy), its migration hook's container run while helm waits.
 */
describe.skipIf(!controlPlane)("crdgate's rendered workloads, started as the kubelet starts them", () => {
  const cp = controlPlane as ProvidedControlPlane;
  const id = randomUUID().slice(0, 8);
  const installName = `kubelet-${id}`;
  const namespace = `crdgate-e2e-kubelet-${id}`;
  let image: SharedImage;
  let workDir: string;
  let tree: string;
  let certDir: string;
  /** Every kustomization of the rendered tree, built as `kubectl apply -k` would build it. */
  const built = new Map<string, any[]>();

  const imageCli = async (args: string[]) => {
    const { stdout } = await execFileAsync(join(nodeBinDir, 'node'), [join(image.workDir, 'dist', 'cli.js'), ...args], {
      cwd: workDir,
    });
    return stdout;
  };
  const podOf = (objects: any[], kind: 'Deployment' | 'Job'): PodTemplateSpec => {
    const found = objects.filter((object) => object.kind === kind);
    expect(found, kind).toHaveLength(1);
    return found[0].spec.template.spec;
  };
  /** The readiness probe's 200, or the container's output when it exits first. */
  const readyOrExited = (container: RunningContainer) =>
    Promise.race([
      waitReady(container),
      container.exited.then((exit) => {
        throw new Error(`exited ${JSON.stringify(exit)} before ready:\n${container.output()}`);
      }),
    ]);
  const waitReady = (container: RunningContainer) =>
    eventually(
      'the readiness probe to answer 200',
      async () => {
        const answer = await container.probe('readinessProbe').catch(() => undefined);
        return answer?.status === 200 ? answer : undefined;
      },
      { timeoutMs: 60_000 },
    );
  /** What the kubelet mounts at the service-account path for a pod of `account`, in a folder of its own. */
  const serviceAccountFiles = async (account: string, inNamespace: string) => {
    const dir = await mkdtemp(join(workDir, `service-account-${account}-`));
    await writeServiceAccountFiles(cp, inNamespace, account, dir);
    return dir;
  };
  const apiServerServiceEnv = () => {
    const apiServer = new URL(cp.apiServerUrl);
    return {
      KUBERNETES_SERVICE_HOST: apiServer.hostname,
      KUBERNETES_SERVICE_PORT: apiServer.port,
      KUBERNETES_SERVICE_PORT_HTTPS: apiServer.port,
    };
  };

  /** The example's CRD, which the installs below each create and delete in turn, deleted by the one before. */
  const previousCrdGone = () =>
    eventually(
      `the previous ${crdName} to be gone`,
      async () => {
        const existing = await kubectl(cp, ['get', 'crd', crdName, '--ignore-not-found', '-o', 'name']);
        return existing.exitCode === 0 && existing.stdout === '' ? true : undefined;
      },
      { timeoutMs: 60_000 },
    );
  const getJson = async (args: string[]) => {
    const got = await kubectl(cp, ['get', ...args, '-o', 'json']);
    expect(got.exitCode, got.stderr).toBe(0);
    return JSON.parse(got.stdout);
  };
  /**
   * What an installed crdgate does with the API server's GeoDatabase requests in `inNamespace`: refuses an invalid one
   * naming each field, adds a default the CRD cannot, and converts a read into a version the object is not stored in.
   */
  const servesGeoDatabases = async (inNamespace: string, through: string) => {
    const objectFile = async (name: string, object: unknown) => {
      const path = join(workDir, `${inNamespace}-${name}.yaml`);
      await writeFile(path, stringify(object));
      return path;
    };
    const invalid = await objectFile('invalid', invalidGeoDatabase(inNamespace, 'wrong'));
    const denied = await eventually(
      `crdgate's refusal through ${through}`,
      async () => {
        const attempt = await kubectl(cp, ['create', '-f', invalid]);
        // Only crdgate sees these fields wrong (the CRD's schema accepts them): its field errors, as kubectl prints them.
        if (
          attempt.exitCode !== 0 &&
          invalidGeoDatabaseFields.every((field) => attempt.stderr.includes(`* ${field}: `))
        )
          return attempt;
        throw new Error(`exit ${attempt.exitCode}: ${attempt.stderr}`);
      },
      { timeoutMs: 60_000 },
    );
    expect(denied.stderr).toMatch(/GeoDatabase "wrong" is invalid/);
    const valid = await objectFile('valid', validGeoDatabase(inNamespace, 'served'));
    const created = await kubectl(cp, ['create', '-f', valid]);
    expect(created.exitCode, created.stderr).toBe(0);
    // A label the CRD's schema cannot default: only the mutating webhook adds it.
    const stored = await getJson([`geodatabases.v1.geo.example.com`, 'served', '-n', inNamespace]);
    expect(stored.metadata.labels).toMatchObject({ 'geo.example.com/postgres-major': '16' });
    // Read in a version the object is not stored in: the conversion webhook answers through the same Service.
    const converted = await getJson([`geodatabases.v1alpha1.geo.example.com`, 'served', '-n', inNamespace]);
    expect(converted.apiVersion).toBe('geo.example.com/v1alpha1');
  };

  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-e2e-kubelet-'));
    // The container's user reaches the mounted folders through it, as through the kubelet's pod folder.
    await chmod(workDir, 0o755);
    // As `docker build .` builds it, stage by stage, from the repository as the build context.
    image = await crdgateImage();
    tree = join(workDir, 'deploy');
    await imageCli(['manifests', '--name', installName, '--namespace', namespace, '--out', tree]);
    for (const dir of await kustomizations(tree)) {
      const result = await kubectl(cp, ['kustomize', join(tree, dir)]);
      expect(result.exitCode, result.stderr).toBe(0);
      built.set(
        dir,
        parseAllDocuments(result.stdout).map((doc) => doc.toJS()),
      );
    }
    // The migration folder is plain YAML, for `kubectl apply -f`.
    const migration = join(tree, 'migration');
    const files = await readdir(migration);
    built.set(
      'migration',
      (await Promise.all(files.map((file) => readFile(join(migration, file), 'utf8')))).flatMap((text) =>
        parseAllDocuments(text).map((doc) => doc.toJS()),
      ),
    );
    certDir = join(workDir, 'serving-cert');
    await imageCli(['certs', '--out', certDir, '--ip', '127.0.0.1']);
    // The Secret's keys, as cert-manager and `crdgate certs` write them: nothing else is in the volume.
    for (const file of await readdir(certDir))
      if (!['tls.crt', 'tls.key', 'ca.crt'].includes(file)) await rm(join(certDir, file));
  }, 600_000);

  afterAll(async () => {
    if (workDir) await rm(workDir, { recursive: true, force: true });
  });

  it('builds the image on the pinned Node, with production dependencies only and dist/', async () => {
    expect(image.config.nodeVersion).toBe(process.versions.node);
    expect(image.config.workingDir).toBe('/app');
    expect(image.config.user.uid).not.toBe(0);
    // The lockfile marks what only the devDependencies need: none of it in the image, all of the rest.
    const lock = JSON.parse(await readFile(join(repo, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean }>;
    };
    const present = async (path: string) =>
      readdir(join(image.workDir, path)).then(
        () => true,
        () => false,
      );
    const modules = Object.entries(lock.packages).filter(([path]) => path.startsWith('node_modules/'));
    const devOnly = modules.filter(([, entry]) => entry.dev).map(([path]) => path);
    const production = modules.filter(([, entry]) => !entry.dev && !entry.optional).map(([path]) => path);
    expect(devOnly).toEqual(
      expect.arrayContaining(['node_modules/vitest', 'node_modules/typescript', 'node_modules/fast-check']),
    );
    expect(
      (await Promise.all(devOnly.map(async (path) => ((await present(path)) ? path : undefined)))).filter(Boolean),
    ).toEqual([]);
    expect(
      (await Promise.all(production.map(async (path) => ((await present(path)) ? undefined : path)))).filter(Boolean),
    ).toEqual([]);
    expect((await readdir(join(image.workDir, 'dist'))).filter((file) => file.endsWith('.test.js'))).toEqual([]);
    expect(await readdir(join(image.workDir, 'dist'))).toContain('cli.js');
  });

  it.skipIf(missingPrerequisite("the test that the image's user cannot write to /app", notRoot))(
    "closes /app to its user's writes",
    async () => {
      const write = await execFileAsync(
        join(nodeBinDir, 'node'),
        ['-e', "require('node:fs').writeFileSync('written-by-the-container', '')"],
        { cwd: image.workDir, uid: image.config.user.uid, gid: image.config.user.gid },
      ).then(
        () => 'written',
        (error: Error & { stderr?: string }) => error.stderr ?? '',
      );
      expect(write).toMatch(/EACCES/);
    },
  );

  it('renders a server Deployment in the base and in every overlay but monitoring, and the migration Job', () => {
    const withDeployment = [...built]
      .filter(([, objects]) => objects.some((object) => object.kind === 'Deployment'))
      .map(([dir]) => dir);
    expect(withDeployment.sort()).toEqual([
      '.',
      'base',
      'overlays/cert-manager',
      'overlays/policy-floor',
      'overlays/self-managed-certs',
    ]);
    expect(built.get('migration')!.map((object) => object.kind)).toContain('Job');
  });

  it.each(['base', 'overlays/cert-manager', 'overlays/policy-floor'])(
    'starts the Deployment of %s: ready, alive, and out within its grace period on SIGTERM',
    async (dir) => {
      await startReadyAndStop(podOf(built.get(dir)!, 'Deployment'));
    },
  );

  it('starts the Deployment of the Helm chart, as helm template renders it with its certificate from a Secret: ready, alive, and out on SIGTERM', async () => {
    const helmPath = await builtHelm();
    const chart = join(workDir, 'chart');
    await imageCli(['manifests', '--format', 'helm', '--name', installName, '--out', chart]);
    const rendered = await helm(helmPath, join(workDir, 'helm-home'), undefined, [
      'template',
      installName,
      chart,
      '--namespace',
      namespace,
      '--set',
      'certificates.mode=secret,logLevel=debug',
    ]);
    expect(rendered.exitCode, rendered.stderr).toBe(0);
    await startReadyAndStop(podOf(yamlObjects(rendered.stdout), 'Deployment'));
  });

  async function startReadyAndStop(pod: PodTemplateSpec): Promise<void> {
    const container = await startContainer({
      image,
      pod,
      metadata: { name: `${installName}-7d9f8-abcde`, namespace },
      mounts: { [certMountPath]: certDir },
      nodeBinDir,
    });
    try {
      const ready = await readyOrExited(container);
      expect(ready).toEqual({ status: 200, body: 'ok' });
      expect(await container.probe('livenessProbe')).toMatchObject({ status: 200 });
    } finally {
      const stopped = await container.stop();
      expect(stopped, container.output()).toEqual({ code: 0, signal: null });
    }
    expect(container.output()).not.toMatch(/not allowed in NODE_OPTIONS/);
  }

  it("starts the migration Job's container, which refuses the missing kubeconfig with its usage error", async () => {
    const pod = podOf(built.get('migration')!, 'Job');
    const container = await startContainer({
      image,
      pod,
      metadata: { name: `${installName}-migrate-x7k2p`, namespace },
      mounts: {},
      nodeBinDir,
    });
    const exit = await Promise.race([
      container.exited,
      new Promise((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000)),
    ]);
    expect({ exit, output: container.output() }).toEqual({
      exit: { code: 2, signal: null },
      output: expect.stringMatching(/^crdgate migrate: no kubeconfig: /m),
    });
  });

  describe.skipIf(
    missingPrerequisite('the self-managed-certs Deployment from the in-cluster configuration', noMountNamespace),
  )('the self-managed-certs Deployment, from the in-cluster configuration', () => {
    const names = installNames(installName);
    let overlay: string;

    beforeAll(async () => {
      overlay = join(tree, 'overlays', 'self-managed-certs');
      // The previous file's CRD may still be going (its instances are deleted first); applying to it would fail.
      await crdNotBeingDeleted(cp, crdName);
      const applied = await kubectl(cp, ['apply', '--server-side', '-k', overlay]);
      expect(applied.exitCode, applied.stderr).toBe(0);
    });

    afterAll(async () => {
      // Webhooks first: they name a Service no API server here can reach, and other files write GeoDatabases.
      await kubectl(cp, [
        'delete',
        '--ignore-not-found',
        `validatingwebhookconfiguration/${installName}`,
        `mutatingwebhookconfiguration/${installName}`,
      ]);
      await kubectl(cp, ['delete', '--ignore-not-found', '--wait=true', '--timeout=60s', `crd/${crdName}`]);
      await kubectl(cp, [
        'delete',
        '--ignore-not-found',
        `clusterrolebinding/${names.certAccess}`,
        `clusterrole/${names.certAccess}`,
      ]);
      // No controller-manager runs, so the namespace stays Terminating; its name is unique to this run.
      await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
    });

    it('reads the token, CA and namespace at the standard paths and the API server from KUBERNETES_SERVICE_HOST, fills its Secret and every caBundle, and is ready', async () => {
      const pod = podOf(built.get('overlays/self-managed-certs')!, 'Deployment');
      expect(pod.automountServiceAccountToken).toBe(true);
      const container = await startContainer({
        image,
        pod,
        metadata: { name: `${installName}-5c8d7-fghij`, namespace },
        mounts: {},
        serviceEnv: apiServerServiceEnv(),
        serviceAccountDir: await serviceAccountFiles(names.server, namespace),
        nodeBinDir,
      });
      try {
        const ready = await readyOrExited(container);
        expect(ready).toEqual({ status: 200, body: 'ok' });
      } finally {
        const stopped = await container.stop();
        expect(stopped, container.output()).toEqual({ code: 0, signal: null });
      }
      const secret = JSON.parse(
        (await kubectl(cp, ['get', 'secret', names.servingCertSecret, '-n', namespace, '-o', 'json'])).stdout,
      );
      expect(Object.keys(secret.data ?? {}).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
      const webhooks = JSON.parse(
        (await kubectl(cp, ['get', `validatingwebhookconfiguration/${installName}`, '-o', 'json'])).stdout,
      );
      expect(webhooks.webhooks[0].clientConfig.caBundle).toBe(secret.data['ca.crt']);
    });
  });

  describe.skipIf(
    missingPrerequisite(
      'the built-in example installed with helm install and served by its pod',
      noMountNamespace ?? notRoot,
    ),
  )("the built-in example installed with helm install, served by its chart's Deployment", () => {
    const release = `helm-example-${id}`;
    const helmNamespace = `crdgate-e2e-helm-${id}`;
    const names = installNames(release);
    let helmRun: (args: string[]) => ReturnType<typeof helm>;
    let container: RunningContainer | undefined;
    let proxy: ServiceProxy | undefined;
    const objectFile = async (name: string, object: unknown) => {
      const path = join(workDir, `${name}.yaml`);
      await writeFile(path, stringify(object));
      return path;
    };

    beforeAll(async () => {
      const helmPath = await builtHelm();
      helmRun = (args) => helm(helmPath, join(workDir, 'helm-home'), cp, args);
      await previousCrdGone();
    }, 1_200_000);

    afterAll(async () => {
      await container?.stop();
      await proxy?.close();
      await helmRun?.(['uninstall', release, '-n', helmNamespace, '--ignore-not-found']);
      await kubectl(cp, [
        'delete',
        '--ignore-not-found',
        `validatingwebhookconfiguration/${release}`,
        `mutatingwebhookconfiguration/${release}`,
      ]);
      await kubectl(cp, ['delete', '--ignore-not-found', '--wait=true', '--timeout=60s', `crd/${crdName}`]);
      await kubectl(cp, ['delete', 'namespace', helmNamespace, '--wait=false', '--ignore-not-found']);
    });

    it('installs the chart of the built-in example with its default values; writes fail closed while no pod serves', async () => {
      const chart = join(workDir, 'example-chart');
      await imageCli(['manifests', '--format', 'helm', '--name', release, '--out', chart]);
      const installed = await helmRun(['install', release, chart, '--namespace', helmNamespace, '--create-namespace']);
      expect(installed.exitCode, installed.stderr).toBe(0);
      const established = await kubectl(cp, ['wait', '--for=condition=Established', '--timeout=60s', `crd/${crdName}`]);
      expect(established.exitCode, established.stderr).toBe(0);
      const object = await objectFile('while-down', validGeoDatabase(helmNamespace, 'while-down'));
      const refused = await eventually('the API server to call the webhook no pod serves', async () => {
        const attempt = await kubectl(cp, ['create', '--dry-run=server', '-f', object]);
        return attempt.exitCode !== 0 && attempt.stderr.includes('failed calling webhook') ? attempt : undefined;
      });
      expect(refused.stderr).toMatch(/failed calling webhook "(mutate|validate)\.geodatabases\.geo\.example\.com"/);
    });

    it('starts the Deployment as the kubelet would, behind its Service: it fills every caBundle, and crdgate validates, defaults and converts', async () => {
      const manifest = await helmRun(['get', 'manifest', release, '-n', helmNamespace]);
      expect(manifest.exitCode, manifest.stderr).toBe(0);
      const pod = podOf(yamlObjects(manifest.stdout), 'Deployment');
      container = await startContainer({
        image,
        pod,
        metadata: { name: `${release}-6f7c9-klmno`, namespace: helmNamespace },
        mounts: {},
        serviceEnv: apiServerServiceEnv(),
        serviceAccountDir: await serviceAccountFiles(names.server, helmNamespace),
        nodeBinDir,
      });
      const service = await getJson(['service', names.server, '-n', helmNamespace]);
      const port = service.spec.ports[0];
      const podPort =
        typeof port.targetPort === 'number'
          ? port.targetPort
          : pod.containers[0]!.ports!.find((each) => each.name === port.targetPort)!.containerPort;
      proxy = await proxyService(service.spec.clusterIP, port.port, podPort);
      const running = container;
      const ready = await readyOrExited(running);
      expect(ready).toEqual({ status: 200, body: 'ok' });
      const secret = await getJson(['secret', names.servingCertSecret, '-n', helmNamespace]);
      for (const kind of ['validatingwebhookconfiguration', 'mutatingwebhookconfiguration']) {
        const configuration = await getJson([kind, release]);
        expect(
          configuration.webhooks.map((webhook: any) => webhook.clientConfig.caBundle),
          kind,
        ).toEqual(configuration.webhooks.map(() => secret.data['ca.crt']));
      }
      expect((await getJson(['crd', crdName])).spec.conversion.webhook.clientConfig.caBundle).toBe(
        secret.data['ca.crt'],
      );

      // The API server reads the caBundles from its informers: the first writes may still fail on the old ones.
      await servesGeoDatabases(helmNamespace, 'the Service');
      expect(running.output()).not.toMatch(/"level":(50|60)/);
    });

    it('upgrades with the migration on: helm waits for the hook Job, whose container, started as the kubelet would, trims storedVersions', async () => {
      // As if a GeoDatabase had once been stored in v1beta1: what a storage-version change leaves for the migration.
      const marked = await kubectl(cp, [
        'patch',
        'crd',
        crdName,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status: { storedVersions: ['v1beta1', 'v1'] } }),
      ]);
      expect(marked.exitCode, marked.stderr).toBe(0);
      const upgrade = helmRun([
        'upgrade',
        release,
        join(workDir, 'example-chart'),
        '--namespace',
        helmNamespace,
        '--set',
        'migration.enabled=true',
        '--timeout',
        '5m',
      ]);
      let upgradeSettled = false;
      void upgrade.finally(() => (upgradeSettled = true));
      const jobName = migrationJobName(release, geoDatabaseContract());
      const job = await eventually(
        'helm to create the migration hook Job',
        async () => {
          const got = await kubectl(cp, ['get', 'job', jobName, '-n', helmNamespace, '-o', 'json']);
          return got.exitCode === 0 ? JSON.parse(got.stdout) : undefined;
        },
        { timeoutMs: 60_000 },
      );
      expect(job.metadata.annotations['helm.sh/hook']).toContain('post-upgrade');
      const migration = await startContainer({
        image,
        pod: job.spec.template.spec,
        metadata: { name: `${jobName}-q8w4z`, namespace: helmNamespace },
        mounts: {},
        serviceEnv: apiServerServiceEnv(),
        serviceAccountDir: await serviceAccountFiles(job.spec.template.spec.serviceAccountName, helmNamespace),
        nodeBinDir,
      });
      const exit = await Promise.race([
        migration.exited,
        new Promise((resolve) => setTimeout(() => resolve('still running after 120 s'), 120_000)),
      ]);
      expect(exit, migration.output()).toEqual({ code: 0, signal: null });
      expect(upgradeSettled, 'helm upgrade returned before its hook Job completed').toBe(false);
      // The job controller's part, which no controller-manager plays here: the Job's status, from its pod's exit.
      const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
      const finished = { type: 'Complete', status: 'True', lastProbeTime: now, lastTransitionTime: now };
      const status = {
        startTime: now,
        completionTime: now,
        succeeded: 1,
        ready: 0,
        terminating: 0,
        uncountedTerminatedPods: {},
        conditions: [{ ...finished, type: 'SuccessCriteriaMet' }, finished],
      };
      const completed = await kubectl(cp, [
        'patch',
        'job',
        jobName,
        '-n',
        helmNamespace,
        '--subresource=status',
        '--type=merge',
        '-p',
        JSON.stringify({ status }),
      ]);
      expect(completed.exitCode, completed.stderr).toBe(0);
      const upgraded = await upgrade;
      expect(upgraded.exitCode, upgraded.stderr).toBe(0);
      expect((await getJson(['crd', crdName])).status.storedVersions).toEqual(['v1']);
      expect(
        (await getJson([`geodatabases.v1.geo.example.com`, 'served', '-n', helmNamespace])).metadata.labels,
      ).toMatchObject({ 'geo.example.com/postgres-major': '16' });
    });

    it("uninstalls: the webhooks and the pod's objects are gone, the CRD and the GeoDatabase stay", async () => {
      const uninstalled = await helmRun(['uninstall', release, '--namespace', helmNamespace, '--wait']);
      expect(uninstalled.exitCode, uninstalled.stderr).toBe(0);
      for (const kind of ['validatingwebhookconfiguration', 'mutatingwebhookconfiguration']) {
        expect((await kubectl(cp, ['get', kind, release, '-o', 'name'])).exitCode, kind).not.toBe(0);
      }
      expect((await kubectl(cp, ['get', 'deployment', release, '-n', helmNamespace, '-o', 'name'])).exitCode).not.toBe(
        0,
      );
      const kept = await getJson([`geodatabases.v1.geo.example.com`, 'served', '-n', helmNamespace]);
      expect(kept.spec.postgres.version).toBe('16.4');
    });
  });

  describe.skipIf(
    missingPrerequisite('the built-in example installed from its OLM bundle and served by its pod', notRoot),
  )("the built-in example's OLM bundle, installed as OLM installs it", () => {
    const olmNamespace = `crdgate-e2e-olm-${id}`;
    let bundleDir: string;
    let csv: ClusterServiceVersion;
    let container: RunningContainer | undefined;
    let proxy: ServiceProxy | undefined;
    const objectFile = async (name: string, objects: unknown[]) => {
      const path = join(workDir, `olm-${name}.yaml`);
      await writeFile(path, objects.map((object) => stringify(object)).join('---\n'));
      return path;
    };
    const bundleObjects = async (suffix: string) =>
      (
        await Promise.all(
          (await readdir(join(bundleDir, 'manifests')))
            .filter((file) => file.endsWith(suffix))
            .map(async (file) => yamlObjects(await readFile(join(bundleDir, 'manifests', file), 'utf8'))),
        )
      ).flat();

    beforeAll(async () => {
      bundleDir = join(workDir, 'olm-bundle');
      await imageCli(['manifests', '--format', 'olm', '--version', '0.1.0', '--out', bundleDir]);
      const csvs = await bundleObjects('.clusterserviceversion.yaml');
      expect(csvs).toHaveLength(1);
      csv = csvs[0] as unknown as ClusterServiceVersion;
      await previousCrdGone();
    }, 120_000);

    afterAll(async () => {
      await container?.stop();
      await proxy?.close();
      if (csv) {
        for (const kind of [
          'validatingwebhookconfiguration',
          'mutatingwebhookconfiguration',
          'clusterrole',
          'clusterrolebinding',
        ])
          await kubectl(cp, ['delete', kind, '-l', `olm.owner=${csv.metadata.name}`, '--ignore-not-found']);
      }
      await kubectl(cp, ['delete', '--ignore-not-found', '--wait=true', '--timeout=60s', `crd/${crdName}`]);
      await kubectl(cp, ['delete', 'namespace', olmNamespace, '--wait=false', '--ignore-not-found']);
    });

    it("serves through the Service OLM creates, with OLM's serving pair where OLM mounts it: crdgate validates, defaults and converts, and goes on serving through OLM's rotation of the pair", async () => {
      // The catalog operator's part: the bundle's CRDs, then its other objects in the install's namespace.
      const created = await kubectl(cp, ['create', 'namespace', olmNamespace]);
      expect(created.exitCode, created.stderr).toBe(0);
      const crds = await bundleObjects('.customresourcedefinition.yaml');
      expect(crds.map((crd) => crd.metadata.name)).toEqual([crdName]);
      const appliedCrds = await kubectl(cp, ['apply', '--server-side', '-f', await objectFile('crds', crds)]);
      expect(appliedCrds.exitCode, appliedCrds.stderr).toBe(0);
      const established = await kubectl(cp, ['wait', '--for=condition=Established', '--timeout=60s', `crd/${crdName}`]);
      expect(established.exitCode, established.stderr).toBe(0);
      const carried = [
        ...(await bundleObjects('.poddisruptionbudget.yaml')),
        ...(await bundleObjects('.networkpolicy.yaml')),
      ];
      expect(carried.map((object) => object.kind).sort()).toEqual(['NetworkPolicy', 'PodDisruptionBudget']);
      const others = await kubectl(cp, ['create', '-n', olmNamespace, '-f', await objectFile('carried', carried)]);
      expect(others.exitCode, others.stderr).toBe(0);

      // The olm-operator's part: what it creates from the CSV.
      const install = await olmInstall(csv, olmNamespace, join(workDir, 'olm-volumes'));
      const made = await kubectl(cp, ['create', '-f', await objectFile('install', install.objects)]);
      expect(made.exitCode, made.stderr).toBe(0);
      for (const [crd, patch] of install.conversionPatches) {
        const patched = await kubectl(cp, ['patch', 'crd', crd, '--type=merge', '-p', JSON.stringify(patch)]);
        expect(patched.exitCode, patched.stderr).toBe(0);
      }
      expect([...install.conversionPatches.keys()]).toEqual([crdName]);

      // The kubelet's part: the pod OLM's Deployment describes, with the Secret OLM mounts.
      const pod = install.podTemplate.spec as PodTemplateSpec;
      container = await startContainer({
        image,
        pod,
        metadata: { name: 'crdgate-8c6d5-pqrst', namespace: olmNamespace },
        mounts: install.volumeFolders,
        nodeBinDir,
      });
      const service = await getJson([
        'service',
        olmServiceName(csv.spec.install.spec.deployments[0]!.name),
        '-n',
        olmNamespace,
      ]);
      const port = service.spec.ports[0];
      proxy = await proxyService(service.spec.clusterIP, port.port, port.targetPort);
      const running = container;
      const ready = await readyOrExited(running);
      expect(ready).toEqual({ status: 200, body: 'ok' });

      await servesGeoDatabases(olmNamespace, "OLM's Service");

      // OLM's rotation: a new CA and pair in the Secret (the kubelet updates the volume in place), its CA in every
      // caBundle. The pod goes on serving: crdgate reloads the pair, so writes pass once the API server trusts it.
      const rotatedCa = Buffer.from((await install.rotate()).certPem).toString('base64');
      for (const configuration of install.objects.filter((object) => object.kind.endsWith('WebhookConfiguration'))) {
        const listed = await getJson([
          configuration.kind.toLowerCase(),
          '-l',
          `olm.webhook-description-generate-name=${configuration.webhooks[0].name}`,
        ]);
        expect(listed.items).toHaveLength(1);
        const patch = [{ op: 'replace', path: '/webhooks/0/clientConfig/caBundle', value: rotatedCa }];
        const patched = await kubectl(cp, [
          'patch',
          configuration.kind.toLowerCase(),
          listed.items[0].metadata.name,
          '--type=json',
          '-p',
          JSON.stringify(patch),
        ]);
        expect(patched.exitCode, patched.stderr).toBe(0);
      }
      const conversionPatch = [
        { op: 'replace', path: '/spec/conversion/webhook/clientConfig/caBundle', value: rotatedCa },
      ];
      const rotatedCrd = await kubectl(cp, [
        'patch',
        'crd',
        crdName,
        '--type=json',
        '-p',
        JSON.stringify(conversionPatch),
      ]);
      expect(rotatedCrd.exitCode, rotatedCrd.stderr).toBe(0);
      const afterRotation = join(workDir, 'olm-after-rotation.yaml');
      await writeFile(afterRotation, stringify(validGeoDatabase(olmNamespace, 'after-rotation')));
      await eventually(
        'a write through the rotated pair',
        async () => {
          const attempt = await kubectl(cp, ['create', '-f', afterRotation]);
          if (attempt.exitCode === 0) return attempt;
          throw new Error(`exit ${attempt.exitCode}: ${attempt.stderr}`);
        },
        { timeoutMs: 60_000 },
      );
      expect(running.output()).toMatch(/serving certificate reloaded/);
      const convertedAfter = await getJson([
        `geodatabases.v1alpha1.geo.example.com`,
        'after-rotation',
        '-n',
        olmNamespace,
      ]);
      expect(convertedAfter.apiVersion).toBe('geo.example.com/v1alpha1');
      // What OLM's configurations lack against the kustomize install's, which `manifests` says: no matchConditions.
      const configurations = await getJson(['validatingwebhookconfiguration', '-l', `olm.owner=${csv.metadata.name}`]);
      expect(configurations.items.length).toBeGreaterThan(0);
      for (const configuration of configurations.items)
        expect(configuration.webhooks[0].matchConditions ?? [], configuration.metadata.name).toEqual([]);
      expect(running.output()).not.toMatch(/"level":(50|60)/);
    });
  });
});

/** The folders of a rendered tree that hold a kustomization, relative to it ('.' for its root). */
async function kustomizations(tree: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    if (entries.some((entry) => entry.name === 'kustomization.yaml')) found.push(relative(tree, dir) || '.');
    for (const entry of entries) if (entry.isDirectory()) await walk(join(dir, entry.name));
  };
  await walk(tree);
  return found;
}
