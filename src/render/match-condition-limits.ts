import type { MatchCondition } from './match-conditions.ts';

// What kube-apiserver v1.36 allows a webhook's matchConditions, and a bound on what crdgate's cost it at runtime.
// The API server checks the count and compiles each expression when the configuration is written, but estimates no
// cost: a condition runs out of budget only on a request, and under failurePolicy Fail that refuses the request
// without calling the webhook. So crdgate bounds the cost of its own conditions when it renders them.

export const matchConditionLimits = {
  /** validateMatchConditions: at most 64 per webhook. */
  count: 64,
  /** cel-go's parser limit, which the API server keeps: longer expressions do not compile. */
  expressionCodePoints: 100_000,
  /** celconfig.PerCallLimit: what one expression may cost. */
  perCallCost: 1_000_000,
  /** celconfig.RuntimeCELCostBudgetMatchConditions: what all of a webhook's conditions may cost on one request. */
  webhookCost: 2_500_000,
  /** celconfig.MaxRequestSizeBytes: the largest object the conditions can be handed. */
  requestBytes: 3 * 1024 * 1024,
} as const;

// A CEL token: a string literal, a name or number, or an operator. Each costs at most 1 when it runs (a literal
// nothing, a name, a field or an index, a call of size(), `in` on a map or a logical operator at most 1), except an
// equality, which costs 1 plus a tenth of the smaller side's size (cel-go's runtime cost of _==_ and _!=_).
const token = /"(?:[^"\\]|\\.)*"|[A-Za-z_0-9]+|==|!=|&&|\|\||\.\?|\[\?|[^\s]/g;
const equality = /==|!=/g;

/**
 * An upper bound of what an expression of crdgate's conditions costs at runtime, whatever the objects: every token
 * counted once, those in a comprehension once per pass (`iterations`, the most top-level fields an object can
 * have), every equality once more, and a tenth of the two objects' sizes for what the equalities compare. The
 * parts compared never overlap, so together they see each object at most once.
 */
export function matchConditionCostBound(expression: string, iterations: number): number {
  const loops = comprehensionBodies(expression);
  const inLoops = loops.reduce((sum, body) => sum + weight(body), 0);
  return (
    weight(expression) -
    inLoops +
    inLoops * Math.max(1, iterations) +
    Math.ceil(0.1 * 2 * matchConditionLimits.requestBytes)
  );
}

/** A token costs 1, an equality 1 more. */
function weight(text: string): number {
  return (text.match(token)?.length ?? 0) + (text.match(equality)?.length ?? 0);
}

/** The text inside each `.all(...)`, which runs once per key; crdgate's conditions nest none. */
function comprehensionBodies(expression: string): string[] {
  const bodies: string[] = [];
  for (let start = expression.indexOf('.all('); start !== -1; start = expression.indexOf('.all(', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start + 4; i < expression.length; i++) {
      const c = expression[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) {
        bodies.push(expression.slice(start + 5, i));
        break;
      }
    }
  }
  return bodies;
}

/** What the API server would refuse of a webhook's conditions, or what could exceed its cost limits; one sentence each. */
export function matchConditionProblems(
  webhook: string,
  conditions: readonly MatchCondition[],
  iterations: number,
): string[] {
  const problems: string[] = [];
  if (conditions.length > matchConditionLimits.count) {
    problems.push(
      `webhook ${webhook} has ${conditions.length} match conditions, over the API server's limit of ${matchConditionLimits.count}`,
    );
  }
  let total = 0;
  for (const condition of conditions) {
    const length = [...condition.expression].length;
    if (length > matchConditionLimits.expressionCodePoints) {
      problems.push(
        `webhook ${webhook}: match condition ${condition.name} is ${length} characters long, over the API server's limit of ${matchConditionLimits.expressionCodePoints}`,
      );
      continue;
    }
    const cost = matchConditionCostBound(condition.expression, iterations);
    total += cost;
    if (cost > matchConditionLimits.perCallCost) {
      problems.push(
        `webhook ${webhook}: match condition ${condition.name} may cost ${cost}, over the API server's limit of ${matchConditionLimits.perCallCost} for one expression`,
      );
    }
  }
  if (total > matchConditionLimits.webhookCost) {
    problems.push(
      `webhook ${webhook}: its match conditions may cost ${total} together, over the API server's budget of ${matchConditionLimits.webhookCost} per request`,
    );
  }
  return problems;
}
