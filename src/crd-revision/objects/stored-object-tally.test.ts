import { describe, expect, it } from 'vitest';
import { storedObjectFinding } from './stored-object-finding.ts';
import { createStoredObjectTally } from './stored-object-tally.ts';

const ref = (name: string) => ({ apiVersion: 'mail.example.com/v1', kind: 'Mailbox', namespace: 'mail', name });
const dropped = (name: string) =>
  storedObjectFinding('fieldDroppedOnRead', 'spec.spamFilter dropped', {
    object: ref(name),
    path: 'spec.spamFilter',
    old: true,
  });
const defaulted = (name: string) =>
  storedObjectFinding('defaultAddedOnRead', 'spec.retentionDays appears', {
    object: ref(name),
    path: 'spec.retentionDays',
    new: 30,
  });

describe('the stored-object tally', () => {
  it('counts every finding per CRD and rule, and keeps only the first examples', () => {
    const tally = createStoredObjectTally({ examples: 2 });
    for (let i = 0; i < 1000; i++)
      tally.addObject(
        'mailboxes.mail.example.com',
        i % 2 === 0 ? [dropped(`m${i}`), defaulted(`m${i}`)] : [defaulted(`m${i}`)],
      );
    tally.addObject('queues.messaging.example.com', []);
    expect(tally.objects()).toEqual([
      { crd: 'mailboxes.mail.example.com', count: 1000 },
      { crd: 'queues.messaging.example.com', count: 1 },
    ]);
    const entries = tally.entries();
    expect(entries.map(({ crd, rule, severity, count }) => ({ crd, rule, severity, count }))).toEqual([
      { crd: 'mailboxes.mail.example.com', rule: 'fieldDroppedOnRead', severity: 'error', count: 500 },
      { crd: 'mailboxes.mail.example.com', rule: 'defaultAddedOnRead', severity: 'warning', count: 1000 },
    ]);
    expect(entries[0]!.examples.map((example) => example.object?.name)).toEqual(['m0', 'm2']);
    expect(entries[1]!.examples.map((example) => example.object?.name)).toEqual(['m0', 'm1']);
    expect(tally.failed()).toBe(true);
  });

  it('fails only on a finding of error severity, and counts a revision finding as no object', () => {
    const tally = createStoredObjectTally();
    tally.addRevision('mailboxes.mail.example.com', [
      storedObjectFinding('prunedFieldsMayReturn', 'spec.x declared now', { path: 'spec.x' }),
    ]);
    tally.addObject('mailboxes.mail.example.com', [defaulted('a')]);
    expect(tally.objects()).toEqual([{ crd: 'mailboxes.mail.example.com', count: 1 }]);
    expect(tally.entries().map((entry) => [entry.rule, entry.unseen, entry.count])).toEqual([
      ['prunedFieldsMayReturn', true, 1],
      ['defaultAddedOnRead', undefined, 1],
    ]);
    expect(tally.failed()).toBe(false);
  });
});
