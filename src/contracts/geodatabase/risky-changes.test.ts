import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maxRiskWarnings, riskyChangeWarnings } from './risky-changes.ts';

function warnings(oldSpec: unknown, newSpec: unknown): string[] {
  return riskyChangeWarnings({ oldObject: { spec: oldSpec }, object: { spec: newSpec } }).warnings;
}

const cache = (name: string) => ({ name, memory: '1Gi' });

describe('riskyChangeWarnings', () => {
  it('warns about fewer read replicas', () => {
    expect(warnings({ readReplicas: 3 }, { readReplicas: 1 })).toEqual([
      'spec.readReplicas: reducing read replicas from 3 to 1',
    ]);
    expect(warnings({ readReplicas: 3 }, {})).toEqual(['spec.readReplicas: reducing read replicas from 3 to 0']);
  });

  it('warns about removing a cache, whose data goes with it', () => {
    expect(warnings({ caches: [cache('tiles'), cache('sessions')] }, { caches: [cache('sessions')] })).toEqual([
      'spec.caches: removing cache "tiles" deletes its data',
    ]);
  });

  it('says nothing about growing, adding, reordering or resizing', () => {
    expect(
      warnings(
        { readReplicas: 1, caches: [cache('a')] },
        { readReplicas: 2, caches: [cache('b'), { name: 'a', memory: '2Gi' }] },
      ),
    ).toEqual([]);
    expect(warnings({}, { readReplicas: 0, caches: [] })).toEqual([]);
  });

  it('never refuses and never audits', () => {
    const findings = riskyChangeWarnings({ oldObject: { spec: { readReplicas: 3 } }, object: { spec: {} } });
    expect(findings.forbidden).toEqual([]);
    expect(findings.auditAnnotations).toEqual({});
  });

  it(`shows at most ${maxRiskWarnings} warnings and counts the rest`, () => {
    const many = Array.from({ length: 10 }, (_, i) => cache(`c${i}`));
    const shown = warnings({ readReplicas: 5, caches: many }, { readReplicas: 1, caches: [] });
    expect(shown).toHaveLength(maxRiskWarnings);
    expect(shown.at(-1)).toBe(`and ${11 - (maxRiskWarnings - 1)} more risky changes`);
  });

  it('keeps warnings short and plain whatever the old object held', () => {
    const hostileName = fc.string({ unit: 'binary', maxLength: 500 });
    fc.assert(
      fc.property(fc.array(hostileName, { maxLength: 10 }), fc.jsonValue(), (names, junk) => {
        for (const warning of [
          ...warnings({ caches: names.map(cache), readReplicas: 2 ** 40 }, { readReplicas: -1 }),
          ...warnings(junk, junk),
        ]) {
          expect(warning.length).toBeLessThan(120);
          expect(warning).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
        }
      }),
      { numRuns: 500 },
    );
  });
});
