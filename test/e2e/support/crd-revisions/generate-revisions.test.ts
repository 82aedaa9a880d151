import { describe, expect, it } from 'vitest';
import { widgetCrd } from '../../../../src/crd-revision/crd-revision.fixture.ts';
import type { Crd, CrdWithObjects } from './crd.ts';
import { generateRevisions } from './generate-revisions.ts';
import { allRevisionKinds } from './revision-kinds.ts';
import { sampleObjects } from './sample-objects.ts';
import { seededRandom } from './seeded-random.ts';
import { nodeAt } from './schema-sites.ts';

function widgets(seed: number): CrdWithObjects {
  const crd = { ...widgetCrd(), spec: { ...widgetCrd().spec, conversion: { strategy: 'None' } } } as unknown as Crd;
  return { source: 'Widget', crd, objects: sampleObjects(crd, 8, seededRandom(seed), 'default') };
}

describe('generateRevisions', () => {
  it('makes the same revisions from the same seed, and others from another', () => {
    const once = generateRevisions(widgets(1), { seed: 7 });
    expect(generateRevisions(widgets(1), { seed: 7 })).toEqual(once);
    expect(generateRevisions(widgets(1), { seed: 8 }).revisions.map((revision) => revision.change)).not.toEqual(
      once.revisions.map((revision) => revision.change),
    );
  });

  it('names each revision by its kind, changes the CRD, and says why a kind found no place', () => {
    const { revisions, withoutSite } = generateRevisions(widgets(1));
    expect([...revisions.map((revision) => revision.kind), ...withoutSite.map((miss) => miss.kind)].sort()).toEqual(
      [...allRevisionKinds].sort(),
    );
    for (const revision of revisions) {
      expect(revision.id).toBe(`Widget ${revision.kind}`);
      expect(revision.new, revision.id).not.toEqual(revision.old);
    }
    for (const miss of withoutSite) expect(miss.reason).not.toBe('');
    // A CRD of two versions with a bound, an enum, a pattern, a default, a CEL rule and lists offers nearly every kind.
    expect(revisions.length).toBeGreaterThanOrEqual(allRevisionKinds.length - 3);
  });

  it('removes the field it names, from every version that has it', () => {
    const revision = generateRevisions(widgets(1), { kinds: ['fieldRemoved'] }).revisions[0]!;
    const path = revision.change.replace(/ removed$/, '').split('.');
    for (const version of revision.old.spec.versions)
      expect(nodeAt(version.schema!.openAPIV3Schema, path), version.name).toBeDefined();
    for (const version of revision.new.spec.versions)
      expect(nodeAt(version.schema!.openAPIV3Schema, path), version.name).toBeUndefined();
  });

  it('adds the objects a kind needs: a null where nullable is taken away, a duplicate where a list becomes a set', () => {
    const input = widgets(1);
    const nullable = generateRevisions(input, { kinds: ['nullableRemoved'] }).revisions[0]!;
    expect(nullable.objects.length).toBeGreaterThan(input.objects.length);
    expect(JSON.stringify(nullable.objects.slice(input.objects.length))).toContain('null');
  });

  it('gives every object a status to revise, with a status subresource, for the status kinds', () => {
    const input = widgets(1);
    const [narrowed] = generateRevisions(input, { kinds: ['statusEnumNarrowed'] }).revisions;
    expect(narrowed!.objects).toHaveLength(input.objects.length);
    for (const object of narrowed!.objects)
      expect(object.status).toMatchObject({ revisionConditions: [{ type: 'Pending' }] });
    for (const version of narrowed!.old.spec.versions) {
      expect(version['subresources']).toMatchObject({ status: {} });
      expect(nodeAt(version.schema!.openAPIV3Schema, ['status', 'revisionConditions', '[]', 'type'])?.enum).toEqual([
        'Pending',
        'Ready',
      ]);
    }
    const [required] = generateRevisions(input, { kinds: ['statusRequiredAdded'] }).revisions;
    expect(required!.new.spec.versions[0]!.schema!.openAPIV3Schema.properties!['status']!.required).toContain(
      'revisionReason',
    );
  });
});
