import { describe, expect, it } from 'vitest';
import { contractDefaulter } from './contract-defaulter.ts';
import { derivedDefault, staticDefault } from './library-defaults.ts';

const object = (spec: unknown, metadata: Record<string, unknown> = { name: 'a' }) => ({
  apiVersion: 'example.com/v1',
  kind: 'Thing',
  metadata,
  spec,
});

describe('staticDefault', () => {
  it('sets an absent field and leaves a present one, null included', () => {
    const replicas = staticDefault('spec.replicas', 1);
    expect(replicas(object({ size: 2 })).spec).toEqual({ size: 2, replicas: 1 });
    expect(replicas(object({ replicas: 3 })).spec).toEqual({ replicas: 3 });
    expect(replicas(object({ replicas: null })).spec).toEqual({ replicas: null });
  });

  it('never makes up the objects on the way, and leaves them alone when they are not objects', () => {
    const tier = staticDefault('spec.storage.tier', 'standard');
    expect(tier(object({ size: 2 })).spec).toEqual({ size: 2 });
    expect(tier(object({ storage: 'fast' })).spec).toEqual({ storage: 'fast' });
    expect(tier(object({ storage: [] })).spec).toEqual({ storage: [] });
    expect(tier({ apiVersion: 'example.com/v1', kind: 'Thing' })).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Thing',
    });
    expect(tier(object({ storage: {} })).spec).toEqual({ storage: { tier: 'standard' } });
  });

  it('sets a field in each item of a list that is an object, and nothing when the list is not one', () => {
    const version = staticDefault('spec.caches[*].version', '7.2');
    expect(
      version(object({ caches: [{ name: 'a' }, { name: 'b', version: '7.4' }, 'junk', { name: 'c', version: null }] }))
        .spec,
    ).toEqual({
      caches: [{ name: 'a', version: '7.2' }, { name: 'b', version: '7.4' }, 'junk', { name: 'c', version: null }],
    });
    expect(version(object({ caches: { a: {} } })).spec).toEqual({ caches: { a: {} } });
    expect(version(object({})).spec).toEqual({});
    const nested = staticDefault('spec.caches[*].limits.memory', '1Gi');
    expect(nested(object({ caches: [{ limits: {} }, { name: 'b' }] })).spec).toEqual({
      caches: [{ limits: { memory: '1Gi' } }, { name: 'b' }],
    });
  });

  it("makes a label's or an annotation's map when the object has none, and leaves one of another type", () => {
    const team = staticDefault('metadata.labels[example.com/team]', 'maps');
    expect(team(object({})).metadata).toEqual({ name: 'a', labels: { 'example.com/team': 'maps' } });
    expect(team(object({}, { name: 'a', labels: { app: 'x' } })).metadata).toEqual({
      name: 'a',
      labels: { app: 'x', 'example.com/team': 'maps' },
    });
    expect(team(object({}, { name: 'a', labels: { 'example.com/team': 'geo' } })).metadata!.labels).toEqual({
      'example.com/team': 'geo',
    });
    expect(team(object({}, { name: 'a', labels: 'x' })).metadata!.labels).toBe('x');
    const note = staticDefault('metadata.annotations[example.com/note]', 'hello');
    expect(note(object({})).metadata!.annotations).toEqual({ 'example.com/note': 'hello' });
  });

  it('copies on write and gives each object its own copy of the value', () => {
    const caches = staticDefault('spec.caches', []);
    const storage = { size: '1Gi' };
    const input = object({ size: 2, storage });
    const [first, second] = [caches(input), caches(input)];
    expect((first.spec as { storage: unknown }).storage).toBe(storage);
    expect((first.spec as { caches: unknown }).caches).not.toBe((second.spec as { caches: unknown }).caches);
    expect(input.spec).toEqual({ size: 2, storage: { size: '1Gi' } });
    const done = object({ size: 2, caches: [] });
    expect(caches(done)).toBe(done);
  });

  it('carries its form', () => {
    expect(staticDefault('spec.caches[*].version', '7.2').form).toEqual({
      default: 'value',
      path: 'spec.caches[*].version',
      value: '7.2',
    });
  });
});

describe('derivedDefault', () => {
  const major = derivedDefault('metadata.labels[example.com/major]', {
    from: 'spec.version',
    compute: 'release-major',
    keepInStep: true,
  });

  it('release-major: the digits before the first dot of a release, as written', () => {
    const label = (version: unknown) => major(object({ version })).metadata?.labels?.['example.com/major'];
    expect(label('16.4')).toBe('16');
    expect(label('16')).toBe('16');
    expect(label('0.9.1')).toBe('0');
    expect(label('123456789012345678901.2')).toBe('123456789012345678901');
    for (const unreadable of ['16.04', 'v16', '', '16.', '.4', '016.1', 16, null, undefined])
      expect(label(unreadable), String(unreadable)).toBeUndefined();
  });

  it('kept in step: rewrites a value that differs; without keepInStep, fills an absent one only', () => {
    const labelled = object({ version: '17.1' }, { name: 'a', labels: { 'example.com/major': '16' } });
    expect(major(labelled).metadata!.labels).toEqual({ 'example.com/major': '17' });
    const same = object({ version: '16.1' }, { name: 'a', labels: { 'example.com/major': '16' } });
    expect(major(same)).toBe(same);
    const onlyAbsent = derivedDefault('metadata.labels[example.com/major]', {
      from: 'spec.version',
      compute: 'release-major',
    });
    expect(onlyAbsent(labelled).metadata!.labels).toEqual({ 'example.com/major': '16' });
    expect(onlyAbsent.form).toEqual({
      default: 'derived',
      path: 'metadata.labels[example.com/major]',
      from: 'spec.version',
      compute: 'release-major',
      keepInStep: false,
    });
  });

  it('copy: the value as it is, into a spec field whose parent is there', () => {
    const copy = derivedDefault('spec.status.size', { from: 'spec.size', compute: 'copy' });
    expect(copy(object({ size: { a: [1] }, status: {} })).spec).toEqual({
      size: { a: [1] },
      status: { size: { a: [1] } },
    });
    expect(copy(object({ size: 3 })).spec).toEqual({ size: 3 });
    expect(copy(object({ status: {} })).spec).toEqual({ status: {} });
  });
});

describe('a list of defaulters', () => {
  it('applies each to what the one before returned, in order', () => {
    const defaulter = contractDefaulter({
      defaults: [
        staticDefault('spec.caches', []),
        (thing) => ({
          ...thing,
          spec: { ...(thing.spec as object), seen: (thing.spec as { caches?: unknown }).caches },
        }),
      ],
    })!;
    expect(defaulter(object({})).spec).toEqual({ caches: [], seen: [] });
    expect(contractDefaulter({})).toBeUndefined();
  });
});
