import { describe, expect, it } from 'vitest';
import {
  compileClientFieldPaths,
  declaredPathProblem,
  undeclarablePaths,
  type ClientFieldPathsInput,
} from './client-field-paths.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';

const object = (properties: Record<string, JSONSchemaProps>): JSONSchemaProps => ({ type: 'object', properties });
const string: JSONSchemaProps = { type: 'string' };
const integer: JSONSchemaProps = { type: 'integer' };

// v2 (the hub) renamed `size` to `capacity`, moved the items' `mem` to `memory`, and added what v1 cannot hold.
const hubSchema = object({
  spec: object({
    capacity: integer,
    tier: string,
    items: { type: 'array', items: object({ name: string, memory: string, replicas: integer }) },
    labels: { type: 'object', additionalProperties: string },
    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  }),
  status: object({ phase: string }),
});
const spokeSchema = object({
  spec: object({
    size: integer,
    items: { type: 'array', items: object({ name: string, mem: string }) },
    labels: { type: 'object', additionalProperties: string },
    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
  }),
  status: object({ phase: string }),
});
const input: ClientFieldPathsInput = {
  hubVersion: 'v2',
  spokeVersion: 'v1',
  hubSchema,
  spokeSchema,
  declared: {
    'spec.capacity': 'spec.size',
    'spec.items[*].memory': 'spec.items[*].mem',
    'spec.items[*].replicas': null,
  },
};
const paths = compileClientFieldPaths(input);

describe('compileClientFieldPaths: a hub path in the spoke', () => {
  it('renames a declared field', () => {
    expect(paths.field('spec.capacity')).toBe('spec.size');
  });

  it('carries list indexes through [*]', () => {
    expect(paths.field('spec.items[1].memory')).toBe('spec.items[1].mem');
    expect(paths.field('spec.items[12].memory')).toBe('spec.items[12].mem');
  });

  it('maps what lies below a declared path, keeping the rest as written', () => {
    expect(paths.field('spec.capacity.units')).toBe('spec.size.units');
    expect(paths.field('spec.capacity[weird key]')).toBe('spec.size[weird key]');
  });

  it('names a field declared to have no spoke equivalent as the hub field it is', () => {
    expect(paths.field('spec.items[0].replicas')).toBe('spec.items[0].replicas (v2 field; no v1 equivalent)');
  });

  it('keeps an undeclared path the spoke has, map keys and preserved fields included', () => {
    expect(paths.field('spec.items[3].name')).toBe('spec.items[3].name');
    expect(paths.field('spec.labels[app.kubernetes.io/name]')).toBe('spec.labels[app.kubernetes.io/name]');
    expect(paths.field('spec.extra.anything[2]')).toBe('spec.extra.anything[2]');
    expect(paths.field('status.phase')).toBe('status.phase');
  });

  it('marks an undeclared hub field the spoke lacks, without claiming there is no equivalent', () => {
    expect(paths.field('spec.tier')).toBe('spec.tier (v2 field; not in v1)');
  });

  it('leaves paths that are no hub field as they are: the object itself, metadata, unknown fields', () => {
    expect(paths.field('')).toBe('');
    expect(paths.field('metadata.annotations[geo.example.com/x]')).toBe('metadata.annotations[geo.example.com/x]');
    expect(paths.field('spec.colour')).toBe('spec.colour');
  });

  it('prefers the most specific declaration: the longer one, then the one with fewer [*]', () => {
    const specific = compileClientFieldPaths({
      ...input,
      declared: {
        'spec.items': 'spec.things',
        'spec.items[*].name': 'spec.things[*].id',
        'spec.items[0].name': 'spec.first',
      },
    });
    expect(specific.field('spec.items')).toBe('spec.things');
    expect(specific.field('spec.items[2]')).toBe('spec.things[2]');
    expect(specific.field('spec.items[2].name')).toBe('spec.things[2].id');
    expect(specific.field('spec.items[0].name')).toBe('spec.first');
  });

  it('may drop an index the spoke has no list for', () => {
    const flat = compileClientFieldPaths({ ...input, declared: { 'spec.items[*].memory': 'spec.size' } });
    expect(flat.field('spec.items[4].memory')).toBe('spec.size');
  });
});

describe('compileClientFieldPaths: hub paths inside sentences', () => {
  it('rewrites every hub path, and nothing else', () => {
    expect(paths.text('spec.capacity: reducing from 3 to 1')).toBe('spec.size: reducing from 3 to 1');
    expect(paths.text('cannot be combined with storage.grow (spec.capacity) or (spec.items[1].memory)')).toBe(
      'cannot be combined with storage.grow (spec.size) or (spec.items[1].mem)',
    );
    expect(paths.text('the spec and its status are fine; spec.items[0].name too')).toBe(
      'the spec and its status are fine; spec.items[0].name too',
    );
  });

  it('does not read a path out of a longer name', () => {
    expect(paths.text('x.spec.capacity and my-spec.capacity')).toBe('x.spec.capacity and my-spec.capacity');
  });

  it('marks hub-only fields in a sentence too', () => {
    expect(paths.text('spec.items[0].replicas: must be 1')).toBe(
      'spec.items[0].replicas (v2 field; no v1 equivalent): must be 1',
    );
  });
});

describe('declared paths are checked', () => {
  it('accepts names, indexes and [*]', () => {
    expect(declaredPathProblem('spec.items[*].memory', 'spec.items[*].mem')).toBeUndefined();
    expect(declaredPathProblem('spec.items[0]', null)).toBeUndefined();
  });

  it('refuses what is not a field path, and a target with an index nothing fills', () => {
    expect(declaredPathProblem('spec..size', 'spec.size')).toMatch(/"spec\.\.size" is not a field path/);
    expect(declaredPathProblem('spec.size', '.spec')).toMatch(
      /the target of spec\.size, "\.spec", is not a field path/,
    );
    expect(declaredPathProblem('spec.size', 'spec.items[*]')).toMatch(
      /spec\.items\[\*\] has more \[\*\] than spec\.size/,
    );
  });

  it("names a declared path the hub's schema lacks, and a target the spoke's lacks", () => {
    expect(undeclarablePaths(input)).toEqual([]);
    expect(
      undeclarablePaths({ ...input, declared: { 'spec.capacty': 'spec.size', 'spec.tier': 'spec.teir' } }),
    ).toEqual(['spec.capacty is not a field of v2', 'spec.teir (for spec.tier) is not a field of v1']);
  });
});
