import type { FieldError } from './field-error.ts';
import type { ContractObject } from './kube-object.ts';

// The functions a contract gives for its objects, typed: the layers below defineContract (defaults/, the FSA's
// evaluation) run them without depending on the whole definition (contract-definition.ts).

/**
 * The spec type of a contract that does not name one, and the view crdgate's own code takes of every contract:
 * `any`, so that a Contract<BucketSpec> is still a Contract (with `unknown`, a rule about BucketSpec objects would
 * not count as a rule about any object).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type UntypedSpec = any;

/** A cross-field rule on one hub object. It must tolerate schema-invalid input: it runs even when the schema failed. */
export type Invariant<Spec = UntypedSpec> = (object: ContractObject<Spec>) => FieldError[];

/** Computed defaults: returns a defaulted copy of the hub object, filling absent fields only. Must not mutate its input. */
export type Defaulter<Spec = UntypedSpec> = (object: ContractObject<Spec>) => ContractObject<Spec>;

/**
 * A contract's defaults: one Defaulter, or a list applied in order. The library's (staticDefault, derivedDefault)
 * are data too, and the policy floor's MutatingAdmissionPolicy sets them even while crdgate is down; a function of
 * one's own is applied by the webhook alone.
 */
export type Defaults<Spec = UntypedSpec> = Defaulter<Spec> | readonly Defaulter<Spec>[];

export interface UpdateInput<Spec = UntypedSpec> {
  oldObject: ContractObject<Spec>;
  object: ContractObject<Spec>;
}

/**
 * What a rule about a change (old -> new) finds: refusals (403), warnings, and audit annotations. The webhook folds
 * them, with the schema's and the invariants' findings, into its one answer to the request.
 */
export interface UpdateFindings {
  forbidden: FieldError[];
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

/** A rule about a spec change; the FSA is one, risky-change warnings are another. */
export type UpdateRule<Spec = UntypedSpec> = (input: UpdateInput<Spec>) => UpdateFindings;
