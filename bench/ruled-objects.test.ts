import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { judge, loadCrd } from '../src/api-server-engine/engine.ts';
import { ruledObject } from './ruled-objects.ts';

// The bench's Ruleds must stay what its figures claim: every one allowed (a refusal is a cheaper path, and the bench
// stops on one), and every field the CRD declares set, so that every rule runs. When someone adds a field or a rule
// to the Ruled fixture kind, this says the generator has to follow before the bench does.
const crd = parse(
  readFileSync(
    fileURLToPath(
      new URL('../test/fixtures/controller-gen/crds/shapes.fixtures.crdgate.example.com_ruleds.yaml', import.meta.url),
    ),
    'utf8',
  ),
) as {
  spec: {
    versions: Array<{ schema: { openAPIV3Schema: { properties: { spec: { properties: Record<string, unknown> } } } } }>;
  };
};

describe("the bench's Ruled objects", () => {
  const engineCrd = loadCrd(crd);

  it('are allowed, as creates and as updates from their previous revision', () => {
    // Twelve cover each alternation of the generator (every 2nd, 3rd and 4th object differ); the whole engine
    // pipeline per object is slow enough on a shared machine that more would only add time.
    for (let n = 0; n < 12; n += 1) {
      const created = judge(engineCrd, { operation: 'CREATE', object: ruledObject(n, 'new') });
      expect(created.causes, `ruled-${n}`).toEqual([]);
      expect(created.allowed).toBe(true);
      const updated = judge(engineCrd, {
        operation: 'UPDATE',
        object: ruledObject(n, 'new'),
        oldObject: ruledObject(n, 'old'),
      });
      expect(updated.causes, `ruled-${n} (update)`).toEqual([]);
      expect(updated.allowed).toBe(true);
    }
  }, 60_000);

  it('set every field of the spec the CRD declares, so that every rule runs', () => {
    const declared = Object.keys(crd.spec.versions[0]!.schema.openAPIV3Schema.properties.spec.properties).sort();
    const set = new Set<string>();
    for (let n = 0; n < 10; n += 1)
      for (const key of Object.keys((ruledObject(n, 'new') as { spec: object }).spec)) set.add(key);
    // tier is left to its default for some objects and set for others; imageRef and image alternate (they exclude
    // each other), as do minAvailable and maxUnavailable.
    expect([...set].sort()).toEqual(declared);
  });

  it('differ from their previous revision where the transition rules judge a change, within those rules', () => {
    const changed = judge(engineCrd, {
      operation: 'UPDATE',
      object: ruledObject(0, 'new'),
      oldObject: ruledObject(0, 'old'),
    });
    expect(changed.allowed).toBe(true);
    expect(ruledObject(0, 'old')).not.toEqual(ruledObject(0, 'new'));
    // The same change the other way round breaks the transition rules (size shrinks, startAt moves back, a port is
    // removed): proof that those rules run on these updates.
    const reversed = judge(engineCrd, {
      operation: 'UPDATE',
      object: ruledObject(0, 'old'),
      oldObject: ruledObject(0, 'new'),
    });
    expect(reversed.causes.map((cause) => cause.field).sort()).toEqual(['spec.ports', 'spec.size', 'spec.startAt']);
  });
});
