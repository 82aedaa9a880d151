import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { writeCertDir } from '../certs/cert-dir.ts';
import { serveDefaults } from '../config.ts';
import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { hubHasScale } from '../contract/scale-subresource.ts';
import { startControlPlane, type ControlPlane } from '../control-plane/control-plane.ts';
import { resolveKubeAssets } from '../control-plane/kube-assets.ts';
import { createKubeApi } from '../kube/kube-api.ts';
import { createStoredObjectReader, storedObjectReadTimeoutMs } from '../kube/stored-object-reader.ts';
import { createLogger } from '../log.ts';
import { renderCustomResourceDefinition, renderOwnerCrd } from '../render/custom-resource-definition.ts';
import type { WebhookEndpoint } from '../render/webhook-endpoint.ts';
import {
  renderMutatingWebhookConfigurations,
  renderValidatingWebhookConfiguration,
} from '../render/webhook-configurations.ts';
import { webhookReachProblems } from '../render/webhook-reach.ts';
import { startServer, type RunningServer } from '../server/serve.ts';
import { createObjectClient, type ObjectClient } from './object-client.ts';
import { admissionCallsFromMetrics, putCrdgateInFront } from './put-in-front.ts';

/** No kube-apiserver, etcd and kubectl could be found or built; the message says why and how to get them. */
export class ControlPlaneUnavailableError extends Error {
  override name = 'ControlPlaneUnavailableError';
}

export interface TestEnvironmentOptions {
  contracts: Contract | readonly Contract[];
  /**
   * Build kube-apiserver, etcd and kubectl with Go when neither $KUBEBUILDER_ASSETS nor crdgate's cache has them
   * (minutes, once). Default true; false reports them unavailable instead.
   */
  build?: boolean;
  /** Progress lines (binaries found or built, control plane ready); silent by default. */
  log?: (line: string) => void;
}

export interface KubectlResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A real etcd and kube-apiserver on 127.0.0.1, with crdgate serving the contracts in front of them. */
export interface TestEnvironment {
  apiServerUrl: string;
  /** An admin kubeconfig (system:masters), namespace `default`: for kubectl, or a Kubernetes client of your own. */
  kubeconfigPath: string;
  kubectlPath: string;
  /** The namespace of the kubeconfig's context, which exists. */
  namespace: string;
  /** Any object by its apiVersion and kind, as the admin; refusals throw KubeApiError (HTTP code and Status). */
  client: ObjectClient;
  /** crdgate's server, on 127.0.0.1, as the API server calls it. */
  crdgateUrl: string;
  /** Runs kubectl with this environment's kubeconfig; never throws for a non-zero exit. */
  kubectl(args: readonly string[], options?: { stdin?: string }): Promise<KubectlResult>;
  /** Stops crdgate, kube-apiserver and etcd, and removes their files. */
  stop(): Promise<void>;
}

/**
 * envtest for crdgate contracts: starts a control plane, serves the contracts with crdgate's real HTTPS server,
 * applies their CRDs and webhook configurations by URL, and resolves once the API server calls crdgate.
 */
export async function startTestEnvironment(options: TestEnvironmentOptions): Promise<TestEnvironment> {
  const log = options.log ?? (() => {});
  const contracts: readonly Contract[] = Array.isArray(options.contracts)
    ? options.contracts
    : [options.contracts as Contract];
  // Before anything starts: a contract that does not compile is the caller's error, not an environment problem.
  const registry = createContractRegistry(contracts);
  const reachProblems = webhookReachProblems(contracts);
  if (reachProblems.length > 0)
    throw new Error(`the webhooks' match conditions would not hold: ${reachProblems.join('; ')}`);
  for (const contract of contracts) {
    if (!ownsCrd(contract) && contract.ownerCrd === undefined) {
      throw new Error(
        `${contract.identity.plural}.${contract.identity.group} does not own its CRD and carries no ownerCrd to apply in its owner's place: ` +
          "make the contract with fromCrd(readCrdFile(FILE), { crdOwner: 'external' })",
      );
    }
  }
  // A first build takes minutes: say so even when the caller asked for no other lines.
  const buildLog = options.log ?? ((line: string) => process.stderr.write(`crdgate/testing: ${line}\n`));
  const assets = await resolveKubeAssets({ build: options.build ?? true, log: buildLog });
  if ('unavailable' in assets) throw new ControlPlaneUnavailableError(assets.unavailable);

  const stops: Array<() => Promise<void>> = [];
  const stop = async (): Promise<void> => {
    for (const step of stops.splice(0).reverse()) await step();
  };
  try {
    const controlPlane: ControlPlane = await startControlPlane({ assetsDir: assets.dir, log });
    stops.push(() => controlPlane.stop());
    const certDir = await mkdtemp(join(tmpdir(), 'crdgate-testing-certs-'));
    stops.push(() => rm(certDir, { recursive: true, force: true }));
    const { files } = await writeCertDir(certDir, { dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], days: 1 });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(controlPlane.kubeconfigPath);
    // /scale reviews are judged on the object they scale, read as the admin (in a cluster: RBAC get on the resource).
    const scales = contracts.some(hubHasScale);
    const server: RunningServer = await startServer({
      port: 0,
      host: '127.0.0.1',
      certDir,
      registry,
      ...(scales
        ? {
            readStoredObject: createStoredObjectReader(
              createKubeApi(kubeConfig, { timeoutMs: storedObjectReadTimeoutMs }),
            ),
          }
        : {}),
      logger: createLogger({ level: 'silent' }),
      limits: { admissionBytes: serveDefaults.admissionBodyBytes, conversionBytes: serveDefaults.conversionBodyBytes },
      drainDelayMs: 0,
    });
    stops.push(() => server.shutdown());

    const crdgateUrl = `https://127.0.0.1:${server.port}`;
    const caPem = await readFile(files.caCert, 'utf8');
    const endpoint: WebhookEndpoint = { target: { url: crdgateUrl }, caBundlePem: caPem };
    await putCrdgateInFront(
      kubeConfig,
      {
        // A CRD someone else owns is applied as its owner has it (ownerCrd), as the operator's chart would.
        crds: contracts.flatMap((contract) =>
          ownsCrd(contract) ? [renderCustomResourceDefinition(contract, endpoint)] : (renderOwnerCrd(contract) ?? []),
        ),
        webhookConfigurations: [
          renderValidatingWebhookConfiguration(contracts, endpoint),
          ...renderMutatingWebhookConfigurations(contracts, endpoint),
        ],
      },
      admissionCallsFromMetrics(crdgateUrl, caPem),
    );
    log(
      `crdgate serves ${contracts.map((c) => `${c.identity.plural}.${c.identity.group}`).join(', ')} at ${crdgateUrl} in front of ${controlPlane.apiServerUrl}`,
    );
    return {
      apiServerUrl: controlPlane.apiServerUrl,
      kubeconfigPath: controlPlane.kubeconfigPath,
      kubectlPath: controlPlane.kubectlPath,
      namespace: 'default',
      client: createObjectClient(controlPlane.kubeconfigPath),
      crdgateUrl,
      kubectl: (args, kubectlOptions = {}) =>
        runKubectl(controlPlane.kubectlPath, controlPlane.kubeconfigPath, args, kubectlOptions.stdin),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function runKubectl(
  kubectl: string,
  kubeconfig: string,
  args: readonly string[],
  stdin: string | undefined,
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      kubectl,
      [`--kubeconfig=${kubeconfig}`, ...args],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        resolve({ exitCode: error ? (typeof code === 'number' ? code : 1) : 0, stdout, stderr });
      },
    );
    child.stdin?.end(stdin ?? '');
  });
}
