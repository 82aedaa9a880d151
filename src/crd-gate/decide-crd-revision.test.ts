import { describe, expect, it } from 'vitest';
import { parseAdmissionReview } from '../admission/review.ts';
import { crdRevisionPair, crdRevisionOverrideAnnotation, decideCrdRevision } from './decide-crd-revision.ts';
import { crdUpdateReview, pipeCrd } from './crd-gate.fixture.ts';
import type { LiveObjectsReading } from './live-objects-reading.ts';
import { liveObjectJudge } from './live-object-judge.ts';

const name = 'pipes.gate.example.com';
const old = pipeCrd();
const withoutColour = pipeCrd({ fields: { size: { type: 'integer' } } });
const withShape = pipeCrd({
  fields: { size: { type: 'integer' }, colour: { type: 'string' }, shape: { type: 'string' } },
});
const overriding = (reason: string, fields = { size: { type: 'integer' } }) =>
  pipeCrd({ fields, annotations: { [crdRevisionOverrideAnnotation]: reason } });
const judged = (
  findings: Extract<LiveObjectsReading, { read: 'judged' }>['findings'],
  objects = 30,
): LiveObjectsReading => ({ read: 'judged', objects, findings });

describe('decideCrdRevision', () => {
  it('lets a safe revision through without a word', () => {
    expect(decideCrdRevision(name, old, withShape, { live: judged([]) })).toMatchObject({
      allowed: true,
      code: 'ALLOWED',
      warnings: [],
      auditAnnotations: {},
    });
  });

  it('refuses a revision its rules find unsafe, naming each rule with its count and place, and the override', () => {
    const verdict = decideCrdRevision(name, old, withoutColour);
    expect(verdict).toMatchObject({ allowed: false, code: 'CRD_REVISION_UNSAFE' });
    expect(verdict.message).toContain('CustomResourceDefinition pipes.gate.example.com');
    expect(verdict.message).toContain('existingFieldRemoval ×1 (v1 spec.colour)');
    expect(verdict.message).toContain(`set the annotation ${crdRevisionOverrideAnnotation} to a reason`);
  });

  it('refuses a revision whose rules find nothing when live objects would break, naming the finding and how many objects', () => {
    const live = judged([
      {
        id: 'recreateRefused',
        severity: 'error',
        count: 12,
        summary: 'the object created again is refused',
        example: 'ns/pipe-1 spec.size',
      },
    ]);
    const verdict = decideCrdRevision(name, old, withShape, { live });
    expect(verdict.code).toBe('CRD_REVISION_UNSAFE');
    expect(verdict.message).toContain('of 30 live objects: recreateRefused (12 objects, e.g. ns/pipe-1 spec.size)');
    const revisionWide = judged([
      {
        id: 'storedVersionsRefuseUpdate',
        severity: 'error',
        count: 1,
        summary: 'status.storedVersions holds a removed version',
        revisionWide: true,
      },
    ]);
    expect(decideCrdRevision(name, old, withShape, { live: revisionWide }).message).toContain(
      'storedVersionsRefuseUpdate (the revision): status.storedVersions',
    );
  });

  it('lets an unsafe revision through once with the override, warning and leaving an audit annotation', () => {
    const verdict = decideCrdRevision(name, old, overriding('drop colour, JIRA-7'));
    expect(verdict).toMatchObject({ allowed: true, code: 'ALLOWED' });
    expect(verdict.warnings[0]).toBe(
      `${crdRevisionOverrideAnnotation}: applying an unsafe revision of ${name}; reason: "drop colour, JIRA-7"`,
    );
    expect(verdict.auditAnnotations).toEqual({
      'override-crd-revision': expect.stringContaining('existingFieldRemoval ×1 (v1 spec.colour)'),
    });
  });

  it('refuses a second unsafe revision that carries the value an earlier write set: the override was spent', () => {
    const earlier = overriding('drop colour, JIRA-7', {
      size: { type: 'integer' },
      colour: { type: 'string' },
    } as never);
    const verdict = decideCrdRevision(name, earlier, overriding('drop colour, JIRA-7'));
    expect(verdict.code).toBe('CRD_REVISION_UNSAFE');
    expect(verdict.message).toContain('carries the value an earlier write set');
  });

  it('takes no blank reason for an override', () => {
    expect(decideCrdRevision(name, old, overriding('  ')).code).toBe('CRD_REVISION_UNSAFE');
  });

  it('points out an override spent on a revision that needed none', () => {
    const verdict = decideCrdRevision(
      name,
      old,
      pipeCrd({
        fields: { size: { type: 'integer' }, colour: { type: 'string' }, shape: { type: 'string' } },
        annotations: { [crdRevisionOverrideAnnotation]: 'just in case' },
      }),
    );
    expect(verdict.allowed).toBe(true);
    expect(verdict.warnings).toEqual([expect.stringContaining('needs no override')]);
    expect(verdict.auditAnnotations).toEqual({});
  });

  it('decides on the rules alone when the live objects were not judged, and says so in a warning', () => {
    const live: LiveObjectsReading = { read: 'not-judged', why: "more than 5000 objects, the gate's bound" };
    const allowed = decideCrdRevision(name, old, withShape, { live });
    expect(allowed.allowed).toBe(true);
    expect(allowed.warnings).toEqual([
      expect.stringContaining(
        "decided on the revision's own rules alone: the live objects were not judged (more than 5000 objects",
      ),
    ]);
    const refused = decideCrdRevision(name, old, withoutColour, { live });
    expect(refused.code).toBe('CRD_REVISION_UNSAFE');
    expect(refused.warnings).toEqual([expect.stringContaining('not judged')]);
  });

  it('weighs its rule findings against the live objects as check does: an error no live object is affected by warns', () => {
    const pipe = (i: number, spec: Record<string, unknown>) => ({
      apiVersion: 'gate.example.com/v1',
      kind: 'Pipe',
      metadata: { name: `pipe-${i}`, namespace: 'west' },
      spec,
    });
    const readLive = (objects: ReturnType<typeof pipe>[]): LiveObjectsReading => {
      const judge = liveObjectJudge(old, withoutColour);
      if ('none' in judge) throw new Error(judge.none);
      judge.judge(objects);
      const evidence = judge.evidence();
      judge.release();
      return { read: 'judged', objects: objects.length, findings: [], ...(evidence ? { evidence } : {}) };
    };
    const uncoloured = readLive([pipe(0, { size: 1 }), pipe(1, { size: 2 })]);
    const allowed = decideCrdRevision(name, old, withoutColour, { live: uncoloured });
    expect(allowed.allowed).toBe(true);
    expect(allowed.warnings).toEqual([
      expect.stringContaining(
        '1 finding of error severity that none of the 2 live objects is affected by: existingFieldRemoval ×1 (v1 spec.colour)',
      ),
    ]);
    expect(decideCrdRevision(name, old, withoutColour, { live: uncoloured, evidence: 'rules' }).code).toBe(
      'CRD_REVISION_UNSAFE',
    );
    const coloured = readLive([pipe(0, { size: 1, colour: 'red' })]);
    expect(decideCrdRevision(name, old, withoutColour, { live: coloured }).code).toBe('CRD_REVISION_UNSAFE');
  });

  it('follows the rule settings: a rule set to warning lets the revision through with a warning', () => {
    const verdict = decideCrdRevision(name, old, withoutColour, { rules: { existingFieldRemoval: 'warning' } });
    expect(verdict.allowed).toBe(true);
    expect(verdict.warnings).toEqual([expect.stringContaining('existingFieldRemoval ×1 (v1 spec.colour)')]);
  });

  it('leaves a reworded description alone unless the settings ask for it', () => {
    const described = (text: string) =>
      pipeCrd({ fields: { size: { type: 'integer', description: text }, colour: { type: 'string' } } });
    const [before, after] = [described('How long.'), described('How long, in metres.')];
    expect(decideCrdRevision(name, before, after)).toMatchObject({ allowed: true, warnings: [] });
    expect(decideCrdRevision(name, before, after, { rules: { description: 'warning' } }).warnings).toEqual([
      expect.stringContaining('description ×1 (v1 spec.size)'),
    ]);
  });

  it('stays within a few KiB however many findings there are', () => {
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`field${i}`, { type: 'string' }]));
    const verdict = decideCrdRevision(name, pipeCrd({ fields: many }), old);
    expect(verdict.message).toContain('existingFieldRemoval ×300');
    expect(verdict.message!.length).toBeLessThan(2_000);
  });
});

describe('crdRevisionPair', () => {
  it('pairs the revisions of an update, lets a create through, and refuses a review of another kind', () => {
    const review = crdUpdateReview(old, withoutColour);
    expect(crdRevisionPair(parseAdmissionReview(review))).toEqual({ name, oldCrd: old, newCrd: withoutColour });
    const request = (review as { request: Record<string, unknown> }).request;
    expect(
      crdRevisionPair(
        parseAdmissionReview({ ...review, request: { ...request, operation: 'CREATE', oldObject: null } }),
      ),
    ).toMatchObject({ allowed: true });
    const other = { ...request, kind: { group: 'gate.example.com', version: 'v1', kind: 'Pipe' } };
    expect(crdRevisionPair(parseAdmissionReview({ ...review, request: other }))).toMatchObject({
      allowed: false,
      code: 'KIND_UNKNOWN',
    });
  });
});
