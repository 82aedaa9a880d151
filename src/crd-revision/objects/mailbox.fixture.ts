import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { KubeObject } from '../../contract/values/kube-object.ts';

// The Mailbox CRD of test/fixtures/check/stored-objects (its README says what the new revision changes), read
// fresh for each test to change freely.

const fixtures = new URL('../../../test/fixtures/check/stored-objects/', import.meta.url);
const readYaml = (name: string): unknown => parse(readFileSync(new URL(name, fixtures), 'utf8'));

export const oldMailboxCrd = (): unknown => readYaml('old/mailboxes.yaml');
export const newMailboxCrd = (): unknown => readYaml('new/mailboxes.yaml');
/** One of stored.yaml's Mailboxes, as `kubectl get -o yaml` answered it under the old revision. */
export const storedMailbox = (name: string): KubeObject =>
  (readYaml('stored.yaml') as { items: KubeObject[] }).items.find((item) => item.metadata?.name === name)!;

/** The schemas of v1's spec fields, as the fixture has them. */
type V1Fields = Record<string, Record<string, unknown>>;
const v1Fields = (crd: unknown): V1Fields =>
  (
    crd as {
      spec: { versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: V1Fields } } } } }> };
    }
  ).spec.versions[1]!.schema.openAPIV3Schema.properties.spec.properties;

/**
 * Revisions where a stored null meets a new schema: owner and tier nullable in the old one; in the new one, owner
 * not nullable with a default (the null reads as it) and tier not nullable without one (the null is dropped).
 */
export function storedNullRevisions(): { old: unknown; now: unknown; object: KubeObject } {
  const old = oldMailboxCrd();
  v1Fields(old).owner!.nullable = true;
  v1Fields(old).tier!.nullable = true;
  const now = newMailboxCrd();
  v1Fields(now).owner!.default = 'nobody';
  const object = {
    apiVersion: 'mail.example.com/v1',
    kind: 'Mailbox',
    metadata: { name: 'jo', namespace: 'mail' },
    spec: { quota: 1, owner: null, tier: null },
  };
  return { old, now, object };
}
