// `crdgate/testing`: what a contract's author needs to test a contract. contractTester decides without a server,
// as the running server (or `crdgate check`, `crdgate convert`, `crdgate fsa`) would, from the same code;
// startTestEnvironment puts the contracts in front of a real kube-apiserver and etcd, as envtest does for Go.

import { checkObject, type CheckOperation, type CheckResult } from './check/check-object.ts';
import { handleAdmissionReview, type AdmissionWebhook } from './admission/handler.ts';
import type { AdmissionResponse } from './admission/verdict.ts';
import { type Contract } from './contract/contract-definition.ts';
import { ContractDefinitionError } from './contract/define-contract.ts';
import type { KubeObject } from './contract/values/kube-object.ts';
import {
  createContractRegistry,
  lookupByApiVersion,
  type CompiledContract,
  type ContractRegistry,
} from './contract/registry.ts';
import { contractCrdRefusal } from './api-server-engine/contract-crd.ts';
import { formatFieldError } from './contract/values/field-error.ts';
import { ConversionError } from './conversion/conversion-error.ts';
import { convertObject } from './conversion/convert-object.ts';

export type { CheckOperation, CheckResult, DefaultedField } from './check/check-object.ts';
export type { AdmissionResponse } from './admission/verdict.ts';
export type { AdmissionWebhook } from './admission/handler.ts';
export { renderMachine, machineFormats, type MachineFormat } from './contract/fsa/render/render-machine.ts';
export { checkMachine } from './contract/fsa/check-machine.ts';
export { evaluateTransition, type TransitionDecision } from './contract/fsa/evaluate/evaluate-transition.ts';
export type {
  ChangeRuling,
  JudgedChange,
  JudgedUnclassifiedChanges,
  UnclassifiedRuling,
} from './contract/fsa/evaluate/judge-changes.ts';
export type { UnclassifiedChange } from './contract/fsa/unclassified-changes.ts';
export type { StateReading } from './contract/fsa/phase.ts';
export { conversionContext } from './conversion/convert-object.ts';
export {
  startTestEnvironment,
  ControlPlaneUnavailableError,
  type TestEnvironment,
  type TestEnvironmentOptions,
  type KubectlResult,
} from './local-loop/test-environment.ts';
export { KubeApiError, type ObjectClient, type ObjectReference } from './local-loop/object-client.ts';

export interface CheckOptions {
  /** CREATE without `oldObject`, UPDATE with it; DELETE decides on `object` as the object being deleted. */
  operation?: CheckOperation;
  /**
   * The stored object an UPDATE replaces. It is taken as the API server holds it: pruned and defaulted by the
   * CRD's schema (so a field the schema defaults is no change), in the version of `object`.
   */
  oldObject?: KubeObject;
  /**
   * The FSA's state for an `oldObject` that records none (no phase, or nothing the machine's
   * readState reads), as `crdgate check --state` gives it; otherwise such an object is in the initial state, as
   * the webhook judges a stored object with no status yet. A state the old object records always decides.
   */
  state?: string;
}

/** The answer to an AdmissionReview, as the server sends it. */
export interface ReviewAnswer {
  /** 200 for every well-formed review (allowed or not); 400 for one that is not. */
  httpStatus: number;
  /** The review's `response` (absent when the review was refused with 400). */
  response?: AdmissionResponse;
  /** The whole wire body. */
  body: unknown;
}

export interface ReviewOptions {
  /**
   * For a /scale review: the stored object the server would read from the API server (in the hub version, with the
   * Scale's resourceVersion). Without it, such a review is denied as the server denies it when it cannot read one.
   */
  storedObject?: KubeObject;
}

export interface ContractTester {
  /** What `crdgate check` decides: the defaults, then validation (schema, invariants, rules, the machine). */
  check(object: KubeObject, options?: CheckOptions): CheckResult;
  /** A whole AdmissionReview (`admission.k8s.io/v1`) as POST /validate or POST /mutate answers it. */
  review(webhook: AdmissionWebhook, review: unknown, options?: ReviewOptions): ReviewAnswer;
  /** The object in `apiVersion`, as the conversion webhook converts it; throws a ConversionError when it cannot. */
  convert(object: KubeObject, apiVersion: string): KubeObject;
}

/**
 * Compiles the contracts once, as the server does at start-up, and decides with them. A contract that breaks one of
 * defineContract's rules (a plain object is held to them too) or that kube-apiserver would refuse throws a
 * ContractDefinitionError saying what is wrong. Objects of a kind no contract declares are denied as the server
 * denies them (KIND_UNKNOWN).
 */
export function contractTester(contracts: Contract | readonly Contract[]): ContractTester {
  const registry = createContractRegistry(Array.isArray(contracts) ? contracts : [contracts as Contract]);
  for (const compiled of registry.contracts) refuseRulesTheApiServerRefuses(compiled);
  return {
    check: function check(object, options = {}) {
      const operation = options.operation ?? (options.oldObject ? 'UPDATE' : 'CREATE');
      return checkObject(registry, {
        operation,
        object,
        oldObject: options.oldObject ?? null,
        ...(options.state === undefined ? {} : { assumedState: options.state }),
      });
    },
    review: function review(webhook, body, options = {}) {
      const outcome = handleAdmissionReview(
        webhook,
        registry,
        body,
        options.storedObject ? { stored: { object: options.storedObject } } : {},
      );
      const response = (outcome.body as { response?: AdmissionResponse }).response;
      return { httpStatus: outcome.httpStatus, ...(response ? { response } : {}), body: outcome.body };
    },
    convert: function convert(object, apiVersion) {
      return convertObject(contractFor(registry, object), object, apiVersion);
    },
  };
}

/**
 * A contract whose CEL rules kube-apiserver would refuse (syntax, a function it does not have, cost over its limits)
 * throws here, in the API server's words, as a schema that is not structural does: its CRD could never be applied.
 */
function refuseRulesTheApiServerRefuses(compiled: CompiledContract): void {
  const refusal = contractCrdRefusal(compiled);
  if (refusal.length === 0) return;
  const { plural, group } = compiled.contract.identity;
  throw new ContractDefinitionError(
    `contract ${plural}.${group}: kube-apiserver would refuse its CRD: ${refusal.map(formatFieldError).join('; ')}`,
  );
}

function contractFor(registry: ContractRegistry, object: KubeObject): Contract {
  const compiled = lookupByApiVersion(registry, String(object.apiVersion), String(object.kind));
  if (!compiled) throw new ConversionError('WRONG_KIND', `no contract declares ${object.kind} in ${object.apiVersion}`);
  return compiled.contract;
}
