import { describe, expect, it } from 'vitest';
import { defineContract } from './define-contract.ts';
import { fieldDeletionRule, type FieldProtection } from './deletion-rules.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';

const schema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        deletionProtection: { type: 'boolean' },
        tier: { type: 'string' },
        ratio: { type: 'number' },
        backup: { type: 'object', properties: { keep: { type: 'boolean' } } },
      },
    },
  },
};

const database = (spec?: Record<string, unknown>, namespace: string | null = 'team-a') => ({
  apiVersion: 'db.example.com/v2',
  kind: 'Database',
  metadata: { name: 'orders', ...(namespace === null ? {} : { namespace }) },
  ...(spec === undefined ? {} : { spec }),
});

function contractWith(protection: FieldProtection) {
  return defineContract({
    identity: {
      group: 'db.example.com',
      kind: 'Database',
      plural: 'databases',
      singular: 'database',
      scope: 'Namespaced',
    },
    hub: 'v2',
    versions: [{ name: 'v2', served: true, storage: true, schema }],
    conversions: {},
    deletionRules: [fieldDeletionRule(protection)],
  });
}

describe('fieldDeletionRule', () => {
  it('refuses while the field holds exactly the value, with the kubectl patch that lifts it in the hub’s version', () => {
    const rule = fieldDeletionRule({ field: 'spec.deletionProtection', equals: true });
    expect(rule(database({ deletionProtection: true }))).toBe(
      `Database team-a/orders is deletion-protected: spec.deletionProtection is true; to delete it, first lift the protection: ` +
        `kubectl patch database.v2.db.example.com orders -n team-a --type merge -p '{"spec":{"deletionProtection":false}}'`,
    );
    const absentOrOther = [
      database(),
      database({}),
      database({ deletionProtection: false }),
      database({ deletionProtection: 'true' }),
    ];
    expect(absentOrOther.map(rule)).toEqual([undefined, undefined, undefined, undefined]);
    // Not metadata alone: a stored object without a hub form is refused, not decided on its metadata.
    expect(rule.readsMetadataOnly).toBeUndefined();
  });

  it('names a nested field and a cluster-scoped object, and says to edit a string field', () => {
    const nested = fieldDeletionRule({ field: 'spec.backup.keep', equals: false });
    expect(nested(database({ backup: { keep: false } }, null))).toBe(
      `Database orders is deletion-protected: spec.backup.keep is false; to delete it, first lift the protection: ` +
        `kubectl patch database.v2.db.example.com orders --type merge -p '{"spec":{"backup":{"keep":true}}}'`,
    );
    const tier = fieldDeletionRule({ field: 'spec.tier', equals: 'gold' });
    expect(tier(database({ tier: 'gold' }))).toBe(
      'Database team-a/orders is deletion-protected: spec.tier is "gold"; to delete it, first change spec.tier: kubectl edit database.v2.db.example.com orders -n team-a',
    );
    expect(tier(database({ tier: 'Gold' }))).toBeUndefined();
  });

  it('is checked against the hub’s schema when the contract is defined', () => {
    const problem = (protection: FieldProtection) => {
      try {
        contractWith(protection);
        return undefined;
      } catch (error) {
        return (error as Error).message.replace(/^contract databases.db.example.com is invalid: /, '');
      }
    };
    expect(problem({ field: 'spec.deletionProtection', equals: true })).toBeUndefined();
    expect(problem({ field: 'spec.tier', equals: 'gold' })).toBeUndefined();
    expect(problem({ field: 'spec.deletionProtecton', equals: true })).toBe(
      "deletionRules[0].form: spec.deletionProtecton is not a field of the hub's schema",
    );
    expect(problem({ field: 'spec.tier', equals: true })).toBe(
      "deletionRules[0].form: spec.tier is of type string in the hub's schema, but equals is true, which needs a field of type boolean",
    );
    expect(problem({ field: 'spec.ratio', equals: 1 })).toBe(
      "deletionRules[0].form: spec.ratio is of type number in the hub's schema, but equals is 1, which needs a field of type integer",
    );
    expect(problem({ field: 'metadata.name', equals: 'x' })).toBe(
      'deletionRules[0].form: "metadata.name" must be a dotted path of field names under spec, such as spec.deletionProtection',
    );
    expect(problem({ field: 'spec.backup[0]', equals: true })).toContain(
      'must be a dotted path of field names under spec',
    );
    expect(problem({ field: 'spec.deletionProtection', equals: 1.5 })).toBe(
      'deletionRules[0].form.equals must be a string, a boolean or an integer, got 1.5',
    );
  });
});
