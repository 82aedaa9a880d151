import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';
import { describeValue } from '../contract/values/describe-value.ts';
import { overrideAuditKey, readOneTimeOverride } from '../contract/fsa/evaluate/override.ts';
import { compareCrdRevisions } from '../crd-revision/compare/compare-crd-revisions.ts';
import type { CrdRevisionFinding } from '../crd-revision/finding.ts';
import type { EvidencePolicy, RuleSettings } from '../crd-revision/rule-config.ts';
import { weighRuleFindings } from '../crd-revision/objects/evidence.ts';
import type { AdmissionRequest } from '../admission/review.ts';
import { allow, deny, type Verdict } from '../admission/verdict.ts';
import type { LiveObjectFinding, LiveObjectsReading } from './live-objects-reading.ts';

/**
 * The annotation that lets one unsafe revision of a CRD through: set (with a reason) in the write that applies the
 * revision, it authorises that write only. A value the CRD carried already authorised the write that set it and
 * nothing since (as a contract's transition override: contract/fsa/evaluate/override.ts).
 */
export const crdRevisionOverrideAnnotation = 'crdgate.dev/override-crd-revision';

/**
 * The gate's own defaults, under the settings given: a description reworded changes nothing the API server does,
 * and a release is not to be refused for its wording (`crdgate check` keeps it as a warning for review).
 */
export const gateRuleDefaults: RuleSettings = { description: 'off' };

/** What the gate weighs besides the review: the rule settings, and what the live objects said (none: not read). */
export interface CrdGateInputs {
  rules?: RuleSettings;
  /** Whether the live objects decide the rule findings where they were all judged (the default), as `check` does. */
  evidence?: EvidencePolicy;
  live?: LiveObjectsReading;
}

// The API server caps a denial's message at a few KiB in its answer, and warnings at 256 characters each: the
// denial names the first rules and live findings with their counts, then how many more.
const rulesNamed = 8;
const examplesPerRule = 2;
const liveFindingsNamed = 6;
const reasonLength = 120;

/** The CRD this review is about and its two revisions, or the verdict on a review the gate does not judge. */
export function crdRevisionPair(
  request: AdmissionRequest,
): { name: string; oldCrd: KubeObject; newCrd: KubeObject } | Verdict {
  if (request.kind.group !== 'apiextensions.k8s.io' || request.kind.kind !== 'CustomResourceDefinition') {
    return deny(
      'KIND_UNKNOWN',
      `the CRD gate judges CustomResourceDefinitions only, got ${request.kind.kind}.${request.kind.group || 'core'}`,
    );
  }
  // A new CRD has no revision to compare with, and a deleted one serves nothing more: only updates are judged.
  if (request.operation !== 'UPDATE') return allow();
  const [oldCrd, newCrd] = [request.oldObject, request.object];
  if (!isPlainObject(oldCrd) || !isPlainObject(newCrd))
    return deny(
      'INTERNAL_ERROR',
      'an UPDATE of a CustomResourceDefinition without object and oldObject: the API server always sends both',
    );
  return { name: request.name ?? String(newCrd.metadata?.name ?? ''), oldCrd, newCrd };
}

/**
 * The gate's decision on an update of a CRD, as `crdgate check` decides with the live objects as its stored
 * objects: its revision rules, weighed against the live objects where every one was judged (a rule finding none of
 * them is affected by is a warning), and what the live objects said. Any finding of error severity refuses it,
 * naming the findings and their counts, unless the write carries the one-time override; warnings ride along. Pure.
 */
