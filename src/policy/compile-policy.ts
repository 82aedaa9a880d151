import { apiVersionOf, ownsCrd, type Contract } from '../contract/contract-definition.ts';
import {
  isFieldProtection,
  protectedMessageParts,
  protectionName,
  type DeletionProtection,
} from '../contract/deletion-rules.ts';
import { hubHasScale } from '../contract/scale-subresource.ts';
import {
  concat,
  ident,
  isPlainFieldName,
  literal,
  member,
  method,
  ne,
  optionalField,
  optionalIndex,
  optionalMember,
  or,
  str,
  type Cel,
} from './cel.ts';
import { compileContractDefaults, type DefaultCoverage } from './compile-defaults.ts';
import { compileHiddenFields, hiddenValuesByWebhook } from './compile-hidden-fields.ts';
import { compileMachine, type KindCoverage, type UnclassifiedCoverage } from './compile-machine.ts';
import type { StateCoverage } from './compile-state-reading.ts';
import { policyValidation, type PolicyValidation, type PolicyVariable } from './policy-parts.ts';

/** What the API server enforces for a contract without crdgate, and what only crdgate's webhook does. */
export interface ContractPolicy {
  /** The operations the policy judges; empty when nothing compiles, and then no policy is rendered. */
  operations: ('UPDATE' | 'DELETE')[];
  variables: PolicyVariable[];
  validations: PolicyValidation[];
  coverage: PolicyCoverage;
}

export interface PolicyCoverage {
  /** How the policy reads the state an update starts from; absent without a machine. */
  state?: StateCoverage;
  /** Per change kind of the machine; empty without a machine. */
  changeKinds: KindCoverage[];
  /** Changes no change kind names; not judged without a machine. */
  unclassified: UnclassifiedCoverage;
  /** Per deletion rule, in the contract's order. */
  deletionRules: RuleCoverage[];
  /** Per defaulter, in the contract's order: set by the MutatingAdmissionPolicy too, or by the webhook alone. */
  defaults: DefaultCoverage[];
  /**
   * Per field an older version cannot show, and that version: a write in it that would change the field, refused
   * by the policy too, or by the webhook alone.
   */
  hiddenFields: RuleCoverage[];
  /** Rules the policy never holds: invariants and update rules are code, and the schema beyond the CRD's is crdgate's. */
  webhookOnly: string[];
  /** Subresources through which the spec changes, which the policy does not judge: /scale when the hub has one. */
  subresources: SubresourceCoverage[];
}

export interface SubresourceCoverage {
  subresource: 'scale';
  enforcedBy: 'webhook';
  reason: string;
}

/** Why the policy does not judge /scale, and what holds instead. */
export const scaleNotByPolicy =
  "a Scale carries neither the object's phase nor its annotations, and a policy reads only the request, so it cannot tell " +
  'which state a replicas change is made in; the webhook reads the object. Its /scale webhook keeps failurePolicy Fail ' +
  'under the policy floor, so while crdgate is down kubectl scale is refused, not let through unjudged';

export type RuleCoverage =
  { rule: string; enforcedBy: 'policy' } | { rule: string; enforcedBy: 'webhook'; reason: string };

