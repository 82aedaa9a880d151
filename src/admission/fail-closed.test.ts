import { describe, expect, it } from 'vitest';
import { metadataDeletionRule } from '../contract/deletion-rules.ts';
import { defineContract } from '../contract/define-contract.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { handleAdmissionReview } from './handler.ts';
import type { AdmissionRequest } from './review.ts';
import { decideValidation } from './validate.ts';

// The regressions: every way a rule could not be evaluated used to be skipped into an allow.
const registry = createContractRegistry([geoDatabaseContract()]);
const protection = 'geo.example.com/deletion-protection';

function v1alpha1(spec: Record<string, unknown>, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'geo.example.com/v1alpha1',
    kind: 'GeoDatabase',
    metadata: { name: 'db', namespace: 'maps', ...(annotations ? { annotations } : {}) },
    spec: { postgresVersion: '16.4', postgisVersion: '3.4.2', storageGB: 2, ...spec },
  };
}

function request(
  operation: AdmissionRequest['operation'],
  object: KubeObject | null,
  oldObject: KubeObject | null = null,
): AdmissionRequest {
  return {
    uid: 'uid-1',
    kind: { group: 'geo.example.com', version: 'v1alpha1', kind: 'GeoDatabase' },
    operation,
    object,
    oldObject,
  };
}

describe('an older-version object that cannot be converted to the hub', () => {
  it('is denied on UPDATE even when its schema errors are unchanged (the rules could not run)', () => {
    // storageGB 1.5 blocks conversion; 16.4 -> 12.1 is a downgrade to an unsupported major.
    const verdict = decideValidation(
      registry,
      request('UPDATE', v1alpha1({ storageGB: 1.5, postgresVersion: '12.1' }), v1alpha1({ storageGB: 1.5 })),
    );
    expect(verdict).toMatchObject({ allowed: false, code: 'OBJECT_INVALID' });
    expect(verdict.causes?.some((cause) => cause.field === '' && cause.message.includes('cannot be checked'))).toBe(
      true,
    );
  });

  it('is denied on an update that changes nothing but a label: without a hub form nothing can be proven', () => {
    const old = v1alpha1({ storageGB: 1.5 });
    const updated = { ...old, metadata: { ...old.metadata, labels: { team: 'maps' } } };
    expect(decideValidation(registry, request('UPDATE', updated, old)).allowed).toBe(false);
  });

  it('blocks a change whose stored object cannot convert, even when the new one is valid', () => {
    const verdict = decideValidation(
      registry,
      request('UPDATE', v1alpha1({ postgresVersion: '12.1' }), v1alpha1({ storageGB: 1.5, postgresVersion: '16.4' })),
    );
    expect(verdict.allowed).toBe(false);
  });

  it('can be deleted when no metadata rule says no, and is protected when one does', () => {
    expect(decideValidation(registry, request('DELETE', null, v1alpha1({ storageGB: 1.5 })))).toMatchObject({
      allowed: true,
    });
    const guarded = v1alpha1({ storageGB: 1.5 }, { [protection]: 'true' });
    expect(decideValidation(registry, request('DELETE', null, guarded))).toMatchObject({
      allowed: false,
      code: 'DELETION_PROTECTED',
    });
  });

  it('cannot be deleted when a deletion rule needs the converted object', () => {
    const needsSpec = createContractRegistry([
      defineContract({
        ...geoDatabaseContract(),
        deletionRules: [(object) => ((object.spec as { storage?: unknown })?.storage ? undefined : 'no storage')],
      }),
    ]);
    const verdict = decideValidation(needsSpec, request('DELETE', null, v1alpha1({ storageGB: 1.5 })));
    expect(verdict).toMatchObject({ allowed: false, code: 'DELETION_PROTECTED' });
    expect(verdict.message).toContain('cannot be checked');
  });

  it('runs metadata rules on metadata alone when the object cannot convert', () => {
    const seen: unknown[] = [];
    const spying = createContractRegistry([
      defineContract({
        ...geoDatabaseContract(),
        deletionRules: [metadataDeletionRule((object) => void seen.push(object))],
      }),
    ]);
    decideValidation(spying, request('DELETE', null, v1alpha1({ storageGB: 1.5 })));
    expect(seen).toEqual([
      { apiVersion: 'geo.example.com/v1alpha1', kind: 'GeoDatabase', metadata: { name: 'db', namespace: 'maps' } },
    ]);
  });
});

