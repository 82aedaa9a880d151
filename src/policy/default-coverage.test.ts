import { describe, expect, it } from 'vitest';
import { derivedDefault, staticDefault } from '../contract/defaults/library-defaults.ts';
import { type Defaulter } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';
import { clusterWidgetContract } from '../render/cluster-widget-contract.fixture.ts';
import { compileContractPolicy } from './compile-policy.ts';
import { renderPolicyCoverage, summarizePolicyCoverage } from './policy-coverage.ts';

// What `crdgate fsa --coverage` and `crdgate manifests` say of defaults: which the MutatingAdmissionPolicy sets too,
// and which stay the webhook's, and why.

const widget = (defaults?: Parameters<typeof defineContract>[0]['defaults']) => {
  const base = clusterWidgetContract();
  const spec = {
    type: 'object',
    properties: { size: { type: 'integer' }, tier: { type: 'string' }, release: { type: 'string', maxLength: 16 } },
  } as const;
  return defineContract({
    ...base,
    versions: [{ ...base.versions[0]!, schema: { type: 'object', properties: { spec } } }],
    ...(defaults ? { defaults } : {}),
  });
};
const sizeFromTier: Defaulter = function sizeFromTier(object) {
  return object;
};

describe('the coverage of defaults', () => {
  const contract = widget([
    staticDefault('spec.tier', 'standard'),
    derivedDefault('metadata.labels[example.com/major]', {
      from: 'spec.release',
      compute: 'release-major',
      keepInStep: true,
    }),
    sizeFromTier,
    staticDefault('spec.size', 1),
  ]);
  const policy = compileContractPolicy(contract);

  it("lists each default in the full report, with why one is not the policy's", () => {
    expect(renderPolicyCoverage(contract, policy)).toContain(
      [
        'Widget: what the MutatingAdmissionPolicy sets even while crdgate is down',
        '',
        '| default | set by | why not by the policy |',
        '|---|---|---|',
        '| spec.tier: "standard" | policy and webhook | |',
        '| metadata.labels[example.com/major]: release-major of spec.release, kept in step | policy and webhook | |',
        '| sizeFromTier (defaults[2]) | webhook only | a function of its own: the policy has nothing to compile |',
        '| spec.size: 1 | webhook only | it comes after sizeFromTier (defaults[2]), a function of its own, which may read what it sets: the policy runs before the webhook and would set it before that function sees the object |',
        '',
      ].join('\n'),
    );
  });

  it('counts them in the summary, one line per default the policy does not set', () => {
    expect(summarizePolicyCoverage(contract, policy)).toBe(
      [
        'policy floor for Widget: the API server enforces 0 of 0 change kinds and 0 of 0 deletion rules, and sets 2 of 4 defaults',
        '  webhook only: default sizeFromTier (defaults[2]): a function of its own: the policy has nothing to compile',
        '  webhook only: default spec.size: 1: it comes after sizeFromTier (defaults[2]), a function of its own, which may read what it sets: the policy runs before the webhook and would set it before that function sees the object',
        '',
      ].join('\n'),
    );
  });

  it('says nothing of defaults for a contract without any', () => {
    const plain = widget();
    expect(summarizePolicyCoverage(plain, compileContractPolicy(plain))).toBe(
      'policy floor for Widget: the API server enforces 0 of 0 change kinds and 0 of 0 deletion rules\n',
    );
    expect(renderPolicyCoverage(plain, compileContractPolicy(plain))).not.toContain('MutatingAdmissionPolicy');
  });
});