export function decideCrdRevision(
  name: string,
  oldCrd: KubeObject,
  newCrd: KubeObject,
  inputs: CrdGateInputs = {},
): Verdict {
  const live = inputs.live;
  // Weighed as `crdgate check` weighs them: a rule finding no live object is affected by is a warning.
  const findings = weighRuleFindings(
    compareCrdRevisions(oldCrd, newCrd, { ...gateRuleDefaults, ...inputs.rules }),
    live?.read === 'judged' ? live.evidence : undefined,
    inputs.evidence ?? 'objects',
  );
  const ruleErrors = findings.filter((finding) => finding.severity === 'error');
  const liveErrors = live?.read === 'judged' ? live.findings.filter((finding) => finding.severity === 'error') : [];
  const notes = [...ruleWarnings(findings), ...liveNotes(live)];
  const override = readOneTimeOverride(crdRevisionOverrideAnnotation, newCrd, oldCrd);
  const unsafe = ruleErrors.length > 0 || liveErrors.length > 0;
  if (!unsafe) {
    const spent = override.given
      ? [
          `${crdRevisionOverrideAnnotation} is given but this revision needs no override: it authorises only the write that sets it, and this one needed none`,
        ]
      : [];
    return allow([...spent, ...notes]);
  }
  const what = describeUnsafe(ruleErrors, liveErrors, live);
  if (!override.given) {
    const how =
      override.why === 'stale'
        ? `${crdRevisionOverrideAnnotation} carries the value an earlier write set, which authorised that write only: set a new reason to apply this one anyway`
        : `to apply it anyway, set the annotation ${crdRevisionOverrideAnnotation} to a reason in the same write (it authorises that write only)`;
    return {
      ...deny('CRD_REVISION_UNSAFE', `CustomResourceDefinition ${name}: this revision is unsafe: ${what}; ${how}`),
      warnings: notes,
    };
  }
  const reason = describeValue(override.reason, reasonLength);
  return allow(
    [`${crdRevisionOverrideAnnotation}: applying an unsafe revision of ${name}; reason: ${reason}`, ...notes],
    {
      [overrideAuditKey(crdRevisionOverrideAnnotation)]:
        `overridden: ${what}; reason: ${describeValue(override.reason, 256)}`,
    },
  );
}

function describeUnsafe(
  ruleErrors: CrdRevisionFinding[],
  liveErrors: LiveObjectFinding[],
  live: LiveObjectsReading | undefined,
): string {
  const parts: string[] = [];
  if (ruleErrors.length > 0)
    parts.push(`${count(ruleErrors.length, 'finding')} of error severity: ${describeRuleFindings(ruleErrors)}`);
  if (liveErrors.length > 0 && live?.read === 'judged') {
    const named = liveErrors
      .slice(0, liveFindingsNamed)
      .map((finding) => `${finding.id} (${describeCount(finding)}): ${finding.summary}`);
    const more = liveErrors.length > liveFindingsNamed ? [`and ${liveErrors.length - liveFindingsNamed} more`] : [];
    parts.push(`of ${count(live.objects, 'live object')}: ${[...named, ...more].join('; ')}`);
  }
  return parts.join('; ');
}

/** The findings grouped by rule: each rule once, with its count and first places. */
function describeRuleFindings(findings: CrdRevisionFinding[]): string {
  const byRule = new Map<string, CrdRevisionFinding[]>();
  for (const finding of findings) byRule.set(finding.rule, [...(byRule.get(finding.rule) ?? []), finding]);
  const rules = [...byRule].map(([rule, found]) => {
    const places = found.slice(0, examplesPerRule).map(place);
    const more = found.length > examplesPerRule ? `, ${found.length - examplesPerRule} more` : '';
    return `${rule} ×${found.length} (${places.join(', ')}${more})`;
  });
  return [
    ...rules.slice(0, rulesNamed),
    ...(rules.length > rulesNamed ? [`and ${rules.length - rulesNamed} more rules`] : []),
  ].join(', ');
}

function place(finding: CrdRevisionFinding): string {
  const where = [finding.version, finding.path].filter((part) => part !== undefined && part !== '').join(' ');
  return where === '' ? finding.message : where;
}

function ruleWarnings(findings: CrdRevisionFinding[]): string[] {
  const unaffected = findings.filter((finding) => finding.noObjectAffected !== undefined);
  const warnings = findings.filter(
    (finding) => finding.severity === 'warning' && finding.noObjectAffected === undefined,
  );
  return [
    ...(unaffected.length === 0
      ? []
      : [
          `${count(unaffected.length, 'finding')} of error severity that none of the ${count(unaffected[0]!.noObjectAffected!, 'live object')} is affected by: ${describeRuleFindings(unaffected)}`,
        ]),
    ...(warnings.length === 0
      ? []
      : [`${count(warnings.length, 'warning')} on this revision: ${describeRuleFindings(warnings)}`]),
  ];
}

function liveNotes(live: LiveObjectsReading | undefined): string[] {
  if (live === undefined) return [];
  if (live.read === 'not-judged')
    return [`decided on the revision's own rules alone: the live objects were not judged (${live.why})`];
  const warnings = live.findings.filter((finding) => finding.severity === 'warning');
  return warnings
    .slice(0, liveFindingsNamed)
    .map((finding) => `${finding.id} (${describeCount(finding)}): ${finding.summary}`);
}

function describeCount(finding: LiveObjectFinding): string {
  if (finding.revisionWide) return 'the revision';
  return `${count(finding.count, 'object')}${finding.example ? `, e.g. ${finding.example}` : ''}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
