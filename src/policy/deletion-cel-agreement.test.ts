import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Contract } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';
import { fieldDeletionRule, metadataDeletionRule } from '../contract/deletion-rules.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { contractWebhooks } from '../render/webhook-reach.ts';
import { compileContractPolicy } from './compile-policy.ts';
import { policyMessagesOnDelete } from './policy-cel.fixture.ts';

// Proof by difference, as classifier-cel-agreement.test.ts: the policy's deletion validations, run in kube-apiserver's
// own CEL environment (the engine), refuse exactly the DELETEs the webhook's deletion rules refuse, with the same
// words. Both forms of protection, a field of each type a protection may read, nested and absent on the way, the
// empty string as the protecting value, and stored values of another type than the schema's (written before it).

function vaultContract(): Contract {
  return defineContract({
    identity: { group: 'toy.example.com', kind: 'Vault', plural: 'vaults', singular: 'vault', scope: 'Namespaced' },
    hub: 'v1',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              properties: {
                deletionProtection: { type: 'boolean' },
                tier: { type: 'string' },
                copies: { type: 'integer' },
                settings: { type: 'object', properties: { lock: { type: 'boolean' } } },
              },
            },
          },
        },
      },
    ],
    conversions: {},
    deletionRules: [
      fieldDeletionRule({ field: 'spec.deletionProtection', equals: true }),
      fieldDeletionRule({ field: 'spec.tier', equals: 'gold' }),
      fieldDeletionRule({ field: 'spec.copies', equals: 0 }),
      fieldDeletionRule({ field: 'spec.settings.lock', equals: false }),
      metadataDeletionRule({ annotation: 'toy.example.com/lock', equals: '' }),
    ],
  });
}

const absent = Symbol('absent');
const field = <T>(...values: T[]) => fc.constantFrom<T | typeof absent>(absent, ...values);
const withoutAbsent = (record: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== absent));

const storedVault: fc.Arbitrary<KubeObject> = fc
  .record({
    name: fc.constantFrom('a', 'vault-2'),
    spec: fc.oneof(
      { weight: 1, arbitrary: fc.constant(absent) },
      {
        weight: 9,
        arbitrary: fc
          .record({
            deletionProtection: field<unknown>(true, false, 'true'),
            tier: field('gold', 'Gold', 'gold ', ''),
            copies: field<unknown>(0, 1, -1, '0'),
            settings: field<unknown>({}, { lock: false }, { lock: true }, { lock: 'false' }),
          })
          .map(withoutAbsent),
      },
    ),
    lock: field('', 'yes', ' '),
  })
  .map(({ name, spec, lock }) => ({
    apiVersion: 'toy.example.com/v1',
    kind: 'Vault',
    metadata: {
      name,
      namespace: 'team-a',
      ...(lock === absent ? {} : { annotations: { 'toy.example.com/lock': lock } }),
    },
    ...(spec === absent ? {} : { spec }),
  }));

describe('deletion protections: the policy and the webhook rules', () => {
  it('refuse the same DELETEs with the same words, in kube-apiserver’s CEL', () => {
    const contract = vaultContract();
    const policy = compileContractPolicy(contract);
    expect(policy.operations).toEqual(['DELETE']);
    expect(policy.coverage.deletionRules.map((entry) => entry.enforcedBy)).toEqual(Array(5).fill('policy'));
    const stored = fc.sample(storedVault, { numRuns: 400, seed: 20261129 });
    const policyAnswers = policyMessagesOnDelete(policy, stored);
    const ruleAnswers = stored.map((object) =>
      (contract.deletionRules ?? []).map((rule) => rule(object)).filter((reason) => reason !== undefined),
    );
    expect(policyAnswers).toEqual(ruleAnswers);
    // Both answers in numbers, and each rule refusing some on its own.
    const refused = ruleAnswers.filter((reasons) => reasons.length > 0).length;
    expect(refused).toBeGreaterThan(40);
    expect(stored.length - refused).toBeGreaterThan(40);
    for (const fieldName of ['deletionProtection', 'tier', 'copies', 'settings.lock', 'toy.example.com/lock'])
      expect(ruleAnswers.flat().filter((reason) => reason.includes(fieldName)).length, fieldName).toBeGreaterThan(5);
  });

  it('leaves a field whose path goes through a name CEL reserves to the webhook, which then sees every DELETE', () => {
    const base = vaultContract();
    const contract = defineContract({
      ...base,
      versions: base.versions.map((version) => ({
        ...version,
        schema: {
          ...version.schema,
          properties: {
            spec: {
              type: 'object',
              properties: { namespace: { type: 'object', properties: { lock: { type: 'boolean' } } } },
            },
          },
        },
      })),
      deletionRules: [fieldDeletionRule({ field: 'spec.namespace.lock', equals: true })],
    });
    const policy = compileContractPolicy(contract);
    expect(policy.coverage.deletionRules).toEqual([
      {
        rule: 'spec.namespace.lock=true',
        enforcedBy: 'webhook',
        reason: 'its path goes through namespace, a name CEL reserves',
      },
    ]);
    expect(policy.operations).toEqual([]);
    const main = contractWebhooks(contract).find((reach) => reach.rules[0]?.operations.includes('DELETE'))!;
    expect(main.matchConditions.map((condition) => condition.name)).not.toContain('delete-of-a-protected-object');
    // The rule itself reads the field all the same.
    const stored = { apiVersion: 'toy.example.com/v1', kind: 'Vault', metadata: { name: 'v', namespace: 'n' } };
    expect(contract.deletionRules![0]!({ ...stored, spec: { namespace: { lock: true } } })).toContain(
      'is deletion-protected',
    );
  });
});
