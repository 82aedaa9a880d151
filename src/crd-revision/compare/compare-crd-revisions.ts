import { compareIdentity } from './compare-identity.ts';
import { compareServedVersions } from './compare-served-versions.ts';
import { compareVersions } from './compare-versions.ts';
import { viewCrd } from '../crd-view.ts';
import type { CrdRevisionFinding } from '../finding.ts';
import type { RuleSettings } from '../rule-config.ts';
import { crdRevisionRules } from '../rules.ts';

/**
 * Every change from one revision of a CustomResourceDefinition (apiextensions.k8s.io/v1, as parsed) to the next,
 * each with its rule's severity: the default, or what `settings` sets it to (a rule set to off reports nothing).
 * Pure, and total: whatever the two values hold, it answers (a part missing or malformed reads as absent).
 */
export function compareCrdRevisions(old: unknown, now: unknown, settings: RuleSettings = {}): CrdRevisionFinding[] {
  const [a, b] = [viewCrd(old), viewCrd(now)];
  const findings: CrdRevisionFinding[] = [];
  for (const change of [...compareIdentity(a, b), ...compareVersions(a, b), ...compareServedVersions(a, b)]) {
    const severity = settings[change.rule] ?? crdRevisionRules[change.rule].severity;
    if (severity !== 'off') findings.push({ ...change, severity });
  }
  return findings;
}
