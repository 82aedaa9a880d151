import { serveDefaults } from '../config.ts';
import { certMountPath, componentLabels, installNames, servicePort, type Install } from './in-cluster-names.ts';
import type { Manifest } from './manifest.ts';
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
export const serverNodeOptions = `${imageNodeOptions} --max-old-space-size=192`;
// The memory request is the peak RSS under sustained admission load and after 1 MB conversion reviews, with these
// heap flags, plus a fifth (npm run bench); the container's comment says what the limit is.
const serverResources = { requests: { cpu: '100m', memory: '180Mi' }, limits: { memory: '592Mi' } };
// With --crd-gate the server also runs the API server engine: crdgate's image runs it natively, a process of its own
// in the same container (its memory counts against the same limit), started from a worker thread of the server's.
// Measured by test/e2e/crd-gate-image.e2e.test.ts (the image's `serve --crd-gate` with this Deployment's env,
// crdgate's process and the engine's together) on 2026-11-29: 191-194 MiB resident once ready (the engine 27 MiB of
// it), then after judging 300 stored objects 212 MiB at the peak and resident, and after 1,500 (about what its 6 s
// read bound judged on the 2-core test machine; 5,000 did not fit in it) 233-234 MiB at the peak and resident (the
// engine 31 MiB), the same after a second review of it, against 97-104 MiB idle without the gate: up to 140 MiB more. Request and limit are the server's own plus
// that, the limit's share with a fifth on top, as the server's own limit has. The WebAssembly engine, which crdgate
// falls back to where the native one cannot start (or runs under CRDGATE_ENGINE=wasm), took the same test to 406-420
// MiB at the peak and 331-375 resident: within the limit, past the request.
const crdGateServerResources = { requests: { cpu: '100m', memory: '320Mi' }, limits: { memory: '760Mi' } };
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
              env: [{ name: 'NODE_OPTIONS', value: serverNodeOptions }],
              // No CPU limit: throttling would show up as webhook latency on every write of every contract's kind.
              resources: options.crdGate ? crdGateServerResources : serverResources,
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
