import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CompiledContract } from '../contract/registry.ts';
import { renderCustomResourceDefinition } from '../render/custom-resource-definition.ts';
import type { WebhookEndpoint } from '../render/webhook-endpoint.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import type { FieldError } from '../contract/values/field-error.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { ENGINE_WASM_PATH, forgetCompiledCrd, judge, loadCrd, type EngineCrd } from './engine.ts';
import type { Contract } from '../contract/contract-definition.ts';
import { inKeyOrderOf } from './key-order.ts';

// Where the rendered CRD sends conversion requests: any well-formed endpoint does, since the engine never calls it
// (it judges an object in the version it is written in), and this one passes kube-apiserver's CRD validation.
const placeholderEndpoint: WebhookEndpoint = {
  target: { service: { namespace: 'crdgate-system', name: 'crdgate', port: 443 } },
};

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
 * Drops the engine's compiled form of the contract's CRD (see forgetCrd): for whoever decides over contracts without
 * end, since the engine's memory only grows. A later decision compiles it again.
 */
export function forgetContractCrd(contract: Contract): void {
  forgetCompiledCrd(renderCustomResourceDefinition(contract, placeholderEndpoint));
}

/**
 * An object of the contract's kind as kube-apiserver reads it back after a conversion: its version's schema prunes
 * what the version does not declare and fills its defaults (the decoder does this to every object it reads), the
 * keys in the object's own order. Nothing is validated: a read never is.
 */
export function asReadByTheApiServer(compiled: CompiledContract, object: KubeObject): KubeObject {
  const read = judge(engineCrdFor(compiled), {
    operation: 'CREATE',
    object,
    decodeOnly: true,
    fieldValidation: 'Ignore',
  });
  return read.allowed && read.object ? inKeyOrderOf(read.object, object) : object;
}

/**
 * What kube-apiserver would answer to creating the contract's CRD, in its words, for a contract whose rendered
 * schemas carry CEL rules (`x-kubernetes-validations`, its own or those in place of crdgate's formats): a rule that does not compile, calls a function the API server's version
 * does not have, or is estimated to cost more than its limits, a fieldPath that names no field. Empty when it would
 * take the CRD, and for a contract with no rules: defineContract's structural check covers everything else without
 * starting the engine.
 *
 * With `acceptedCrds`, a folder, a CRD the engine took once is remembered there by a digest of the engine and the
 * CRD: a command that needs the engine for nothing else (`crdgate manifests`, and `crdgate dev` at every save) then
 * does not start it, which costs about a second of CPU, until the contract or the engine changes.
 */
export function contractCrdRefusal(
  compiled: CompiledContract,
  options: { acceptedCrds?: string } = {},
): readonly FieldError[] {
  // The rendered schemas: crdgate's own formats are rules there (src/render/api-server-schema.ts).
  const versions = (
    renderCustomResourceDefinition(compiled.contract, placeholderEndpoint)['spec'] as {
      versions: { schema: { openAPIV3Schema: JSONSchemaProps } }[];
    }
  ).versions;
  if (!versions.some((version) => carriesRules(version.schema.openAPIV3Schema))) return [];
  const remembered = options.acceptedCrds === undefined ? undefined : acceptedCrdFile(options.acceptedCrds, compiled);
  if (remembered !== undefined && exists(remembered)) return [];
  const refusal = engineCrdFor(compiled).refusal;
  if (refusal.length === 0 && remembered !== undefined) remember(remembered);
  return refusal;
}

/** Undefined when the engine is not there to say what it is (its stamp beside it). */
function acceptedCrdFile(dir: string, compiled: CompiledContract): string | undefined {
  let stamp: string;
  try {
    stamp = readFileSync(join(dirname(ENGINE_WASM_PATH), 'engine.json'), 'utf8');
  } catch {
    return undefined;
  }
  const crd = JSON.stringify(renderCustomResourceDefinition(compiled.contract, placeholderEndpoint));
  return join(dir, createHash('sha256').update(stamp).update('\0').update(crd).digest('hex'));
}

function exists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Best effort: a home that cannot be written to only means the engine starts again next time. */
function remember(file: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '');
  } catch {
    // not remembered
  }
}

function carriesRules(schema: JSONSchemaProps | undefined): boolean {
  if (!schema) return false;
  if ((schema['x-kubernetes-validations']?.length ?? 0) > 0) return true;
  const additional = typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
  // Junctors included: a rule there is one the API server refuses, and only the engine says so in its words.
  const junctors = [
    ...(schema.allOf ?? []),
    ...(schema.anyOf ?? []),
    ...(schema.oneOf ?? []),
    ...(schema.not ? [schema.not] : []),
  ];
  return [...Object.values(schema.properties ?? {}), additional, schema.items, ...junctors].some((child) =>
    carriesRules(child),
  );
}
