import { describe, expect, it } from 'vitest';
import { predictStoredObject, labelWriteLabel } from './predict-stored-object.ts';
import { newMailboxCrd, oldMailboxCrd, storedMailbox, storedNullRevisions } from './mailbox.fixture.ts';
import { prepareCrdRevision } from './revision-under-test.ts';

// The Mailbox CRD of test/fixtures/check/stored-objects, whose new revision unserves v1alpha1, lowers quota's
// maximum to 50, narrows tier's enum, removes spamFilter, adds retentionDays with a default, makes forwardTo a
// set, and adds a rule at the root that owner be lower case. Each expectation is kube-apiserver v1.36's behaviour,
// from its sources (apiextensions-apiserver's customresource_handler.go, registry/customresource/strategy.go,
// apiserver/pkg/cel/common/equality.go), not from this code.

const oldCrd = (): any => oldMailboxCrd();
const newCrd = (): any => newMailboxCrd();
const stored = (name: string): any => storedMailbox(name);
const mailboxes = () => prepareCrdRevision(oldCrd(), newCrd());
/** What every outcome's metadata keeps of the fixture's: the server-set fields (uid, resourceVersion...) are left out. */
const meta = (name: string) => ({ name, namespace: 'mail' });

describe('predictStoredObject', () => {
  it('reads the object pruned and defaulted by the new schema, and 404 in the version no longer served', () => {
    const outcome = predictStoredObject(mailboxes(), stored('ann'));
    expect(outcome.object).toEqual({
      apiVersion: 'mail.example.com/v1',
      kind: 'Mailbox',
      namespace: 'mail',
      name: 'ann',
    });
    expect(outcome.reads).toEqual({
      v1alpha1: { refused: { code: 404, causes: [] } },
      v1: {
        object: {
          apiVersion: 'mail.example.com/v1',
          kind: 'Mailbox',
          metadata: meta('ann'),
          spec: { quota: 80, owner: 'ann', tier: 'pro', retentionDays: 30 },
          status: { phase: 'Ready' },
        },
      },
    });
  });

  it('lets writes through where ratcheting spares a value the new schema refuses, and refuses a create of it', () => {
    const outcome = predictStoredObject(mailboxes(), stored('ann'));
    const asRead = {
      apiVersion: 'mail.example.com/v1',
      kind: 'Mailbox',
      spec: { quota: 80, owner: 'ann', tier: 'pro', retentionDays: 30 },
      status: { phase: 'Ready' },
    };
    expect(outcome.unchangedWrite).toEqual({ allowed: true, stored: { ...asRead, metadata: meta('ann') } });
    expect(outcome.labelWrite).toEqual({
      allowed: true,
      stored: { ...asRead, metadata: { ...meta('ann'), labels: { [labelWriteLabel.key]: labelWriteLabel.value } } },
    });
    // quota 80 is over the new maximum of 50: a create is validated in full.
    expect(outcome.recreate).toEqual({
      allowed: false,
      refused: { code: 422, causes: [{ field: 'spec.quota', type: 'FieldValueInvalid' }] },
    });
  });

  it('refuses even an unchanged write for a rule at the root, which ratcheting never spares', () => {
    // CorrelatedObject.Key finds no schema for metadata, apiVersion and kind, so the root never compares equal.
    const outcome = predictStoredObject(mailboxes(), stored('bob'));
    const refusedOwner = {
      allowed: false,
      refused: { code: 422, causes: [{ field: 'spec.owner', type: 'FieldValueInvalid' }] },
    };
    expect(outcome.unchangedWrite).toEqual(refusedOwner);
    expect(outcome.labelWrite).toEqual(refusedOwner);
    // On a create, the enum refuses tier, and the rules are then not evaluated (one path-less error says so).
    expect(outcome.recreate).toEqual({
      allowed: false,
      refused: {
        code: 422,
        causes: [
          { field: 'spec.tier', type: 'FieldValueNotSupported' },
          { field: '', type: 'FieldValueInvalid' },
        ],
      },
    });
  });

  it('checks a list that became a set on update only when the stored object had no duplicates', () => {
    const outcome = predictStoredObject(mailboxes(), stored('dan'));
    expect(outcome.unchangedWrite.allowed).toBe(true);
    expect(outcome.labelWrite.allowed).toBe(true);
    expect(outcome.recreate).toEqual({
      allowed: false,
      refused: { code: 422, causes: [{ field: 'spec.forwardTo[1]', type: 'FieldValueDuplicate' }] },
    });
  });

  it('takes an object read in another version to be stored in the old storage version', () => {
    const outcome = predictStoredObject(mailboxes(), stored('carol'));
    expect(outcome.object.apiVersion).toBe('mail.example.com/v1alpha1');
    expect(outcome.reads.v1alpha1).toEqual({ refused: { code: 404, causes: [] } });
    expect(outcome.reads.v1).toEqual({
      object: {
        apiVersion: 'mail.example.com/v1',
        kind: 'Mailbox',
        metadata: meta('carol'),
        spec: { quota: 5, owner: 'carol', retentionDays: 30 },
      },
    });
    expect(outcome.recreate).toEqual({
      allowed: true,
      stored: {
        apiVersion: 'mail.example.com/v1',
        kind: 'Mailbox',
        metadata: meta('carol'),
        spec: { quota: 5, owner: 'carol', retentionDays: 30 },
      },
    });
  });

  it('re-creates from name, namespace, labels and annotations, without status', () => {
    const object = {
      ...stored('ann'),
      metadata: {
        ...stored('ann').metadata,
        labels: { team: 'a' },
        annotations: { note: 'x' },
        finalizers: ['mail.example.com/keep'],
      },
    };
    const now = newCrd();
    now.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.quota.maximum = 100;
    const outcome = predictStoredObject(prepareCrdRevision(oldCrd(), now), object);
    expect(outcome.recreate).toEqual({
      allowed: true,
      stored: {
        apiVersion: 'mail.example.com/v1',
        kind: 'Mailbox',
        metadata: { ...meta('ann'), labels: { team: 'a' }, annotations: { note: 'x' } },
        spec: { quota: 80, owner: 'ann', tier: 'pro', retentionDays: 30 },
      },
    });
    // An update keeps finalizers and the stored status (status subresource).
    expect(outcome.unchangedWrite.allowed && outcome.unchangedWrite.stored.metadata?.finalizers).toEqual([
      'mail.example.com/keep',
    ]);
    expect(outcome.unchangedWrite.allowed && outcome.unchangedWrite.stored.status).toEqual({ phase: 'Ready' });
  });

  it('defaults a read in the stored version only: a default of the version read in is not applied', () => {
    const now = newCrd();
    now.spec.versions[0].served = true;
    now.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.owner.default = 'nobody';
    const object = { apiVersion: 'mail.example.com/v1', kind: 'Mailbox', metadata: meta('erin'), spec: { quota: 2 } };
    const outcome = predictStoredObject(prepareCrdRevision(oldCrd(), now), object);
    // Stored in v1, defaulted in v1 (retentionDays), converted to v1alpha1 and pruned there (retentionDays is not
    // in its schema), and v1alpha1's default for owner is not applied.
    expect(outcome.reads.v1alpha1).toEqual({
      object: { apiVersion: 'mail.example.com/v1alpha1', kind: 'Mailbox', metadata: meta('erin'), spec: { quota: 2 } },
    });
    expect(outcome.reads.v1).toEqual({
      object: {
        apiVersion: 'mail.example.com/v1',
        kind: 'Mailbox',
        metadata: meta('erin'),
        spec: { quota: 2, retentionDays: 30 },
      },
    });
  });

  it('keeps a null the API server keeps for a default in the version read in, after a conversion', () => {
    const old = oldCrd();
    old.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.owner.nullable = true;
    const now = newCrd();
    now.spec.versions[0].served = true;
    now.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.owner.nullable = true;
    now.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.owner.default = 'nobody';
    const object = {
      apiVersion: 'mail.example.com/v1',
      kind: 'Mailbox',
      metadata: meta('finn'),
      spec: { quota: 2, owner: null },
    };
    const outcome = predictStoredObject(prepareCrdRevision(old, now), object);
    // Pruning after the conversion spares a non-nullable null that has a default (PruneNonNullableNullsWithoutDefaults),
    // and nothing defaults it there.
    expect(outcome.reads.v1alpha1).toEqual({
      object: {
        apiVersion: 'mail.example.com/v1alpha1',
        kind: 'Mailbox',
        metadata: meta('finn'),
        spec: { quota: 2, owner: null },
      },
    });
  });

  it('reads and writes an object stored in the old storage version in the new one', () => {
    const old = oldCrd();
    const now = newCrd();
    const v2 = structuredClone(now.spec.versions[1]);
    v2.name = 'v2';
    delete v2.schema.openAPIV3Schema.properties.spec.properties.owner;
    // (The rule at the root reads spec.owner: without the field it would not compile.)
    delete v2.schema.openAPIV3Schema['x-kubernetes-validations'];
    v2.schema.openAPIV3Schema.properties.spec.properties.size = { type: 'string', default: 'M' };
    now.spec.versions[1].storage = false;
    now.spec.versions.push(v2);
    const object = {
      apiVersion: 'mail.example.com/v1',
      kind: 'Mailbox',
      metadata: meta('ivy'),
      spec: { quota: 9, owner: 'ivy' },
    };
    const outcome = predictStoredObject(prepareCrdRevision(old, now), object);
    // Stored in v1: defaulted there (retentionDays), relabelled, pruned in v2 (owner), not defaulted in v2 (size).
    const inV2 = {
      apiVersion: 'mail.example.com/v2',
      kind: 'Mailbox',
      metadata: meta('ivy'),
      spec: { quota: 9, retentionDays: 30 },
    };
    expect(outcome.reads.v2).toEqual({ object: inV2 });
    // Written in v2, the new storage version: decoded there, so its defaults are stored.
    expect(outcome.unchangedWrite).toEqual({ allowed: true, stored: { ...inV2, spec: { ...inV2.spec, size: 'M' } } });
  });

  it('replaces a stored null the new schema no longer allows with its new default, and drops one without', () => {
    const { old, now, object } = storedNullRevisions();
    const outcome = predictStoredObject(prepareCrdRevision(old, now), object);
    expect(outcome.reads.v1).toEqual({
      object: {
        apiVersion: 'mail.example.com/v1',
        kind: 'Mailbox',
        metadata: meta('jo'),
        spec: { quota: 1, owner: 'nobody', retentionDays: 30 },
      },
    });
  });

  it('answers as the old revision when the API server refuses the CRD update for a stored version it removes', () => {
    const old = { ...oldCrd(), status: { storedVersions: ['v1alpha1', 'v1'] } };
    const now = newCrd();
    now.spec.versions.splice(0, 1);
    const revision = prepareCrdRevision(old, now);
    expect(revision.updateRefusal).toEqual({
      code: 422,
      causes: [{ field: 'status.storedVersions[0]', type: 'FieldValueInvalid' }],
    });
    const outcome = predictStoredObject(revision, stored('ann'));
    // v1alpha1 is still served, and its schema declares neither tier, spamFilter nor status.
    expect(outcome.reads.v1alpha1).toEqual({
      object: {
        apiVersion: 'mail.example.com/v1alpha1',
        kind: 'Mailbox',
        metadata: meta('ann'),
        spec: { quota: 80, owner: 'ann' },
      },
    });
    expect(outcome.recreate.allowed).toBe(true);
  });

  it('answers as the old revision when the API server refuses the new revision as a CRD', () => {
    const now = newCrd();
    // The rule at the root reads spec.owner, which this revision removes: the rule does not compile.
    delete now.spec.versions[1].schema.openAPIV3Schema.properties.spec.properties.owner;
    const revision = prepareCrdRevision(oldCrd(), now);
    expect(revision.updateRefusal?.code).toBe(422);
    // The API server names the rule (its fieldPath, .spec.owner, names no field any more).
    expect(revision.updateRefusal?.causes.map((cause) => cause.field)).toEqual([
      expect.stringMatching(/^spec\.versions\[1\]\.schema\.openAPIV3Schema\.x-kubernetes-validations\[0\]/),
    ]);
    const outcome = predictStoredObject(revision, stored('bob'));
    // Under the old revision bob's tier and owner are fine, and v1alpha1 still served.
    expect(outcome.recreate.allowed).toBe(true);
    expect('object' in outcome.reads.v1alpha1!).toBe(true);
  });

  it('answers as the old revision when the revision changes what an established CRD holds immutable', () => {
    // kube-apiserver's CRD update validation: scope and kind once established, group and plural always.
    const now = newCrd();
    now.spec.scope = 'Cluster';
    now.spec.names.kind = 'Inbox';
    const revision = prepareCrdRevision(oldCrd(), now);
    expect(revision.updateRefusal).toEqual({
      code: 422,
      causes: [
        { field: 'spec.scope', type: 'FieldValueInvalid' },
        { field: 'spec.names.kind', type: 'FieldValueInvalid' },
      ],
    });
    const outcome = predictStoredObject(revision, stored('ann'));
    expect(outcome.object.namespace).toBe('mail');
    expect(outcome.recreate.allowed).toBe(true);
  });

  it('lets the storage version be removed only when nothing is stored in it by its own account', () => {
    const now = newCrd();
    now.spec.versions.splice(1, 1);
    now.spec.versions[0] = { ...now.spec.versions[0], served: true, storage: true };
    // status.storedVersions unknown: the old storage version holds the objects all the same.
    expect(prepareCrdRevision(oldCrd(), now).updateRefusal).toEqual({
      code: 422,
      causes: [{ field: 'status.storedVersions[0]', type: 'FieldValueInvalid' }],
    });
  });
});
