import { isQualifiedName, qualifiedNameRule } from '../contract/values/dns-names.ts';
import { isPlainObject } from '../contract/values/kube-object.ts';

// The settings of crdgate's webhooks a platform team chooses (`crdgate manifests` and `crdgate dev` flags): what a
// webhook does when crdgate cannot answer, how long the API server waits, and which namespaces and objects it skips.

/** metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

export interface WebhookSettings {
  /**
   * What the API server does when crdgate cannot answer, for the webhooks that can refuse or patch: Fail (the
   * default) refuses the write, Ignore lets it through unjudged. A webhook that can only warn is always Ignore.
   */
  failurePolicy?: 'Fail' | 'Ignore';
  /** How long the API server waits for crdgate, 1 to 30 seconds. */
  timeoutSeconds?: number;
  /** Only objects in namespaces whose labels this selects reach crdgate. */
  namespaceSelector?: LabelSelector;
  /** Only objects whose labels this selects (the old object's or the new one's) reach crdgate. */
  objectSelector?: LabelSelector;
}

export const webhookDefaults = {
  failurePolicy: 'Fail',
  // The API server allows 1 to 30 s. crdgate decides in milliseconds; 10 s leaves room for a slow network or a pod
  // starting, and still answers a user long before their client gives up.
  timeoutSeconds: 10,
} as const;

export const timeoutSecondsRange = { min: 1, max: 30 } as const;

/**
 * How long a webhook that can only warn (a status write's state move) makes a write wait for a crdgate that hangs:
 * the shortest time the API server allows. Such a webhook is called for the operator's own status writes, and a
 * warning is not worth seconds of each of them; crdgate answers in milliseconds when it is well.
 */
export const warningsTimeoutSeconds = 1;

/** What the API server does when crdgate does not answer a webhook, and how long it waits, by what the webhook decides. */
export function failureHandling(
  decides: 'refusals' | 'warnings' | 'patches',
  settings: WebhookSettings,
): { failurePolicy: 'Fail' | 'Ignore'; timeoutSeconds: number } {
  const timeoutSeconds = settings.timeoutSeconds ?? webhookDefaults.timeoutSeconds;
  // One that can only warn must not block a write for a warning.
  if (decides === 'warnings')
    return { failurePolicy: 'Ignore', timeoutSeconds: Math.min(timeoutSeconds, warningsTimeoutSeconds) };
  return { failurePolicy: settings.failurePolicy ?? webhookDefaults.failurePolicy, timeoutSeconds };
}

/** A setting that cannot be used: the message names the value and what it must be. */
export class WebhookSettingError extends Error {
  override name = 'WebhookSettingError';
}

export function parseFailurePolicy(text: string): 'Fail' | 'Ignore' {
  if (text === 'Fail' || text === 'Ignore') return text;
  throw new WebhookSettingError(`must be Fail or Ignore, got "${text}"`);
}

export function parseTimeoutSeconds(text: string): number {
  const seconds = /^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN;
  if (!Number.isSafeInteger(seconds) || seconds < timeoutSecondsRange.min || seconds > timeoutSecondsRange.max) {
    throw new WebhookSettingError(
      `must be a whole number of seconds from ${timeoutSecondsRange.min} to ${timeoutSecondsRange.max} (the API server's range), got "${text}"`,
    );
  }
  return seconds;
}

