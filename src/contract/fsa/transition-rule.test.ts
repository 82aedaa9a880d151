import { describe, expect, it } from 'vitest';
import { toyMachine, widget } from './toy-machine.fixture.ts';
import { transitionRule } from './transition-rule.ts';

describe('transitionRule', () => {
  const rule = transitionRule(toyMachine);

  it('turns denials into forbidden field errors', () => {
    const verdict = rule({ oldObject: widget({ size: 3 }, 'Active'), object: widget({ size: 2 }, 'Active') });
    expect(verdict.forbidden).toEqual([expect.objectContaining({ field: 'spec.size', type: 'FieldValueForbidden' })]);
    expect(verdict.warnings).toEqual([]);
    expect(verdict.auditAnnotations).toEqual({});
  });

  it('passes on the override\'s warning and audit annotation', () => {
    const object = widget({ size: 2 }, 'Busy', { 'toy.example.com/override-transitions': 'ticket 42' });
    const verdict = rule({ oldObject: widget({ size: 1 }, 'Busy'), object });
    expect(verdict.forbidden).toEqual([]);
    expect(verdict.warnings).toHaveLength(1);
    expect(Object.keys(verdict.auditAnnotations)).toEqual(['override-transitions']);
  });
});
