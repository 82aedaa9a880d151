import type { CompiledContract } from '../contract/registry.ts';
import { renderCustomResourceDefinition } from '../render/custom-resource-definition.ts';
import type { WebhookEndpoint } from '../render/webhook-endpoint.ts';
import type { KubeObject } from '../contract/kube-object.ts';
import { judge, loadCrd, type EngineCrd } from './engine.ts';
import { inKeyOrderOf } from './key-order.ts';

// Where the rendered CRD sends conversion requests: any well-formed endpoint does, since the engine never calls it
// (it judges an object in the version it is written in), and this one passes kube-apiserver's CRD validation.
const placeholderEndpoint: WebhookEndpoint = { target: { service: { namespace: 'crdgate-system', name: 'crdgate', port: 443 } } };

const crds = new WeakMap<CompiledContract, EngineCrd>();

/** The engine's compiled form of the CRD `crdgate manifests` renders for a contract, once per compiled contract. */
export function engineCrdFor(compiled: CompiledContract): EngineCrd {
  let crd = crds.get(compiled);
  if (!crd) {
    crd = loadCrd(renderCustomResourceDefinition(compiled.contract, placeholderEndpoint));
    crds.set(compiled, crd);
  }
  return crd;
}

/**
 * An object of the contract's kind as kube-apiserver reads it back after a conversion: its version's schema prunes
 * what the version does not declare and fills its defaults (the decoder does this to every object it reads), the
 * keys in the object's own order. Nothing is validated: a read never is.
 */
export function asReadByTheApiServer(compiled: CompiledContract, object: KubeObject): KubeObject {
  const read = judge(engineCrdFor(compiled), { operation: 'CREATE', object, decodeOnly: true, fieldValidation: 'Ignore' });
  return read.allowed && read.object ? inKeyOrderOf(read.object, object) : object;
}
