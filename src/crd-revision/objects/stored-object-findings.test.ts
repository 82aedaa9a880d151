import { describe, expect, it } from 'vitest';
import { predictStoredObject } from './predict-stored-object.ts';
import { storedObjectRevisionFindings } from './revision-findings.ts';
import { newMailboxCrd, oldMailboxCrd, storedMailbox, storedNullRevisions } from './mailbox.fixture.ts';
import { prepareCrdRevision } from './revision-under-test.ts';
import { storedObjectFindings } from './stored-object-findings.ts';
import { storedObjectRules } from '../stored-object-rules.ts';

const oldCrd = (): any => oldMailboxCrd();
const newCrd = (): any => newMailboxCrd();
const stored = (name: string): any => storedMailbox(name);

function findingsOf(name: string, revision = prepareCrdRevision(oldCrd(), newCrd())) {
  const object = stored(name);
  return storedObjectFindings(revision, object, predictStoredObject(revision, object));
}

/** The parts a test pins: rule, path, version and values. */
const pinned = (findings: ReturnType<typeof findingsOf>) =>
  findings.map(({ rule, path, version, old, new: now }) => ({ rule, path, version, old, new: now }));

describe('storedObjectFindings', () => {
  it('names the value dropped, the default that appears and the create refused', () => {
    expect(pinned(findingsOf('ann'))).toEqual([
      { rule: 'fieldDroppedOnRead', path: 'spec.spamFilter', version: 'v1', old: true, new: undefined },
      { rule: 'defaultAddedOnRead', path: 'spec.retentionDays', version: 'v1', old: undefined, new: 30 },
      // The new maximum of 50 refuses the 80 it holds: spared by every write that leaves it, not by a create.
      { rule: 'valueInvalid', path: 'spec.quota', version: 'v1', old: 80, new: undefined },
      { rule: 'recreateRefused', path: 'spec.quota', version: undefined, old: undefined, new: undefined },
    ]);
    const quota = findingsOf('ann').find((finding) => finding.rule === 'valueInvalid')!;
    expect(quota).toMatchObject({ keyword: 'maximum', unit: 'spec.quota', severity: 'error' });
    expect(quota.message).toContain('writes that change spec.quota are refused');
  });

  it('names every write refused, and the version its clients read it in going away', () => {
    expect(findingsOf('bob').map((finding) => finding.rule)).toEqual([
      'defaultAddedOnRead',
      // tier "legacy" is out of the new enum; owner "Bob" breaks the new lowercase rule, which an enum fault keeps
      // the API server from checking on a create, but which every update meets (nothing ratchets it).
      'valueInvalid',
      'unchangedWriteRefused',
      'labelWriteRefused',
      'specWriteRefused',
      'recreateRefused',
    ]);
    const carol = findingsOf('carol');
    expect(pinned(carol)).toEqual([
      { rule: 'readVersionUnserved', path: undefined, version: 'v1alpha1', old: undefined, new: undefined },
      // Read in v1 (v1alpha1 is no longer served), under both revisions.
      { rule: 'defaultAddedOnRead', path: 'spec.retentionDays', version: 'v1', old: undefined, new: 30 },
    ]);
    expect(
      carol.every(
        (finding) => finding.object?.name === 'carol' && finding.severity === storedObjectRules[finding.rule].severity,
      ),
    ).toBe(true);
  });

  it('names a stored null read as a new default, and one dropped', () => {
    const { old, now, object } = storedNullRevisions();
    const revision = prepareCrdRevision(old, now);
    const findings = storedObjectFindings(revision, object, predictStoredObject(revision, object));
    expect(pinned(findings).filter(({ rule }) => rule !== 'defaultAddedOnRead')).toEqual([
      { rule: 'valueChangedOnRead', path: 'spec.owner', version: 'v1', old: null, new: 'nobody' },
      { rule: 'fieldDroppedOnRead', path: 'spec.tier', version: 'v1', old: null, new: undefined },
    ]);
  });

  it('reports nothing for a revision that changes nothing the object holds', () => {
    const crd = newCrd();
    const revision = prepareCrdRevision(crd, crd);
    const object = {
      apiVersion: 'mail.example.com/v1',
      kind: 'Mailbox',
      metadata: { name: 'gil', namespace: 'mail' },
      spec: { quota: 4, owner: 'gil', tier: 'free' },
    };
    expect(storedObjectFindings(revision, object, predictStoredObject(revision, object))).toEqual([]);
  });

  it('names the object stored in a removed version, with the migration that must run first', () => {
    const now = newCrd();
    now.spec.versions.splice(1, 1);
    now.spec.versions[0] = { ...now.spec.versions[0], served: true, storage: true };
    const findings = findingsOf('ann', prepareCrdRevision(oldCrd(), now));
    expect(pinned(findings)).toEqual([
      { rule: 'storedInRemovedVersion', path: undefined, version: 'v1', old: undefined, new: undefined },
    ]);
    expect(findings[0]!.message).toContain('crdgate migrate --resource mailboxes.mail.example.com');
  });
});

describe('storedObjectRevisionFindings', () => {
  it('says what the prediction rests on that crdgate cannot see', () => {
    const findings = storedObjectRevisionFindings(prepareCrdRevision(oldCrd(), newCrd()));
    expect(pinned(findings as any)).toEqual([
      { rule: 'storedVersionAssumed', path: undefined, version: undefined, old: undefined, new: undefined },
      { rule: 'prunedFieldsMayReturn', path: 'spec.retentionDays', version: 'v1', old: undefined, new: undefined },
    ]);
    expect(findings.every((finding) => finding.unseen === true && finding.severity === 'warning')).toBe(true);
  });

  it('refuses a revision that removes a version status.storedVersions holds, and names a default an object may only show', () => {
    const old = { ...oldCrd(), status: { storedVersions: ['v1alpha1', 'v1'] } };
    old.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.tier.default = 'free';
    const now = newCrd();
    now.spec.versions.splice(0, 1);
    const findings = storedObjectRevisionFindings(prepareCrdRevision(old, now));
    expect(pinned(findings as any)).toEqual([
      { rule: 'storedVersionsRefuseUpdate', path: undefined, version: 'v1alpha1', old: undefined, new: undefined },
      { rule: 'storedVersionAssumed', path: undefined, version: undefined, old: undefined, new: undefined },
      { rule: 'readDefaultMayBeUnstored', path: 'spec.tier', version: 'v1', old: 'free', new: undefined },
      { rule: 'prunedFieldsMayReturn', path: 'spec.retentionDays', version: 'v1', old: undefined, new: undefined },
    ]);
    expect(findings[0]!.severity).toBe('error');
  });

  it('says that reads through a conversion webhook are not predicted, unless a conversion is given', () => {
    const withWebhook = (crd: any) => ({
      ...crd,
      spec: {
        ...crd.spec,
        conversion: {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://convert.example.com/convert' } },
        },
      },
    });
    const revision = prepareCrdRevision(withWebhook(newCrd()), withWebhook(newCrd()), { storedVersions: ['v1'] });
    expect(storedObjectRevisionFindings(revision).map((finding) => finding.rule)).toEqual(['conversionUnseen']);
    expect(storedObjectRevisionFindings(revision, { conversionKnown: true })).toEqual([]);
  });
});
