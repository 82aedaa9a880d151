import { describe, expect, it } from 'vitest';
import { predictStoredObject } from './predict-stored-object.ts';
import { invalidFields } from './invalid-fields.ts';
import { oneVersionCrd } from './one-version-crd.fixture.ts';
import { prepareCrdRevision } from './revision-under-test.ts';
import { storedObjectFindings } from './stored-object-findings.ts';

// A kind whose operator writes conditions into its status, as the incidents of issue 52 had it: the new revision
// takes a condition type out of the enum, or makes a status field required that stored objects lack. The object is
// valid under the old revision; ratcheting lets every write that leaves the faulty value alone through.

type ListType = 'atomic' | 'map';

function conditionsCrd(options: { types: string[]; listType: ListType; required?: string[] }) {
  const conditions = {
    type: 'array',
    ...(options.listType === 'map' ? { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] } : {}),
    items: {
      type: 'object',
      required: ['type'],
      properties: { type: { type: 'string', enum: options.types }, message: { type: 'string' } },
    },
  };
  return oneVersionCrd(
    'Job',
    {
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { image: { type: 'string' } } },
        status: {
          type: 'object',
          ...(options.required ? { required: options.required } : {}),
          properties: { observedGeneration: { type: 'integer' }, ready: { type: 'boolean' }, conditions },
        },
      },
    },
    { subresources: { status: {} } },
  );
}

const job = {
  apiVersion: 'x.example.com/v1',
  kind: 'Job',
  metadata: { name: 'nightly', namespace: 'jobs' },
  spec: { image: 'backup:1' },
  status: { conditions: [{ type: 'Pending', message: 'waiting for a node' }], ready: false },
};

function judged(old: unknown, now: unknown) {
  const revision = prepareCrdRevision(old, now);
  const outcome = predictStoredObject(revision, job);
  return { revision, outcome, findings: storedObjectFindings(revision, job, outcome) };
}

describe('a status value the revision refuses', () => {
  it('is an error on the object, and in an atomic list the operator’s status write that changes another item field is refused', () => {
    const { revision, outcome, findings } = judged(
      conditionsCrd({ types: ['Pending', 'Ready'], listType: 'atomic' }),
      conditionsCrd({ types: ['Ready', 'Failed'], listType: 'atomic' }),
    );
    expect(invalidFields(revision, job, outcome)).toMatchObject([
      {
        field: 'status.conditions[0].type',
        type: 'FieldValueNotSupported',
        keyword: 'enum',
        value: 'Pending',
        versions: ['v1'],
        // Items of an atomic list are judged afresh whenever the list changes.
        unit: 'status.conditions',
        underStatus: true,
        statusSubresource: true,
      },
    ]);
    // Nothing that leaves the status alone is refused: ratcheting spares the value.
    expect([outcome.unchangedWrite.allowed, outcome.labelWrite.allowed, outcome.specWrite?.allowed]).toEqual([
      true,
      true,
      true,
    ]);
    // The status write changes the first status value the revision leaves alone: the condition's message.
    expect(outcome.statusWrite).toEqual({
      allowed: false,
      refused: { code: 422, causes: [{ field: 'status.conditions[0].type', type: 'FieldValueNotSupported' }] },
    });
    expect(findings.map((finding) => finding.rule)).toEqual(['statusValueInvalid', 'statusWriteRefused']);
    const [value, write] = findings;
    expect(value).toMatchObject({ severity: 'error', path: 'status.conditions[0].type', old: 'Pending' });
    expect(value!.message).toContain("the operator's status writes (.../status) that change status.conditions");
    expect(write!.message).toContain("the operator's status write that changes status.conditions[0].message");
  });

  it('in a list map, is spared by a status write that changes the item but not its key', () => {
    const { outcome, findings } = judged(
      conditionsCrd({ types: ['Pending', 'Ready'], listType: 'map' }),
      conditionsCrd({ types: ['Ready'], listType: 'map' }),
    );
    expect(outcome.statusWrite?.allowed).toBe(true);
    // Still an error: the operator's write that sets another condition type, or a new one, is refused.
    expect(findings.map((finding) => [finding.rule, finding.unit])).toEqual([
      ['statusValueInvalid', 'status.conditions[0].type'],
    ]);
  });

  it('names a status field made required as missing, judged with its parent', () => {
    const { outcome, findings } = judged(
      conditionsCrd({ types: ['Pending', 'Ready'], listType: 'atomic' }),
      conditionsCrd({ types: ['Pending', 'Ready'], listType: 'atomic', required: ['observedGeneration'] }),
    );
    expect(outcome.unchangedWrite.allowed).toBe(true);
    expect(outcome.statusWrite).toEqual({
      allowed: false,
      refused: { code: 422, causes: [{ field: 'status.observedGeneration', type: 'FieldValueRequired' }] },
    });
    expect(findings.map(({ rule, path, keyword, unit }) => ({ rule, path, keyword, unit }))).toEqual([
      { rule: 'statusValueInvalid', path: 'status.observedGeneration', keyword: 'required', unit: 'status' },
      { rule: 'statusWriteRefused', path: 'status.observedGeneration', keyword: undefined, unit: undefined },
    ]);
    expect(findings[0]!.message).toMatch(
      /^status\.observedGeneration is missing, .*\(its parent, where a missing field is judged\)/,
    );
  });

  it('is not the revision’s when the old revision refused it already', () => {
    const crd = conditionsCrd({ types: ['Ready'], listType: 'atomic' });
    const revision = prepareCrdRevision(crd, crd);
    const outcome = predictStoredObject(revision, job);
    expect(invalidFields(revision, job, outcome)).toEqual([]);
    expect(storedObjectFindings(revision, job, outcome)).toEqual([]);
  });
});
