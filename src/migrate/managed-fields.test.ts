import { describe, expect, it } from 'vitest';
import { mendManagedFields, type ManagedFieldsEntry } from './managed-fields.ts';

const served = new Set(['geo.example.com/v1', 'geo.example.com/v1beta1']);
const entry = (manager: string, apiVersion: string): ManagedFieldsEntry => ({
  manager,
  operation: 'Apply',
  apiVersion,
  time: '2026-01-01T00:00:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:spec': { 'f:replicas': {} } },
});

describe('mendManagedFields', () => {
  it('leaves objects whose entries are all in served versions alone', () => {
    expect(
      mendManagedFields(
        [entry('a', 'geo.example.com/v1'), entry('b', 'geo.example.com/v1beta1')],
        served,
        'geo.example.com/v1',
      ),
    ).toBeUndefined();
    expect(mendManagedFields(undefined, served, 'geo.example.com/v1')).toBeUndefined();
    expect(mendManagedFields([], served, 'geo.example.com/v1')).toBeUndefined();
  });

  it('drops the entries of versions no longer served and keeps the others untouched', () => {
    const kept = entry('kept', 'geo.example.com/v1');
    const mended = mendManagedFields([entry('old', 'geo.example.com/v1alpha1'), kept], served, 'geo.example.com/v1');
    expect(mended).toEqual({ entries: [kept], dropped: 1 });
  });

  it('seeds one entry owning metadata.name when every entry goes, since an empty list would change nothing', () => {
    const mended = mendManagedFields(
      [entry('kubectl', 'geo.example.com/v1alpha1'), entry('x', 'other.example.com/v1')],
      served,
      'geo.example.com/v1',
    );
    expect(mended?.dropped).toBe(2);
    expect(mended?.entries).toEqual([
      expect.objectContaining({
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'geo.example.com/v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:metadata': { 'f:name': {} } },
      }),
    ]);
    expect(mended?.entries[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});
