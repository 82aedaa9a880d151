import { hubHasStatus, hubSchema, judgedPartsOf, ownerHubSchema, type JudgedParts } from '../admission/judged-parts.ts';
import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import { hubHasScale } from '../contract/scale-subresource.ts';
import type { JSONSchemaProps } from '../contract/schema/json-schema-props.ts';
import { isFieldProtection, type DeletionProtection } from '../contract/deletion-rules.ts';
import {
  call,
  eq,
  ident,
  int,
  literal,
  method,
  ne,
  optionalField,
  optionalIndex,
  optionalMember,
  or,
  str,
  type Cel,
} from '../policy/cel.ts';
import { protectionNotCompiled } from '../policy/compile-policy.ts';
import { matchConditionProblems } from './match-condition-limits.ts';
import { onlyFor, partsChanged, topLevelFieldCount, type MatchCondition } from './match-conditions.ts';
import { webhookPaths, type WebhookPath } from './webhook-endpoint.ts';
import { mutatingWebhookName, scaleWebhookName, statusWebhookName, validatingWebhookName } from './webhook-names.ts';

// Which requests of a contract's kind reach crdgate, derived from what its decisions can say (judged-parts.ts): the
// operations and subresources of each webhook's rules, and matchConditions that skip the requests crdgate would
// answer with a plain allow. Rendering (webhook-configurations.ts) and `crdgate manifests --explain` both read this.

/** What a call of a webhook can end in: a refusal, only warnings, or a patch. */
export type WebhookDecides = 'refusals' | 'warnings' | 'patches';

/** One of crdgate's webhooks for one contract. */
export interface WebhookReach {
  configuration: 'validating' | 'mutating';
  name: string;
  path: WebhookPath;
  rules: ReadonlyArray<{ operations: readonly string[]; resource: string }>;
  matchConditions: readonly MatchCondition[];
  decides: WebhookDecides;
  /** Which requests reach crdgate through it and why, one line per operation, for `crdgate manifests --explain`. */
  explanation: readonly string[];
}

/** The webhooks of one contract, in the order they are rendered: validating ones first, then the mutating one. */
export function contractWebhooks(contract: Contract): WebhookReach[] {
  const parts = judgedPartsOf(contract);
  const { plural } = contract.identity;
  const webhooks: WebhookReach[] = [mainWebhook(contract, parts)];
  if (parts.status !== undefined) {
    const changed = partsChanged(parts.status, hubSchema(contract))!;
    webhooks.push({
      configuration: 'validating',
      name: statusWebhookName(contract),
      path: webhookPaths.validate,
      rules: [{ operations: ['UPDATE'], resource: `${plural}/status` }],
      matchConditions: [{ name: 'status-write-changes-what-crdgate-judges', expression: changed.text }],
      decides: parts.statusRefusable ? 'refusals' : 'warnings',
      explanation: [
        `UPDATE of ${plural}/status: only when one of these changes: ${parts.reasons.status.join('; ')}`,
        ...(parts.statusRefusable
          ? []
          : [
              'crdgate can only warn about a status write, never refuse one: failurePolicy Ignore, so an outage blocks none, and timeoutSeconds 1, so a hung crdgate holds one a second at most',
            ]),
      ],
    });
  }
  if (hubHasScale(contract)) webhooks.push(scaleWebhook(contract));
  if (parts.defaults !== undefined) webhooks.push(mutatingWebhook(contract, parts));
  return webhooks;
}

function mainWebhook(contract: Contract, parts: JudgedParts): WebhookReach {
  const { plural } = contract.identity;
  const rules = contract.deletionRules ?? [];
  const changed = partsChanged(parts.update, schemaForTopLevel(contract));
  // Only when every rule is data the API server can read: a rule of code, or a form the policy does not compile, must
  // see every DELETE.
  const protections = rules.every((rule) => rule.form !== undefined && protectionNotCompiled(rule.form) === undefined)
    ? rules.map((rule) => rule.form!)
    : undefined;
  const matchConditions: MatchCondition[] = [
    ...(changed !== undefined
      ? [{ name: 'update-changes-what-crdgate-judges', expression: onlyFor('UPDATE', changed).text }]
      : []),
    ...(rules.length > 0 && protections !== undefined
      ? [
          {
            name: 'delete-of-a-protected-object',
            expression: onlyFor('DELETE', or(...protections.map(protected_))).text,
          },
        ]
      : []),
  ];
  const explanation = [
    `CREATE of ${plural}: every one: the schema and the invariants judge every new object`,
    changed !== undefined
      ? `UPDATE of ${plural}: only when one of these changes: ${parts.reasons.update.join('; ')}; any other update (a finalizer, ownerReferences, what the contract does not read) is skipped`
      : `UPDATE of ${plural}: every one: the hub schema keeps unknown top-level fields, so no condition can compare them all`,
    rules.length === 0
      ? `DELETE of ${plural}: never: the contract has no deletion rules`
      : protections !== undefined
        ? `DELETE of ${plural}: only of an object ${protections.map(protectionText).join(' or ')}: the deletion rules refuse nothing else`
        : `DELETE of ${plural}: every one: a deletion rule is code, which only crdgate can run`,
    ...(hubHasStatus(contract) && parts.status === undefined
      ? [`UPDATE of ${plural}/status: never: nothing crdgate judges reads the status beyond what the API server checks`]
      : []),
  ];
  return {
    configuration: 'validating',
    name: validatingWebhookName(contract),
    path: webhookPaths.validate,
    rules: [{ operations: ['CREATE', 'UPDATE', ...(rules.length > 0 ? ['DELETE'] : [])], resource: plural }],
    matchConditions,
    decides: 'refusals',
    explanation,
  };
}

