import { describe, expect, it } from 'vitest';
import { contractReadsProblems, readKeysOf, readView, withUnreadParts } from './contract-reads.ts';
import type { KubeObject } from './values/kube-object.ts';

const stored = (): KubeObject => ({
  apiVersion: 'example.com/v1',
  kind: 'Queue',
  metadata: {
    name: 'orders',
    namespace: 'shop',
    uid: 'u-1',
    resourceVersion: '7',
    generation: 2,
    labels: { team: 'shop', 'example.com/tier': 'gold' },
    annotations: { note: 'hello', 'example.com/size-hint': 'big' },
    finalizers: ['example.com/drain'],
    ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: 'c' }],
    managedFields: [{ manager: 'kubectl' }],
  },
  spec: { size: 3 },
  status: { phase: 'Ready' },
});

const narrow = readKeysOf({ reads: { labels: ['example.com/tier'], annotations: [], status: false } });

describe('readView', () => {
  it("shows the contract's code the spec, the object's identity and what it declares, never the bookkeeping", () => {
    const object = stored();
    const view = readView(narrow, object);
    expect(view).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Queue',
      metadata: {
        name: 'orders',
        namespace: 'shop',
        uid: 'u-1',
        generation: 2,
        labels: { 'example.com/tier': 'gold' },
      },
      spec: { size: 3 },
    });
    // The spec itself, not a copy: defaults that change nothing return what they were given.
    expect(view.spec).toBe(object.spec);
  });

  it('shows every label and annotation and the status when the contract declares nothing', () => {
    const { metadata } = readView(readKeysOf({}), stored());
    expect(Object.keys(metadata!).sort()).toEqual(['annotations', 'generation', 'labels', 'name', 'namespace', 'uid']);
    expect(readView(readKeysOf({}), stored()).status).toEqual({ phase: 'Ready' });
  });
});

describe('withUnreadParts', () => {
  it('puts back what the view left out, and takes the declared parts as the defaults left them', () => {
    const original = stored();
    const view = readView(narrow, original);
    const defaulted = {
      ...view,
      spec: { size: 3, mode: 'fifo' },
      metadata: { ...view.metadata, labels: { 'example.com/tier': 'silver' } },
    };
    const merged = withUnreadParts(narrow, original, view, defaulted);
    expect(merged.spec).toEqual({ size: 3, mode: 'fifo' });
    expect(merged.status).toEqual({ phase: 'Ready' });
    expect(merged.metadata).toEqual({ ...original.metadata, labels: { team: 'shop', 'example.com/tier': 'silver' } });
  });

  it('does not apply a default to a label the contract does not declare, and returns the original when nothing changed', () => {
    const original = stored();
    const view = readView(narrow, original);
    const sneaky = {
      ...view,
      metadata: { ...view.metadata, labels: { ...view.metadata!.labels, team: 'other', extra: 'x' } },
    };
    expect(withUnreadParts(narrow, original, view, sneaky).metadata!.labels).toEqual({
      team: 'shop',
      'example.com/tier': 'gold',
    });
    expect(withUnreadParts(narrow, original, view, view)).toBe(original);
  });

  it('adds a declared label to an object that had none', () => {
    const { labels: _none, ...metadata } = stored().metadata!;
    const original = { ...stored(), metadata };
    const view = readView(narrow, original);
    const merged = withUnreadParts(narrow, original, view, {
      ...view,
      metadata: { ...view.metadata, labels: { 'example.com/tier': 'gold' } },
    });
    expect(merged.metadata!.labels).toEqual({ 'example.com/tier': 'gold' });
    expect(withUnreadParts(narrow, original, view, { ...view, spec: { size: 4 } }).metadata).not.toHaveProperty(
      'labels',
    );
  });
});

describe('contractReadsProblems', () => {
  it('names every key that is not a label or annotation key', () => {
    expect(contractReadsProblems({ labels: ['ok', 'bad key'], annotations: ['example.com/fine', '/nothing'] })).toEqual(
      [
        expect.stringContaining('reads.labels: "bad key" must be a qualified name'),
        expect.stringContaining('reads.annotations: "/nothing" must be a qualified name'),
      ],
    );
    expect(contractReadsProblems({ labels: [], annotations: [], status: false })).toEqual([]);
  });
});
