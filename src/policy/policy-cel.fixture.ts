import { evaluateCel } from '../api-server-engine/engine.ts';
import { celValue, dyn, withoutNulls } from './cel-json.fixture.ts';
import type { ContractPolicy } from './compile-policy.ts';

// A compiled policy's validations as one CEL expression, decided for many updates at once in kube-apiserver's own
// CEL environment (the engine's evaluateCel), as classifier-cel-agreement.test.ts explains: `object` and `oldObject`
// dyn, bound to JSON values. A policy variable cannot be bound from outside (it may hold an optional, which a
// binding cannot carry); each is bound inside instead, in the policy's order, by `[value].map(name, rest)[0]`, so
// that it is evaluated once, as the API server evaluates it at most once, and later ones read earlier ones.

const bound = (text: string) => text.replace(/\bvariables\.([A-Za-z_][A-Za-z0-9_]*)/g, 'variables_$1');

/** `body`, which reads the policy's variables, with each of them bound in the policy's order. */
function withVariables(policy: ContractPolicy, body: string): string {
  return policy.variables.reduceRight(
    (rest, { name, expression }) => `[${bound(expression)}].map(variables_${name}, ${rest})[0]`,
    bound(body),
  );
}

/** Every validation of the policy, its variables bound, as one CEL bool: whether the update passes them all. */
export function policyPassesExpression(policy: ContractPolicy): string {
  return withVariables(
    policy,
    `[${policy.validations.map((validation) => validation.expression).join(', ')}].all(passes, passes)`,
  );
}

/**
 * An UPDATE as the policy is given it: the old and new objects, and the version the request names (the hub when
 * left out).
 */
export interface PolicyUpdate {
  old: unknown;
  new: unknown;
  requestVersion?: string;
}

/** Whether the policy lets each UPDATE from `old` to `new` through; the nulls the API server drops are dropped. */
export function policyAllows(policy: ContractPolicy, updates: readonly PolicyUpdate[]): boolean[] {
  return (evaluateUpdates(policyPassesExpression(policy), updates) as { boolValue?: boolean }[]).map(
    (value) => value.boolValue === true,
  );
}

/** What the policy answers each UPDATE with: the messages of the validations it fails, in order; none when it passes. */
export function policyMessages(policy: ContractPolicy, updates: readonly PolicyUpdate[]): string[][] {
  const messages = withVariables(
    policy,
    `[${policy.validations.map((validation) => validation.messageExpression).join(', ')}].filter(m, m != "")`,
  );
  return (evaluateUpdates(messages, updates) as { listValue: { values?: { stringValue: string }[] } }[]).map((value) =>
    (value.listValue.values ?? []).map((message) => message.stringValue),
  );
}

/**
 * What the policy answers a DELETE of each stored object with (the API server gives a DELETE no `object`): the
 * messages of the validations it fails, in order; none when it passes.
 */
export function policyMessagesOnDelete(policy: ContractPolicy, stored: readonly unknown[]): string[][] {
  const messages = withVariables(
    policy,
    `[${policy.validations.map((validation) => validation.messageExpression).join(', ')}].filter(m, m != "")`,
  );
  const answers = evaluateUpdates(
    messages,
    stored.map((old) => ({ old, new: null })),
    'DELETE',
  ) as { listValue: { values?: { stringValue: string }[] } }[];
  return answers.map((value) => (value.listValue.values ?? []).map((message) => message.stringValue));
}

/** `expression` evaluated for each UPDATE (or DELETE), as cel.expr.Values. */
function evaluateUpdates(expression: string, updates: readonly PolicyUpdate[], operation = 'UPDATE'): unknown[] {
  const expr = `cases.map(c, [c[0]].map(oldObject, [c[1]].map(object, [{"operation": dyn("${operation}"), "requestKind": dyn({"version": c[2]})}].map(request, ${expression})[0])[0])[0])`;
  const answer = evaluateCel({
    expr,
    typeEnv: [dyn('cases')],
    bindings: {
      cases: celValue(
        updates.map((update) => [withoutNulls(update.old), withoutNulls(update.new), update.requestVersion ?? '']),
      ),
    },
  });
  if (answer.compileError !== undefined || answer.evalError !== undefined)
    throw new Error(answer.compileError ?? answer.evalError);
  return (answer.value as { listValue: { values: unknown[] } }).listValue.values;
}