function scaleWebhook(contract: Contract): WebhookReach {
  const { plural } = contract.identity;
  // A Scale leaves spec.replicas out when it is 0, so an old Scale of 0 may be an object without the field, which
  // the write would add: only a non-zero count the write keeps is provably no change.
  const replicas = (root: string) =>
    method(optionalMember(optionalMember(ident(root), 'spec'), 'replicas'), 'orValue', int(0));
  const changed = or(ne(replicas('object'), replicas('oldObject')), eq(replicas('oldObject'), int(0)));
  return {
    configuration: 'validating',
    name: scaleWebhookName(contract),
    path: webhookPaths.validate,
    rules: [{ operations: ['UPDATE'], resource: `${plural}/scale` }],
    matchConditions: [{ name: 'scale-changes-replicas', expression: changed.text }],
    decides: 'refusals',
    explanation: [
      `UPDATE of ${plural}/scale: only when it changes the replicas (or sets 0, which may add the field): the same change sent to the object`,
    ],
  };
}

function mutatingWebhook(contract: Contract, parts: JudgedParts): WebhookReach {
  const { plural } = contract.identity;
  const changed = partsChanged(parts.defaults!, schemaForTopLevel(contract));
  return {
    configuration: 'mutating',
    name: mutatingWebhookName(contract),
    path: webhookPaths.mutate,
    rules: [{ operations: ['CREATE', 'UPDATE'], resource: plural }],
    matchConditions:
      changed !== undefined
        ? [{ name: 'update-changes-what-the-defaults-see', expression: onlyFor('UPDATE', changed).text }]
        : [],
    decides: 'patches',
    explanation: [
      `CREATE of ${plural}: every one: the defaults fill what a new object leaves out`,
      changed !== undefined
        ? `UPDATE of ${plural}: only when one of these changes: ${parts.reasons.defaults.join('; ')}`
        : `UPDATE of ${plural}: every one: the hub schema keeps unknown top-level fields, so no condition can compare them all`,
    ],
  };
}

/**
 * The schema that says which top-level fields an object can have: the contract's hub schema, and for a CRD someone
 * else owns also its owner's (the API server prunes by that one); a schema of either that keeps unknown fields wins.
 */
function schemaForTopLevel(contract: Contract): JSONSchemaProps | undefined {
  const own = hubSchema(contract);
  if (ownsCrd(contract)) return own;
  const owner = ownerHubSchema(contract);
  if (owner === undefined || own === undefined) return own;
  return {
    ...own,
    properties: { ...own.properties, ...owner.properties },
    ...(keepsUnknown(owner) ? { 'x-kubernetes-preserve-unknown-fields': true } : {}),
  };
}

function keepsUnknown(schema: JSONSchemaProps): boolean {
  return schema['x-kubernetes-preserve-unknown-fields'] === true;
}

/** What the API server would refuse of the contracts' webhooks' matchConditions, or could exceed its cost limits. */
export function webhookReachProblems(contracts: readonly Contract[]): string[] {
  return contracts.flatMap((contract) => {
    const iterations = topLevelFieldCount(schemaForTopLevel(contract));
    return contractWebhooks(contract).flatMap((webhook) =>
      matchConditionProblems(webhook.name, webhook.matchConditions, iterations),
    );
  });
}

/** The object is protected: it carries the annotation, or its hub field holds, exactly that value. */
function protected_(form: DeletionProtection): Cel {
  const value = isFieldProtection(form)
    ? optionalField(ident('oldObject'), form.field.split('.'))
    : optionalIndex(
        optionalMember(optionalMember(ident('oldObject'), 'metadata'), 'annotations'),
        str(form.annotation),
      );
  return eq(value, call('optional.of', [literal(form.equals)!]));
}

/** A protection as the explanation names it: "that carries key: \"value\"", "whose spec.path is true". */
function protectionText(form: DeletionProtection): string {
  return isFieldProtection(form)
    ? `whose ${form.field} is ${JSON.stringify(form.equals)}`
    : `that carries ${form.annotation}: ${JSON.stringify(form.equals)}`;
}
