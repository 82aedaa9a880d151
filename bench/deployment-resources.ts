import type { Contract } from '../src/contract/contract-definition.ts';
import { serverMemoryFor } from '../src/render/server-memory.ts';
import { renderServerWorkload } from '../src/render/server-workload.ts';

// What the rendered Deployment gives crdgate's container, read from the renderer itself, so the bench measures
// crdgate as it runs in a pod and checks it against the figures a cluster will hold it to.

interface Container {
  env?: Array<{ name: string; value: string }>;
  resources: { requests: { memory: string }; limits: { memory: string } };
}

function serverContainer(contracts?: readonly Contract[]): Container {
  type Deployment = { spec: { template: { spec: { containers: Container[] } } } };
  const memory = contracts === undefined ? {} : { memory: serverMemoryFor(contracts) };
  const deployment = renderServerWorkload({ name: 'crdgate', namespace: 'crdgate-system' }, 'crdgate', [], memory).find(
    (manifest) => manifest.kind === 'Deployment',
  ) as unknown as Deployment;
  const container = deployment.spec.template.spec.containers[0];
  if (!container) throw new Error('the rendered Deployment has no container');
  return container;
}

/**
 * NODE_OPTIONS as the rendered Deployment sets them (the heap caps the memory figures were sized with): for the
 * built-in example, or as `crdgate manifests` renders them for these contracts (their heap cap raised for them).
 */
export function deploymentNodeOptions(contracts?: readonly Contract[]): string {
  return serverContainer(contracts).env?.find((variable) => variable.name === 'NODE_OPTIONS')?.value ?? '';
}

/** The container's memory request, in MiB: what the scheduler reserves, and what RSS under load should stay within. */
export function deploymentMemoryRequestMiB(): number {
  return quantityMiB(serverContainer().resources.requests.memory);
}

/** The container's memory limit, in MiB: past it the pod is killed. */
export function deploymentMemoryLimitMiB(): number {
  return quantityMiB(serverContainer().resources.limits.memory);
}

function quantityMiB(quantity: string): number {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`the Deployment's memory figure ${quantity} is not in Mi or Gi`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
}
