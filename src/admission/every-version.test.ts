import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { contractTester, type CheckResult } from '../testing.ts';
import { cacheClusterContract } from './cache-cluster.fixture.ts';
import type { AdmissionRequest } from './review.ts';
import { decideValidation } from './validate.ts';
import type { Verdict } from './verdict.ts';

// One truth across versions: an object of any served version is decided as its hub form is, the hub's schema and
// every rule, its fields named as the client wrote them; whether it comes as the API server sends it to crdgate's
// webhook (converted to the hub, requestKind naming the client's version), as a webhook registered for its own
// version would get it, or to `crdgate check` and contractTester.check. CacheCluster's v1alpha1 lets `nodes` be up
// to 50; the hub's `replicas` stops at 9.

const contract = cacheClusterContract();
const registry = createContractRegistry([contract]);
const tester = contractTester(contract);
const kind = (version: string) => ({ group: 'cache.example.com', version, kind: 'CacheCluster' });

function v1alpha1(spec: Record<string, unknown>, phase = 'Running'): KubeObject {
  return {
    apiVersion: 'cache.example.com/v1alpha1',
    kind: 'CacheCluster',
    metadata: { name: 'sessions', namespace: 'shop' },
    spec,
    status: { phase },
  };
}

const hub = (object: KubeObject) => tester.convert(object, 'cache.example.com/v1');

/** The webhook's decision as the API server asks for it: both objects in the hub, the client's version named. */
function asSentToTheWebhook(operation: 'CREATE' | 'UPDATE', object: KubeObject, oldObject?: KubeObject): Verdict {
  const request: AdmissionRequest = {
    uid: 'uid-1',
    kind: kind('v1'),
    requestKind: kind('v1alpha1'),
    operation,
    object: hub(object),
    oldObject: oldObject ? hub(oldObject) : null,
  };
  return decideValidation(registry, request);
}

/** The decision of a webhook registered for v1alpha1: both objects as the client wrote them. */
function asWritten(operation: 'CREATE' | 'UPDATE', object: KubeObject, oldObject?: KubeObject): Verdict {
  return decideValidation(registry, {
    uid: 'uid-1',
    kind: kind('v1alpha1'),
    operation,
    object,
    oldObject: oldObject ?? null,
  });
}

function outcome(answer: Verdict | CheckResult) {
  return {
    allowed: answer.allowed,
    message: answer.message,
    fields: (answer.causes ?? []).map((cause) => cause.field),
    warnings: answer.warnings,
  };
}

describe('an object of an older version, decided as its hub form', () => {
  it("is refused by a bound only the hub's schema has, naming the field as the client wrote it, everywhere", () => {
    const object = v1alpha1({ memoryMB: 512, nodes: 12 });
    const webhook = asSentToTheWebhook('CREATE', object);
    expect(outcome(webhook)).toEqual({
      allowed: false,
      message:
        'CacheCluster.cache.example.com "sessions" is invalid: spec.nodes: Invalid value: 12: must be less than or equal to 9',
      fields: ['spec.nodes'],
      warnings: [],
    });
    expect(outcome(asWritten('CREATE', object))).toEqual(outcome(webhook));
    expect(outcome(tester.check(object))).toEqual(outcome(webhook));
  });

  it('is refused alike on an update that raises the field past the bound', () => {
    // The stored object as its create left it (TLS defaulted off, in the annotation), edited as read.
    const old = { ...tester.check(v1alpha1({ memoryMB: 512, nodes: 3 })).object, status: { phase: 'Running' } };
    const object = { ...old, spec: { memoryMB: 512, nodes: 12 } };
    const webhook = asSentToTheWebhook('UPDATE', object, old);
    expect(webhook.allowed).toBe(false);
    expect(webhook.causes?.map((cause) => cause.field)).toEqual(['spec.nodes']);
    expect(outcome(asWritten('UPDATE', object, old))).toEqual(outcome(webhook));
    expect(outcome(tester.check(object, { oldObject: old }))).toEqual(outcome(webhook));
  });

  it("tolerates the hub's bound on a field that was already past it and stays so, with the same warning everywhere", () => {
    // Stored before the hub's bound: an update that leaves nodes alone is not refused for it.
    const old = v1alpha1({ memoryMB: 512, nodes: 12 });
    const object = v1alpha1({ memoryMB: 1024, nodes: 12 });
    const webhook = asSentToTheWebhook('UPDATE', object, old);
    expect(outcome(webhook)).toEqual({
      allowed: true,
      message: undefined,
      fields: [],
      warnings: [
        'spec.nodes: Invalid value: 12: must be less than or equal to 9 (tolerated: unchanged since before the rule)',
      ],
    });
    expect(outcome(asWritten('UPDATE', object, old))).toEqual(outcome(webhook));
    expect(outcome(tester.check(object, { oldObject: old }))).toEqual(outcome(webhook));
  });

  it("reports an error of its own version's schema once, in its words, where the hub's says the same", () => {
    // nodes: 0 breaks both minimums (v1alpha1's nodes and the hub's replicas are at least 1).
    const verdict = asWritten('CREATE', v1alpha1({ memoryMB: 512, nodes: 0 }));
    expect(verdict.causes).toEqual([
      {
        field: 'spec.nodes',
        type: 'FieldValueInvalid',
        message: 'Invalid value: 0: must be greater than or equal to 1',
      },
    ]);
  });
});
