import { describe, expect, it } from 'vitest';
import { cacheClusterContract } from '../admission/cache-cluster.fixture.ts';
import { decideMutation } from '../admission/mutate.ts';
import { applyJsonPatch } from '../admission/json-patch.ts';
import type { AdmissionRequest } from '../admission/review.ts';
import { decideValidation } from '../admission/validate.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { apiVersionOf, type Contract } from '../contract/contract-definition.ts';
import { createContractRegistry } from '../contract/registry.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { convertObject, toHub } from '../conversion/convert-object.ts';
import { compileHiddenFields } from './compile-hidden-fields.ts';
import type { ContractPolicy } from './compile-policy.ts';
import { policyAllows } from './policy-cel.fixture.ts';

// The policy floor's refusal of a write in an older version that would change, unseen, a field that version has no
// place for, against the webhook's (admission/hidden-field-changes.ts), in kube-apiserver's own CEL environment.
// Every case is an update the way a client of the older version sends it: the stored object read in that version,
// its fields edited, and its conversion annotation sent back as read, left out (`kubectl replace`), or written
// from another object (stale); converted to the hub and defaulted by the mutating webhook, as both are given it.
// Where the policy compiles a field, it refuses exactly when the webhook refuses a change of that field; it never
// refuses what the webhook lets through.

const hiddenWords = 'cannot show, and this write would change it to';

interface Case {
  version: string;
  old: KubeObject;
  new: KubeObject;
}

function casesOf(contract: Contract, version: string, hubs: readonly KubeObject[]): Case[] {
  const registry = createContractRegistry([contract]);
  const apiVersion = apiVersionOf(contract, version);
  const annotation = contract.conversionAnnotation!;
  const cases: Case[] = [];
  for (const old of hubs)
    for (const edited of hubs) {
      const read = convertObject(contract, old, apiVersion);
      const written = convertObject(contract, edited, apiVersion);
      const stashes = [
        read.metadata?.annotations?.[annotation],
        undefined,
        written.metadata?.annotations?.[annotation],
      ];
      for (const stash of stashes) {
        const { [annotation]: _, ...others } = written.metadata?.annotations ?? {};
        const spoke = {
          ...written,
          metadata: {
            ...written.metadata,
            annotations: stash === undefined ? others : { ...others, [annotation]: stash },
          },
        };
        const hub = toHub(contract, spoke);
        const kind = (v: string) => ({ group: contract.identity.group, version: v, kind: contract.identity.kind });
        const request: AdmissionRequest = {
          uid: 'uid',
          kind: kind(contract.hub),
          requestKind: kind(version),
          operation: 'UPDATE',
          object: hub,
          oldObject: old,
        };
        const mutation = decideMutation(registry, request);
        cases.push({ version, old, new: mutation.patch ? applyJsonPatch(hub, mutation.patch) : hub });
      }
    }
  return cases;
}

function agreement(contract: Contract, cases: readonly Case[], compiledFields: readonly string[]) {
  const registry = createContractRegistry([contract]);
  const hidden = compileHiddenFields(contract);
  const policy: ContractPolicy = {
    operations: ['UPDATE'],
    variables: [],
    validations: hidden.validations,
    coverage: {} as ContractPolicy['coverage'],
  };
  const allowed = policyAllows(
    policy,
    cases.map((entry) => ({ old: entry.old, new: entry.new, requestVersion: entry.version })),
  );
  const kind = (v: string) => ({ group: contract.identity.group, version: v, kind: contract.identity.kind });
  const disagreements: unknown[] = [];
  let refused = 0;
  cases.forEach((entry, at) => {
    const verdict = decideValidation(registry, {
      uid: 'uid',
      kind: kind(contract.hub),
      requestKind: kind(entry.version),
      operation: 'UPDATE',
      object: entry.new,
      oldObject: entry.old,
    });
    const webhookRefuses = (verdict.causes ?? []).some(
      (cause) => cause.message.includes(hiddenWords) && compiledFields.some((field) => cause.field.startsWith(field)),
    );
    if (webhookRefuses) refused++;
    if (allowed[at] === webhookRefuses)
      disagreements.push({ old: entry.old.spec, new: entry.new.spec, policyAllows: allowed[at], verdict });
  });
  return { disagreements, refused, cases: cases.length };
}

function hubObject(contract: Contract, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: apiVersionOf(contract, contract.hub),
    kind: contract.identity.kind,
    metadata: { name: 'x', namespace: 'ns' },
    spec,
    status: { phase: 'Running' },
  };
}

describe('the policy floor refuses a write in an older version that would change a field it cannot show', () => {
  it('as the webhook does, for CacheCluster: spec.tls written in v1alpha1', () => {
    const contract = cacheClusterContract();
    const hubs = [undefined, {}, { enabled: true }, { enabled: false }].flatMap((tls) =>
      ['512Mi', '0.5Gi', '1000M'].map((memory) =>
        hubObject(contract, { memory, replicas: 3, ...(tls === undefined ? {} : { tls }) }),
      ),
    );
    expect(compileHiddenFields(contract).coverage).toEqual([
      { rule: 'spec.tls written in v1alpha1', enforcedBy: 'policy' },
    ]);
    const result = agreement(contract, casesOf(contract, 'v1alpha1', hubs), ['spec.tls']);
    expect(result.disagreements).toEqual([]);
    expect(result.refused).toBeGreaterThanOrEqual(40);
    expect(result.cases - result.refused).toBeGreaterThanOrEqual(100);
  });

  it('as the webhook does, for GeoDatabase: the storage class, which v1alpha1 has no place for', () => {
    const contract = geoDatabaseContract();
    const hubs = [undefined, 'standard', 'archive'].flatMap((storageClassName) =>
      ['50Gi', '51200Mi'].map((size) =>
        hubObject(contract, {
          postgres: { version: '16.4', postgis: '3.4.2' },
          storage: { size, ...(storageClassName === undefined ? {} : { storageClassName }) },
        }),
      ),
    );
    const result = agreement(contract, casesOf(contract, 'v1alpha1', hubs), ['spec.storage.storageClassName']);
    expect(result.disagreements).toEqual([]);
    expect(result.refused).toBeGreaterThanOrEqual(10);
  });
});
