import { serveDefaults } from '../config.ts';
import { certMountPath, componentLabels, installNames, servicePort, type Install } from './in-cluster-names.ts';
import type { Manifest } from './manifest.ts';
import { crdGateServerMemory, exampleServerMemory, type ServerMemory } from './server-memory.ts';
import { restrictedContainerSecurityContext, restrictedPodSecurityContext } from './security-context.ts';

const labels = (install: Install): Record<string, string> => componentLabels(install.name, 'webhook');
// The container's name is seen only inside its pod: it stays crdgate whatever the install is called. Overlays
// patch the container and the volume by these names.
export const serverContainerName = 'crdgate';
export const certVolumeName = 'serving-cert';
const replicas = 2;
/**
 * The young generation that crdgate's image (and every image `crdgate init` scaffolds) sets in its ENV, and the
 * server's container adds a heap cap to. Both are NODE_OPTIONS, where Node accepts only some V8 flags.
 */
export const imageNodeOptions = '--max-semi-space-size=16';
/** The container's NODE_OPTIONS: the image's young generation, and the heap cap of its memory (server-memory.ts). */
export function serverNodeOptions(heapMi: number): string {
  return `${imageNodeOptions} --max-old-space-size=${heapMi}`;
}
// The server finishes in-flight requests for up to its 30 s request timeout (src/server/serve.ts) after the drain
// delay; the kubelet must not kill it sooner, or the API server sees a webhook call fail mid-flight.
const inFlightSeconds = 30;
const terminationGracePeriodSeconds = serveDefaults.drainDelaySeconds + inFlightSeconds;

export function renderNamespace(namespace: string): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: namespace,
      // Everything crdgate runs meets the restricted Pod Security Standard; enforcing it keeps it that way, and the
      // warning flags a Deployment or Job that breaks it when it is applied, not when its pods fail to start.
      labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' },
    },
  };
}

export interface ServerWorkloadOptions {
  /**
   * The pods get their ServiceAccount token: the server reads from the API server (the object behind a /scale
   * review, see scale-reads.ts; the CRD of a contract that does not own it, owner-crd-reads.ts). The pod's setting wins over the ServiceAccount's, which withholds it from any other.
   */
  readsApiServer?: boolean;
  /** The server serves the CRD gate (`serve --crd-gate`): `manifests --crd-gate` rendered its webhook. */
  crdGate?: boolean;
  /** The container's memory (serverMemoryFor); by default the built-in example's, or the CRD gate's. */
  memory?: ServerMemory;
}

/** The webhook server inside the cluster: the Service the webhook configurations call, and the pods behind it. */
export function renderServerWorkload(
  install: Install,
  image: string,
  contracts: readonly string[] = [],
  options: ServerWorkloadOptions = {},
): Manifest[] {
  return [
    serviceAccount(install),
    service(install),
    deployment(install, image, contracts, options),
    podDisruptionBudget(install),
  ];
}

function serviceAccount(install: Install): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: serverMetadata(install),
    // The server calls the API server only to read the objects behind /scale reviews and the CRDs others own; pods get a token only then
    // (their own setting), so none leaks from a pod that needs none.
    automountServiceAccountToken: false,
  };
}

function service(install: Install): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: serverMetadata(install),
    spec: {
      selector: labels(install),
      ports: [{ name: 'https', port: servicePort, targetPort: 'https', protocol: 'TCP' }],
    },
  };
}

