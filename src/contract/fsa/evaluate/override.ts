import { annotation, type KubeObject } from '../../values/kube-object.ts';
import { describeValue } from '../../values/describe-value.ts';
import type { JudgedChange, JudgedUnclassifiedChanges } from './judge-changes.ts';
import type { Fsa } from '../machine.ts';
import type { StateReading } from '../phase.ts';
import { changingValues, describeChange, stateLabel } from './transition-messages.ts';

/**
 * The override as this write gives it. An override authorises the one write that sets it: it counts when the write
 * adds the annotation or changes its value. A value the stored object carried already (`stale`) authorised the write
 * that set it and nothing since, so an annotation left on the object cannot wave later changes through. A blank
 * reason is no override either: the point is to record why.
 */
export type OverrideRequest = { given: true; reason: string } | { given: false; why: 'absent' | 'blank' | 'stale' };

export function readOverride<S extends string, C extends string>(
  machine: Fsa<S, C>,
  newObject: KubeObject,
  oldObject: KubeObject | undefined,
): OverrideRequest {
  return readOneTimeOverride(machine.overrideAnnotation, newObject, oldObject);
}

/** The one-time override under annotation `key`, read as readOverride reads a machine's (the CRD gate's too). */
export function readOneTimeOverride(
  key: string,
  newObject: KubeObject,
  oldObject: KubeObject | undefined,
): OverrideRequest {
  const value = annotation(newObject, key);
  if (value === undefined) return { given: false, why: 'absent' };
  const reason = value.trim();
  if (reason === '') return { given: false, why: 'blank' };
  if (oldObject !== undefined && annotation(oldObject, key) === value) return { given: false, why: 'stale' };
  return { given: true, reason };
}

/**
 * The audit annotation key: the API server prefixes a webhook's audit annotation keys with the webhook's name and
 * drops keys that then hold two slashes, so only the annotation's name part (`override-transitions`) is used.
 */
export function overrideAuditKey(overrideAnnotation: string): string {
  return overrideAnnotation.slice(overrideAnnotation.lastIndexOf('/') + 1);
}

export interface OverrideReport {
  warnings: string[];
  auditAnnotations: Record<string, string>;
}

// A warning travels in an HTTP header and the API server may cut those past 256 characters, so the warning names
// the kinds of change (distinct, a few) and a shortened reason; the audit annotation has room for the details.
const maxWarningLength = 240;
const kindsNamedInWarning = 2;
const reasonLengthInWarning = 40;
const changesNamedInAudit = 20;
const reasonLengthInAudit = 256;

/**
 * What an update that the override let through must leave behind: a warning for the person, an audit annotation
 * for whoever asks later. A denied update overrode nothing, so it leaves neither; its denials speak for it.
 * An override given in a write that did not need it is pointed out: the person meant something by it, and it
 * was spent on nothing. A stale one left on the object says nothing: it lets nothing through.
 */
export function reportOverride<S extends string, C extends string>(
  machine: Fsa<S, C>,
  state: StateReading<S>,
  override: OverrideRequest,
  judged: readonly JudgedChange<S, C>[],
  allowed: boolean,
  unclassified: JudgedUnclassifiedChanges = { ruling: { outcome: 'allowed' }, changes: [], more: 0 },
): OverrideReport {
  const key = machine.overrideAnnotation;
  const unclassifiedCount = unclassified.changes.length + unclassified.more;
  if (!override.given) {
    const wouldHaveHelped =
      judged.some(({ ruling }) => overridable.has(ruling.outcome)) ||
      (unclassified.ruling.outcome === 'not-allowed' && unclassifiedCount > 0);
    return {
      warnings:
        override.why === 'blank' && wouldHaveHelped ? [`${key} is set but empty: an override needs a reason`] : [],
      auditAnnotations: {},
    };
  }
  if (!allowed) return { warnings: [], auditAnnotations: {} };
  const overridden = judged.filter(({ ruling }) => ruling.outcome === 'overridden').map(({ change }) => change);
  const unclassifiedOverridden = unclassified.ruling.outcome === 'overridden' ? unclassifiedCount : 0;
  if (overridden.length === 0 && unclassifiedOverridden === 0) {
    const warnings =
      judged.length > 0
        ? [
            `${key} is given but this update needs no override: it authorises only the write that sets it, and this one needed none`,
          ]
        : [];
    return { warnings, auditAnnotations: {} };
  }
  const where = `while the ${machine.subject} is ${stateLabel(state)}`;
  const kinds = listWithRest(
    [
      ...new Set(
        overridden.map((change) =>
          change.undecidable === undefined ? change.kind : `an undecidable change of ${change.field}`,
        ),
      ),
      ...(unclassifiedOverridden > 0 ? ['changes no change kind names'] : []),
    ],
    kindsNamedInWarning,
  );
  const audited = listWithRest(
    [
      ...overridden.map((change) => `${change.kind} at ${change.field} (${describeChange(machine, change)})`),
      ...(unclassifiedOverridden > 0
        ? unclassified.changes.map(
            (change) => `a change no change kind names at ${change.field} (${changingValues(change)})`,
          )
        : []),
      ...(unclassifiedOverridden > 0 && unclassified.more > 0
        ? [`${unclassified.more} more changes no change kind names`]
        : []),
    ],
    changesNamedInAudit,
  );
  const warning = `${key}: overriding ${kinds} ${where}; reason: ${describeValue(override.reason, reasonLengthInWarning)}`;
  return {
    warnings: [shortened(warning, maxWarningLength)],
    auditAnnotations: {
      [overrideAuditKey(key)]:
        `overridden ${where}: ${audited}; reason: ${describeValue(override.reason, reasonLengthInAudit)}`,
    },
  };
}

/** The rulings an override would have lifted. */
const overridable: ReadonlySet<string> = new Set(['not-allowed', 'override-only', 'undecidable']);

function listWithRest(names: readonly string[], limit: number): string {
  const shown = names.slice(0, limit).join(', ');
  return names.length > limit ? `${shown} and ${names.length - limit} more` : shown;
}

/** Its parts are escaped already; this only bounds the whole, whose key and subject come from the machine. */
function shortened(text: string, maxLength: number): string {
  return text.length <= maxLength ? text : `${text.slice(0, maxLength - 3).toWellFormed()}...`;
}
