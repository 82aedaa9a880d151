import { describe, expect, it } from 'vitest';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { describeSchemaDifference, diffSchemas } from './schema-diff.ts';

const cluster = (): JSONSchemaProps => ({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      required: ['instances'],
      description: 'What the cluster should be.',
      properties: {
        instances: { type: 'integer', minimum: 1 },
        storage: { type: 'object', properties: { size: { type: 'string' } } },
        labels: { type: 'object', additionalProperties: { type: 'string' } },
      },
    },
    status: {
      type: 'object',
      properties: {
        conditions: {
          type: 'array',
          items: { type: 'object', properties: { type: { type: 'string' }, status: { type: 'string' } } },
        },
      },
    },
  },
});

describe('diffSchemas', () => {
  it('finds nothing between a schema and its copy, nor in documentation alone', () => {
    expect(diffSchemas(cluster(), cluster())).toEqual([]);
    const reworded = cluster();
    reworded.properties!['spec']!.description = 'Another sentence.';
    reworded.properties!['spec']!.properties!['instances']!.title = 'Instances';
    expect(diffSchemas(cluster(), reworded)).toEqual([]);
  });

  it('names a field the second schema gained or lost, without descending into it', () => {
    const live = cluster();
    live.properties!['spec']!.properties!['backup'] = { type: 'object', properties: { schedule: { type: 'string' } } };
    delete live.properties!['spec']!.properties!['storage'];
    expect(diffSchemas(cluster(), live)).toEqual([
      { path: 'spec.storage', change: 'removed' },
      { path: 'spec.backup', change: 'added' },
    ]);
  });

  it('names the keywords that differ on a field both have, in document order', () => {
    const live = cluster();
    const spec = live.properties!['spec']!;
    spec.required = ['instances', 'storage'];
    spec.properties!['instances'] = { type: 'integer', minimum: 1, maximum: 9 };
    spec.properties!['storage']!.properties!['size']!['x-kubernetes-validations'] = [{ rule: 'self != ""' }];
    expect(diffSchemas(cluster(), live)).toEqual([
      { path: 'spec', change: 'changed', keywords: ['required: ["instances"] → ["instances","storage"]'] },
      { path: 'spec.instances', change: 'changed', keywords: ['maximum: absent → 9'] },
      {
        path: 'spec.storage.size',
        change: 'changed',
        keywords: ['x-kubernetes-validations: absent → [{"rule":"self != \\"\\""}]'],
      },
    ]);
  });

  it('descends into list items and map values', () => {
    const live = cluster();
    live.properties!['status']!.properties!['conditions']!.items!.properties!['reason'] = { type: 'string' };
    live.properties!['spec']!.properties!['labels']!.additionalProperties = { type: 'string', maxLength: 63 };
    expect(diffSchemas(cluster(), live).map(describeSchemaDifference)).toEqual([
      'spec.labels[*] (changed: maxLength: absent → 63)',
      'status.conditions[*].reason (added)',
    ]);
  });

  it('reports a node whose items or map values appear or go as a change of that node', () => {
    const live = cluster();
    live.properties!['spec']!.properties!['labels'] = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
    expect(diffSchemas(cluster(), live)).toEqual([
      {
        path: 'spec.labels',
        change: 'changed',
        keywords: ['x-kubernetes-preserve-unknown-fields: absent → true', 'additionalProperties: (a schema) → absent'],
      },
    ]);
  });

  it('quotes a field name that is not an identifier', () => {
    const live = cluster();
    live.properties!['spec']!.properties!['app.kubernetes.io/name'] = { type: 'string' };
    expect(diffSchemas(cluster(), live)).toEqual([{ path: 'spec["app.kubernetes.io/name"]', change: 'added' }]);
    expect(describeSchemaDifference({ path: '', change: 'changed', keywords: ['type: "object" → absent'] })).toBe(
      '(the root) (changed: type: "object" → absent)',
    );
  });
});