function deployment(
  install: Install,
  image: string,
  contracts: readonly string[],
  options: ServerWorkloadOptions,
): Manifest {
  const names = installNames(install.name);
  const memory = options.memory ?? (options.crdGate ? crdGateServerMemory : exampleServerMemory);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: serverMetadata(install),
    spec: {
      replicas,
      selector: { matchLabels: labels(install) },
      // With failurePolicy Fail, no replica may go before its successor is ready.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      template: {
        metadata: { labels: labels(install) },
        spec: {
          serviceAccountName: names.server,
          automountServiceAccountToken: options.readsApiServer === true,
          terminationGracePeriodSeconds,
          securityContext: restrictedPodSecurityContext(),
          // Spread the replicas, so that losing one node does not take every replica (and every write) with it.
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'kubernetes.io/hostname',
              whenUnsatisfiable: 'ScheduleAnyway',
              labelSelector: { matchLabels: labels(install) },
            },
          ],
          containers: [
            {
              name: serverContainerName,
              image,
              args: [
                'serve',
                '--cert-dir',
                certMountPath,
                ...contractArgs(contracts),
                ...(options.crdGate ? ['--crd-gate'] : []),
              ],
              ports: [{ name: 'https', containerPort: serveDefaults.port, protocol: 'TCP' }],
              readinessProbe: {
                httpGet: { path: '/readyz', port: 'https', scheme: 'HTTPS' },
                periodSeconds: 5,
                failureThreshold: 2,
              },
              livenessProbe: {
                httpGet: { path: '/healthz', port: 'https', scheme: 'HTTPS' },
                periodSeconds: 10,
                failureThreshold: 3,
              },
              // The heap is capped well below the container's limit: bodies, TLS and code live outside it. The
              // limit is the peak measured under the most memory-hungry input within the body limits, plus a
              // fifth (bench/hostile-memory.ts). The young generation may grow to 16 MiB semi-spaces: at V8's
              // default cap for a large node it grew to ~215 MiB RSS under load; at 8 MiB it scavenged twice as
              // often, promoting the requests in flight each time into the old space that mark-compacts pause to
              // mark. Only flags that Node accepts in NODE_OPTIONS belong here (`--min-semi-space-size` is not
              // one: Node exits 9 at start), which test/e2e/workloads-as-kubelet.e2e.test.ts proves by starting
              // the container as the kubelet does.
              env: [{ name: 'NODE_OPTIONS', value: serverNodeOptions(memory.heapMi) }],
              // No CPU limit: throttling would show up as webhook latency on every write of every contract's kind.
              resources: {
                requests: { cpu: '100m', memory: `${memory.requestMi}Mi` },
                limits: { memory: `${memory.limitMi}Mi` },
              },
              securityContext: restrictedContainerSecurityContext(),
              volumeMounts: [{ name: certVolumeName, mountPath: certMountPath, readOnly: true }],
            },
          ],
          volumes: [{ name: certVolumeName, secret: { secretName: names.servingCertSecret, defaultMode: 0o440 } }],
        },
      },
    },
  };
}

/**
 * The server's Deployment with its serving pair read from `dir`, mounted there by someone else (OLM mounts the pair
 * it makes and rotates into every Deployment a CSV names for a webhook): without the Secret volume the Deployment
 * mounts for the kustomize and Helm installs, whose Secret that install path would not create.
 */
export function withServingCertDir(deployment: Manifest, dir: string): Manifest {
  const spec = structuredClone(deployment.spec) as {
    template: { spec: { containers: ServerContainer[]; volumes?: Array<{ name: string }> } };
  };
  const pod = spec.template.spec;
  const container = pod.containers.find((candidate) => candidate.name === serverContainerName);
  const at = container?.args.indexOf('--cert-dir') ?? -1;
  if (container === undefined || at < 0)
    throw new Error(`${deployment.metadata.name}: no crdgate container with --cert-dir`);
  container.args[at + 1] = dir;
  const volumeMounts = (container.volumeMounts ?? []).filter((mount) => mount.name !== certVolumeName);
  const volumes = (pod.volumes ?? []).filter((volume) => volume.name !== certVolumeName);
  if (volumeMounts.length > 0) container.volumeMounts = volumeMounts;
  else delete container.volumeMounts;
  if (volumes.length > 0) pod.volumes = volumes;
  else delete pod.volumes;
  return { ...deployment, spec };
}

interface ServerContainer {
  name: string;
  args: string[];
  volumeMounts?: Array<{ name: string }>;
}

/** The `--contract` arguments of every crdgate the manifests run. */
export function contractArgs(contracts: readonly string[]): string[] {
  return contracts.flatMap((contract) => ['--contract', contract]);
}

function podDisruptionBudget(install: Install): Manifest {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: serverMetadata(install),
    spec: { minAvailable: 1, selector: { matchLabels: labels(install) } },
  };
}

function serverMetadata(install: Install): Manifest['metadata'] {
  return { name: installNames(install.name).server, namespace: install.namespace, labels: labels(install) };
}
