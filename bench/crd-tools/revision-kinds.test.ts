import { describe, expect, it } from 'vitest';
import { widgetCrd } from '../../src/crd-revision/crd-revision.fixture.ts';
import { generateRevision, REVISION_KINDS, type RevisionKind } from './revision-kinds.ts';

// The comparison's revisions must be what their kind names and aimed at what the objects hold; otherwise a checker
// would be scored on an edit that touches nothing.

function crd(): Record<string, unknown> {
  const widget = widgetCrd();
  // One field no object holds and no rule constrains, for a default to fill in.
  widget.spec.versions[1]!.schema.openAPIV3Schema.properties.spec.properties = {
    ...widget.spec.versions[1]!.schema.openAPIV3Schema.properties.spec.properties,
    paused: { type: 'boolean' },
  } as never;
  return widget;
}

const objects = [
  {
    apiVersion: 'toys.example.com/v1',
    kind: 'Widget',
    metadata: { name: 'a' },
    spec: { size: 3, mode: 'fast', name: 'abc' },
  },
  { apiVersion: 'toys.example.com/v1', kind: 'Widget', metadata: { name: 'b' }, spec: { size: 5, mode: 'fast' } },
];

function storageSpec(revised: Record<string, unknown>): Record<string, Record<string, unknown>> {
  const versions = (
    revised.spec as {
      versions: Array<{
        storage: boolean;
        schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, Record<string, unknown>> } } } };
      }>;
    }
  ).versions;
  return versions.find((version) => version.storage)!.schema.openAPIV3Schema.properties.spec.properties;
}

function revise(kind: RevisionKind) {
  const revision = generateRevision(crd(), objects, kind);
  if (!revision) throw new Error(`no ${kind} revision`);
  return revision;
}

describe('the revisions the CRD checkers are compared on', () => {
  it('aim at fields the objects hold, most widely held first', () => {
    expect(revise('fieldRemoved').target).toBe('spec.mode');
    expect(storageSpec(revise('fieldRemoved').crd).mode).toBeUndefined();
  });

  it('narrow an enum by the values the objects hold, and only then', () => {
    expect(storageSpec(revise('enumNarrowed').crd).mode!.enum).toEqual(['safe']);
  });

  it('put bounds just past the values held', () => {
    expect(storageSpec(revise('maximumLowered').crd).size!.maximum).toBe(4);
    expect(storageSpec(revise('minimumRaised').crd).size!.minimum).toBe(4);
    // Not mode: the length of an enum's values is the enum's business.
    expect(storageSpec(revise('maxLengthLowered').crd).name!.maxLength).toBe(2);
  });

  it('require or default a field that some objects lack', () => {
    const required = revise('requiredAdded');
    expect(required.target).toBe('spec.endpoint');
    expect(
      (
        required.crd.spec as {
          versions: Array<{
            storage: boolean;
            schema: { openAPIV3Schema: { properties: { spec: { required: string[] } } } };
          }>;
        }
      ).versions.find((version) => version.storage)!.schema.openAPIV3Schema.properties.spec.required,
    ).toEqual(['size', 'endpoint']);
    const defaulted = revise('defaultAdded');
    expect(defaulted.target).toBe('spec.paused');
    expect(storageSpec(defaulted.crd).paused!.default).toBe(true);
  });

  it('change a default to another allowed value', () => {
    expect(storageSpec(revise('defaultChanged').crd).size!.default).toBe(4);
  });

  it('change versions: unserve the other one, remove the storage one', () => {
    expect(revise('versionUnserved').target).toBe('v1beta1');
    const removed = revise('storageVersionRemoved');
    expect(removed.target).toBe('v1');
    expect((removed.crd.spec as { versions: Array<{ name: string; storage: boolean }> }).versions).toEqual([
      expect.objectContaining({ name: 'v1beta1', storage: true }),
    ]);
  });

  it('leave a kind out when nothing fits, and never touch the CRD given', () => {
    const given = crd();
    const single = structuredClone(given);
    (single.spec as { versions: unknown[] }).versions.splice(0, 1);
    expect(generateRevision(single, objects, 'versionUnserved')).toBeUndefined();
    for (const kind of REVISION_KINDS) generateRevision(given, objects, kind);
    expect(given).toEqual(crd());
  });
});
