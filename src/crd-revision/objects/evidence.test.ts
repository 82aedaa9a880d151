import { describe, expect, it } from 'vitest';
import { weighRuleFindings, type ObjectEvidence } from './evidence.ts';
import type { CrdRevisionFinding } from '../finding.ts';

const finding = (rule: CrdRevisionFinding['rule'], path?: string, extra: Partial<CrdRevisionFinding> = {}) =>
  ({
    rule,
    severity: 'error',
    version: 'v1',
    ...(path === undefined ? {} : { path }),
    message: `${rule} at ${path}`,
    ...extra,
  }) as CrdRevisionFinding;

const evidence = (affected: ObjectEvidence['affected'], more: Partial<ObjectEvidence> = {}): ObjectEvidence => ({
  objects: 12,
  complete: true,
  affected,
  unplaced: false,
  ...more,
});

describe('weighRuleFindings', () => {
  const enumNarrowed = finding('enum', 'spec.tier');
  const listMap = finding('listMapKeys', 'spec.ports');
  const ruleAdded = finding('validationRuleAdded', '', { new: { rule: 'self.spec.a > 0', fieldPath: '.spec.a' } });

  it('makes a finding no known object is affected by a warning that says how many objects it spared', () => {
    const weighed = weighRuleFindings(
      [enumNarrowed, listMap, ruleAdded],
      evidence([{ version: 'v1', path: 'spec.ports[*].port' }]),
    );
    expect(weighed.map(({ rule, severity, noObjectAffected }) => [rule, severity, noObjectAffected])).toEqual([
      ['enum', 'warning', 12],
      // An effect below the field the rule is about is the rule's.
      ['listMapKeys', 'error', undefined],
      // A CEL rule at the root is about the field its fieldPath names.
      ['validationRuleAdded', 'warning', 12],
    ]);
    expect(weighRuleFindings([ruleAdded], evidence([{ path: 'spec.a' }]))[0]!.severity).toBe('error');
  });

  it('matches an effect to a finding of the same version, or where either names none', () => {
    expect(weighRuleFindings([enumNarrowed], evidence([{ version: 'v2', path: 'spec.tier' }]))[0]!.severity).toBe(
      'warning',
    );
    expect(weighRuleFindings([enumNarrowed], evidence([{ path: 'spec.tier' }]))[0]!.severity).toBe('error');
    expect(weighRuleFindings([finding('type', '')], evidence([{ path: 'spec.x' }]))[0]!.severity).toBe('error');
  });

  it('leaves alone what breaks the CRD update or clients whatever the objects hold', () => {
    const standing = [
      finding('scope'),
      finding('storedVersionRemoval'),
      finding('versionRemoval'),
      finding('versionUnserved'),
      finding('pluralChanged'),
      finding('selectableFieldRemoved'),
      finding('statusSubresourceRemoved'),
    ];
    expect(weighRuleFindings(standing, evidence([]))).toEqual(standing);
  });

  it('leaves everything as the rules set it without all the objects, with an effect it cannot place, or under evidence: rules', () => {
    expect(weighRuleFindings([enumNarrowed], undefined)).toEqual([enumNarrowed]);
    expect(weighRuleFindings([enumNarrowed], evidence([], { complete: false }))).toEqual([enumNarrowed]);
    expect(weighRuleFindings([enumNarrowed], evidence([], { unplaced: true }))).toEqual([enumNarrowed]);
    expect(weighRuleFindings([enumNarrowed], evidence([]), 'rules')).toEqual([enumNarrowed]);
    // None at all, but all of them: a listing of the cluster that found no object.
    expect(weighRuleFindings([enumNarrowed], evidence([], { objects: 0 }))[0]).toMatchObject({
      severity: 'warning',
      noObjectAffected: 0,
    });
  });
});