export function compileContractPolicy(contract: Contract): ContractPolicy {
  const hubSchema = contract.versions.find((version) => version.name === contract.hub)!.schema;
  const machine = contract.transitions === undefined ? undefined : compileMachine(contract.transitions, hubSchema);
  const deletion = (contract.deletionRules ?? []).map((rule, index) => ({
    rule,
    name: rule.form ? protectionName(rule.form) : rule.name || `deletion rule ${index + 1}`,
    notCompiled: rule.form ? protectionNotCompiled(rule.form) : 'the rule is a function of its own',
  }));
  const protections = deletion.flatMap(({ rule, notCompiled }) =>
    rule.form && notCompiled === undefined ? [rule.form] : [],
  );
  const hidden = compileHiddenFields(contract);
  const validations = [
    ...(machine?.validations ?? []),
    ...hidden.validations,
    ...protections.map((protection) => deletionValidation(contract, protection)),
  ];
  const operations: ContractPolicy['operations'] = [];
  if (machine?.validations.length || hidden.validations.length) operations.push('UPDATE');
  if (protections.length > 0) operations.push('DELETE');
  return {
    operations,
    variables: machine?.variables ?? [],
    validations,
    coverage: {
      ...(machine === undefined ? {} : { state: machine.state }),
      changeKinds: machine?.kinds ?? [],
      unclassified: machine?.unclassified ?? { judged: false, compiled: false, webhookOnly: [] },
      deletionRules: deletion.map(({ name, notCompiled }) =>
        notCompiled === undefined
          ? { rule: name, enforcedBy: 'policy' }
          : { rule: name, enforcedBy: 'webhook', reason: notCompiled },
      ),
      defaults: compileContractDefaults(contract).coverage,
      hiddenFields: hidden.coverage,
      webhookOnly: [
        ...(Object.keys(contract.conversions).length > 0 && contract.hiddenFieldChanges !== 'warn'
          ? [`in a write in an older version, ${hiddenValuesByWebhook}`]
          : []),
        ...(contract.invariants?.length ? ['invariants'] : []),
        ...(contract.updateRules?.length ? ['update rules'] : []),
        ownsCrd(contract) ? ownCrdSchemaChecks : 'the schema checks crdgate adds to the CRD (formats, ratcheting)',
      ],
      subresources: hubHasScale(contract)
        ? [{ subresource: 'scale', enforcedBy: 'webhook', reason: scaleNotByPolicy }]
        : [],
    },
  };
}

/**
 * What crdgate's schema checks that the CRD it renders does not: its own formats are rules there
 * (src/render/api-server-schema.ts), but the API server's quantity library takes a few spellings crdgate refuses.
 */
const ownCrdSchemaChecks =
  'the quantities only crdgate refuses (without digits, of more than 128 characters, or an exponent past 1000)';

/** Why a protection does not compile, or undefined: a field's path through a name CEL reserves is not escaped. */
export function protectionNotCompiled(protection: DeletionProtection): string | undefined {
  if (!isFieldProtection(protection)) return undefined;
  const reserved = protection.field.split('.').find((segment) => !isPlainFieldName(segment));
  return reserved === undefined ? undefined : `its path goes through ${reserved}, a name CEL reserves`;
}

/**
 * The protected value as the policy reads it, an absent one read as another value of its type (`orValue`), so the
 * comparison type-checks against the schema's type and an absent field never reads as protecting; and the
 * protecting value.
 */
function protectionSides(protection: DeletionProtection, oldObject: Cel): [Cel, Cel] {
  const { equals } = protection;
  const other =
    typeof equals === 'boolean'
      ? !equals
      : typeof equals === 'number'
        ? equals === 0
          ? 1
          : 0
        : equals === ''
          ? '-'
          : '';
  const value = isFieldProtection(protection)
    ? optionalField(oldObject, protection.field.split('.'))
    : optionalIndex(optionalMember(member(oldObject, 'metadata'), 'annotations'), str(protection.annotation));
  return [method(value, 'orValue', literal(other)!), literal(equals)!];
}

/** As the deletion rule's form: refused while the stored object is protected, with the webhook's message. */
function deletionValidation(contract: Contract, protection: DeletionProtection): PolicyValidation {
  const namespaced = contract.identity.scope === 'Namespaced';
  const oldObject = ident('oldObject');
  const metadata = member(oldObject, 'metadata');
  const [name, namespace] = [member(metadata, 'name'), member(metadata, 'namespace')];
  const ref = namespaced ? [namespace, str('/'), name] : [name];
  const namespaceFlag = namespaced ? [str(' -n '), namespace] : [];
  const { kind } = contract.identity;
  const parts = protectedMessageParts(kind, apiVersionOf(contract, contract.hub), protection);
  return policyValidation(
    or(ne(member(ident('request'), 'operation'), str('DELETE')), ne(...protectionSides(protection, oldObject))),
    concat(str(`${kind} `), ...ref, str(` ${parts.before}`), name, ...namespaceFlag, str(parts.after)),
    `${kind} is deletion-protected; ${
      isFieldProtection(protection)
        ? `change ${protection.field} first`
        : `remove the annotation ${protection.annotation} first`
    }`,
  );
}