/**
 * A label selector in kubectl's syntax (`team=maps,env in (prod,staging),!legacy`), or as a LabelSelector in JSON
 * (`{"matchExpressions":[...]}`), held to what the API server accepts of a webhook's selectors.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const trimmed = text.trim();
  if (trimmed === '') throw new WebhookSettingError('is empty: give a selector such as team=maps or env notin (dev)');
  const selector = trimmed.startsWith('{') ? jsonSelector(trimmed) : kubectlSelector(trimmed);
  const problems = labelSelectorProblems(selector);
  if (problems.length > 0) throw new WebhookSettingError(problems.join('; '));
  return selector;
}

function jsonSelector(text: string): LabelSelector {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new WebhookSettingError(`is not JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(value)) throw new WebhookSettingError('must be a LabelSelector object');
  const unknown = Object.keys(value).filter((key) => key !== 'matchLabels' && key !== 'matchExpressions');
  if (unknown.length > 0)
    throw new WebhookSettingError(
      `has unknown fields ${unknown.join(', ')}: a LabelSelector has matchLabels and matchExpressions`,
    );
  const { matchLabels, matchExpressions } = value;
  if (
    matchLabels !== undefined &&
    (!isPlainObject(matchLabels) || Object.values(matchLabels).some((v) => typeof v !== 'string'))
  ) {
    throw new WebhookSettingError('matchLabels must be an object of label keys to string values');
  }
  if (
    matchExpressions !== undefined &&
    (!Array.isArray(matchExpressions) || !matchExpressions.every(isRequirementShape))
  ) {
    throw new WebhookSettingError(
      'matchExpressions must be a list of { key, operator, values? }, operator In, NotIn, Exists or DoesNotExist',
    );
  }
  return {
    ...(matchLabels !== undefined ? { matchLabels: matchLabels as Record<string, string> } : {}),
    ...(matchExpressions !== undefined ? { matchExpressions: matchExpressions as LabelSelectorRequirement[] } : {}),
  };
}

function isRequirementShape(value: unknown): value is LabelSelectorRequirement {
  if (!isPlainObject(value) || typeof value['key'] !== 'string') return false;
  if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(value['operator'] as string)) return false;
  const values = value['values'];
  return (
    Object.keys(value).every((key) => ['key', 'operator', 'values'].includes(key)) &&
    (values === undefined || (Array.isArray(values) && values.every((v) => typeof v === 'string')))
  );
}

// kubectl's selector syntax (k8s.io/apimachinery/pkg/labels): requirements separated by commas, each `key`,
// `!key`, `key=value` (or ==), `key!=value`, `key in (a,b)` or `key notin (a,b)`.
const requirementSyntax =
  /^(?:(!)\s*([^\s=!(),]+)|([^\s=!(),]+)\s*(?:(==|=|!=)\s*([^\s=!(),]*)|\s+(in|notin)\s*\(([^()]*)\))?)$/;

function kubectlSelector(text: string): LabelSelector {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: LabelSelectorRequirement[] = [];
  for (const requirement of splitRequirements(text)) {
    const match = requirementSyntax.exec(requirement.trim());
    if (match === null)
      throw new WebhookSettingError(
        `cannot read "${requirement.trim()}": write key, !key, key=value, key!=value, key in (a,b) or key notin (a,b)`,
      );
    const [, not, absentKey, key, operator, value, setOperator, set] = match;
    if (not !== undefined) matchExpressions.push({ key: absentKey!, operator: 'DoesNotExist' });
    else if (operator === '=' || operator === '==') matchLabels[key!] = value!;
    else if (operator === '!=') matchExpressions.push({ key: key!, operator: 'NotIn', values: [value!] });
    else if (setOperator !== undefined) {
      const values = set!
        .split(',')
        .map((each) => each.trim())
        .filter((each) => each !== '');
      matchExpressions.push({ key: key!, operator: setOperator === 'in' ? 'In' : 'NotIn', values });
    } else matchExpressions.push({ key: key!, operator: 'Exists' });
  }
  return {
    ...(Object.keys(matchLabels).length > 0 ? { matchLabels } : {}),
    ...(matchExpressions.length > 0 ? { matchExpressions } : {}),
  };
}

/** Commas outside parentheses separate requirements. */
function splitRequirements(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')') depth--;
    else if (text[i] === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

// A label value (apimachinery's IsValidLabelValue): empty, or at most 63 letters, digits, '-', '_' and '.',
// starting and ending with a letter or digit.
const labelValuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const labelValueRule =
  "a label value: empty, or at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit";

/** What the API server's ValidateLabelSelector would refuse, one sentence each. */
function labelSelectorProblems(selector: LabelSelector): string[] {
  const problems: string[] = [];
  const key = (k: string) => (isQualifiedName(k) ? [] : [`key "${k}" must be ${qualifiedNameRule}`]);
  const value = (k: string, v: string) =>
    v.length <= 63 && labelValuePattern.test(v) ? [] : [`the value "${v}" of ${k} must be ${labelValueRule}`];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) problems.push(...key(k), ...value(k, v));
  for (const requirement of selector.matchExpressions ?? []) {
    problems.push(...key(requirement.key));
    const values = requirement.values ?? [];
    if ((requirement.operator === 'In' || requirement.operator === 'NotIn') && values.length === 0) {
      problems.push(`${requirement.key} ${requirement.operator === 'In' ? 'in' : 'notin'} needs at least one value`);
    }
    if ((requirement.operator === 'Exists' || requirement.operator === 'DoesNotExist') && values.length > 0) {
      problems.push(`${requirement.key} with operator ${requirement.operator} takes no values`);
    }
    for (const each of values) problems.push(...value(requirement.key, each));
  }
  return problems;
}