describe('ratcheting compares the same path in the same version', () => {
  it('denies an invariant error in an older version when the value changed (hub paths are compared in the hub)', () => {
    // cacheMB 1 and 2 are both below the 64Mi minimum of a cache; the hub path is spec.caches[0].memory, which the
    // denial names as v1alpha1 spells it.
    const verdict = decideValidation(registry, request('UPDATE', v1alpha1({ cacheMB: 2 }), v1alpha1({ cacheMB: 1 })));
    expect(verdict).toMatchObject({ allowed: false, code: 'OBJECT_INVALID' });
    expect(verdict.causes?.map((c) => c.field)).toEqual(['spec.cacheMB']);
  });

  it('tolerates an invariant error in an older version when the value is unchanged', () => {
    const verdict = decideValidation(
      registry,
      request('UPDATE', v1alpha1({ cacheMB: 1, replicas: 2 }), v1alpha1({ cacheMB: 1 })),
    );
    expect(verdict.allowed).toBe(true);
    expect(verdict.warnings.join()).toContain('spec.cacheMB: must be between 64Mi and 64Gi');
  });

  it.each([['1'], ['a]b'], ['tab\there'], ['x'.repeat(64)]])(
    'denies changing an unknown field named %j, as it denies spec.colour',
    (name) => {
      const verdict = decideValidation(
        registry,
        request('UPDATE', v1alpha1({ [name]: 'b' }), v1alpha1({ [name]: 'a' })),
      );
      expect(verdict).toMatchObject({ allowed: false, code: 'OBJECT_INVALID' });
      const unchanged = decideValidation(
        registry,
        request('UPDATE', v1alpha1({ [name]: 'a', replicas: 1 }), v1alpha1({ [name]: 'a' })),
      );
      expect(unchanged.allowed).toBe(true);
    },
  );

  it('tolerates no schema error when the old object is in another version than the new one', () => {
    const old = { ...v1alpha1({}), apiVersion: 'geo.example.com/v1beta1', spec: { colour: 'a' } };
    const verdict = decideValidation(registry, request('UPDATE', v1alpha1({ colour: 'a' }), old));
    expect(verdict.allowed).toBe(false);
  });
});

describe('bounded answers', () => {
  const review = (object: KubeObject) => ({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { ...request('CREATE', object), kind: { group: 'geo.example.com', version: 'v1', kind: 'GeoDatabase' } },
  });
  const hub = (status: unknown): KubeObject => ({
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: { name: 'db', namespace: 'maps' },
    spec: { postgres: { version: '16.4', postgis: '3.4.2' }, storage: { size: '20Gi' } },
    status,
  });

  it('lists the first field errors, then how many more, in a response of a few KiB', () => {
    const outcome = handleAdmissionReview(
      'validate',
      registry,
      review(hub({ conditions: Array.from({ length: 1000 }, () => ({})) })),
    );
    const response = (
      outcome.body as { response: { allowed: boolean; status: { message: string; details: { causes: unknown[] } } } }
    ).response;
    expect(response.allowed).toBe(false);
    expect(response.status.details.causes).toHaveLength(20);
    expect(response.status.message).toMatch(/and \d+ more$/);
    expect(JSON.stringify(outcome.body).length).toBeLessThan(16 * 1024);
  });

  it('stops early on an object with millions of wrong values', () => {
    const outcome = handleAdmissionReview(
      'validate',
      registry,
      review(hub({ conditions: Array.from({ length: 2_000_000 }, () => ({})) })),
    );
    expect(outcome.body).toMatchObject({ response: { allowed: false, status: { code: 422 } } });
    expect(JSON.stringify(outcome.body)).toContain('validation stopped at the first error');
  });

  it('denies an object nested deeper than any real one, naming where', () => {
    let deep: unknown = 'x';
    for (let level = 0; level < 6000; level++) deep = { a: deep };
    // In the status: deep metadata is no object the API server could send (a label is a string), refused earlier.
    const object = { ...hub(undefined), status: deep };
    const outcome = handleAdmissionReview('validate', registry, review(object));
    expect(outcome.body).toMatchObject({
      response: { allowed: false, status: { code: 422, details: { causes: [{ field: 'status.a.a.a...' }] } } },
    });
  });
});

describe("an operator's kind in a version only its owner converts", () => {
  // GeoDatabase's versions as an operator's CRD: crdgate has no conversion of v1alpha1, so that version has no hub
  // form here (the API server would send the webhook the hub; `crdgate check` decides the version as written).
  const { conversionAnnotation: _stash, conversions: _conversions, ...geo } = geoDatabaseContract();
  const external = (invariants: typeof geo.invariants) =>
    createContractRegistry([
      defineContract({
        ...geo,
        conversions: {},
        crdOwner: 'external',
        invariants,
        transitions: undefined,
        updateRules: [],
        deletionRules: [],
      }),
    ]);

  it('is decided by its own schema when the contract has no invariants: nothing else reads the hub form', () => {
    const registry = external([]);
    expect(decideValidation(registry, request('CREATE', v1alpha1({})))).toMatchObject({ allowed: true });
    const invalid = decideValidation(registry, request('CREATE', v1alpha1({ storageGB: 'two' })));
    expect(invalid).toMatchObject({ allowed: false, code: 'OBJECT_INVALID' });
    expect(invalid.causes?.map((cause) => cause.field)).toEqual(['spec.storageGB']);
  });

  it('is denied when an invariant would have to run on the hub form it lacks', () => {
    const verdict = decideValidation(external(geo.invariants), request('CREATE', v1alpha1({})));
    expect(verdict).toMatchObject({ allowed: false, code: 'OBJECT_INVALID' });
    expect(verdict.causes?.map((cause) => cause.message)).toEqual([
      expect.stringMatching(
        /^the rules cannot be checked: cannot convert .* the contract has no conversion of v1alpha1$/,
      ),
    ]);
  });
});
