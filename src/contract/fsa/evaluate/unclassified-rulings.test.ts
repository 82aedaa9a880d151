import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFieldError } from '../../values/field-error.ts';
import { checkMachine } from '../check-machine.ts';
import type { Fsa, UnclassifiedChanges } from '../machine.ts';
import { toyMachine, widget, type ToyChange, type ToyState } from '../toy-machine.fixture.ts';
import { unclassifiedChangesNamed } from '../unclassified-changes.ts';
import { unclassifiedChangesInUnrecognisedPhase } from '../unclassified-setting.ts';
import { evaluateTransition } from './evaluate-transition.ts';

// The toy machine classifies size, label and color; `paused` and `notes` are fields no change kind names. Here it
// refuses them unless overridden by default, allows them while Active, and refuses them outright while Busy.
const machine: Fsa<ToyState, ToyChange> = {
  ...toyMachine,
  unclassifiedChanges: 'refused-unless-overridden',
  rules: {
    ...toyMachine.rules,
    Active: { ...toyMachine.rules.Active, unclassifiedChanges: 'allowed' },
    Busy: { ...toyMachine.rules.Busy, unclassifiedChanges: 'refused' },
  },
};
const override = { 'toy.example.com/override-transitions': 'INC-7: the vendor asked' };

function evaluate(
  oldSpec: Record<string, unknown>,
  newSpec: Record<string, unknown>,
  phase?: string,
  annotations?: Record<string, string>,
  on = machine,
) {
  return evaluateTransition(on, widget(oldSpec, phase), widget(newSpec, phase, annotations));
}

describe('changes no classifier names: the default', () => {
  it('allows them in every state when the machine does not say, as before the setting existed', () => {
    for (const phase of [...toyMachine.states, 'Rebooting']) {
      const decision = evaluate({ paused: false }, { paused: true }, phase, undefined, toyMachine);
      expect(decision.allowed, phase).toBe(true);
      expect(decision.unclassified).toEqual({ ruling: { outcome: 'allowed' }, changes: [], more: 0 });
    }
  });
});

describe('changes no classifier names: per state', () => {
  it('refuses them unless overridden where the machine says so, naming the field, both values and the state', () => {
    const decision = evaluate({ size: 2, paused: false }, { size: 2, paused: true }, 'Broken');
    expect(decision.allowed).toBe(false);
    expect(decision.unclassified).toEqual({
      ruling: { outcome: 'not-allowed' },
      changes: [{ field: 'spec.paused', from: 'false', to: 'true' }],
      more: 0,
    });
    expect(decision.denials.map(formatFieldError)).toEqual([
      'spec.paused: changing false to true is not allowed while the widget is Broken: no change kind names this field (such changes need toy.example.com/override-transitions with a reason)',
    ]);
    expect(decision.auditAnnotations).toEqual({});
  });

  it('lets them through with the override, with a warning and an audit annotation naming each', () => {
    const decision = evaluate({ paused: false, notes: 'a' }, { paused: true }, 'Broken', override);
    expect(decision.allowed).toBe(true);
    expect(decision.unclassified.ruling).toEqual({ outcome: 'overridden' });
    expect(decision.warnings).toEqual([
      'toy.example.com/override-transitions: overriding changes no change kind names while the widget is Broken; reason: "INC-7: the vendor asked"',
    ]);
    expect(decision.auditAnnotations).toEqual({
      'override-transitions':
        'overridden while the widget is Broken: a change no change kind names at spec.paused (changing false to true), a change no change kind names at spec.notes (changing a to (none)); reason: "INC-7: the vendor asked"',
    });
  });

  it('takes an override the stored object carried already for none, and says how to give a new one', () => {
    const stale = evaluateTransition(
      machine,
      widget({ paused: false }, 'Broken', override),
      widget({ paused: true }, 'Broken', override),
    );
    expect(stale.allowed).toBe(false);
    expect(stale.unclassified.ruling).toEqual({ outcome: 'not-allowed' });
    expect(stale.denials.map(formatFieldError)).toEqual([
      expect.stringMatching(
        /^spec\.paused: changing false to true is not allowed while the widget is Broken: no change kind names this field \(such changes need toy\.example\.com\/override-transitions with a reason\); the toy\.example\.com\/override-transitions annotation on the object authorised only the write that set it/,
      ),
    ]);
    const renewed = { 'toy.example.com/override-transitions': 'INC-8: again' };
    expect(
      evaluateTransition(
        machine,
        widget({ paused: false }, 'Broken', override),
        widget({ paused: true }, 'Broken', renewed),
      ).allowed,
    ).toBe(true);
  });

  it('says so when a blank override would have been needed', () => {
    const decision = evaluate({ paused: false }, { paused: true }, 'Broken', {
      'toy.example.com/override-transitions': ' ',
    });
    expect(decision.allowed).toBe(false);
    expect(decision.warnings).toEqual([
      'toy.example.com/override-transitions is set but empty: an override needs a reason',
    ]);
  });

  it('refuses them where the state refuses them, override or not', () => {
    for (const annotations of [undefined, override]) {
      const decision = evaluate({ paused: false }, { paused: true }, 'Busy', annotations);
      expect(decision.allowed).toBe(false);
      expect(decision.unclassified.ruling).toEqual({ outcome: 'refused' });
      expect(decision.denials.map(formatFieldError)).toEqual([
        'spec.paused: changing false to true is refused while the widget is Busy: no change kind names this field (such changes are refused there, override or not)',
      ]);
      expect(decision.warnings).toEqual([]);
    }
  });

  it('allows them where the state allows them, and where any change is allowed whatever the machine says', () => {
    expect(evaluate({ paused: false }, { paused: true }, 'Active')).toMatchObject({
      allowed: true,
      warnings: [],
      unclassified: { ruling: { outcome: 'allowed' } },
    });
    expect(evaluate({ paused: false }, { paused: true }).allowed).toBe(true); // Draft: any change
  });

  it('judges classified changes beside them as before, each with its own denial', () => {
    const decision = evaluate({ size: 2, label: 'a', paused: false }, { size: 3, label: 'b', paused: true }, 'Busy');
    expect(decision.denials.map((denial) => denial.field)).toEqual(['spec.size', 'spec.paused']);
    expect(decision.changes.map(({ ruling }) => ruling.outcome)).toEqual(['not-allowed', 'allowed']);
  });

  it('needs no override for an update whose unclassified changes are none', () => {
    expect(evaluate({ size: 2, paused: true }, { size: 2, paused: true }, 'Busy')).toMatchObject({
      allowed: true,
      unclassified: { changes: [], more: 0 },
    });
  });

  it(`names the first ${unclassifiedChangesNamed} and refuses the rest in one more denial at spec`, () => {
    const spec = (offset: number) =>
      Object.fromEntries(Array.from({ length: 12 }, (_, index) => [`knob${index}`, index + offset]));
    const decision = evaluate(spec(0), spec(1), 'Broken');
    expect(decision.denials).toHaveLength(unclassifiedChangesNamed + 1);
    expect(formatFieldError(decision.denials.at(-1)!)).toBe(
      `spec: ${12 - unclassifiedChangesNamed} more fields that no change kind names changed, which is not allowed while the widget is Broken (such changes need toy.example.com/override-transitions with a reason)`,
    );
    const overridden = evaluate(spec(0), spec(1), 'Broken', override);
    expect(overridden.auditAnnotations['override-transitions']).toContain(
      `, ${12 - unclassifiedChangesNamed} more changes no change kind names;`,
    );
  });
});

describe('changes no classifier names: in a phase the machine does not know', () => {
  const withSettings = (settings: Partial<Record<ToyState, UnclassifiedChanges>>): Fsa<ToyState, ToyChange> => ({
    ...toyMachine,
    rules: Object.fromEntries(
      toyMachine.states.map((state) => [
        state,
        { ...toyMachine.rules[state], ...(settings[state] ? { unclassifiedChanges: settings[state] } : {}) },
      ]),
    ) as never,
  });

  it('refuses them unless overridden when the states that do not allow any change differ, refused or allowed when they agree', () => {
    expect(unclassifiedChangesInUnrecognisedPhase(machine)).toBe('refused-unless-overridden');
    expect(unclassifiedChangesInUnrecognisedPhase(toyMachine)).toBe('allowed');
    expect(unclassifiedChangesInUnrecognisedPhase(withSettings({ Broken: 'refused' }))).toBe(
      'refused-unless-overridden',
    );
    expect(
      unclassifiedChangesInUnrecognisedPhase(
        withSettings({ Active: 'refused', Busy: 'refused', Broken: 'refused', Gone: 'refused' }),
      ),
    ).toBe('refused');
    const decision = evaluate({ paused: false }, { paused: true }, 'Rebooting');
    expect(decision.denials.map(formatFieldError)).toEqual([
      expect.stringContaining(
        'is not allowed while the widget is in the unrecognised phase "Rebooting": no change kind names this field',
      ),
    ]);
    expect(evaluate({ paused: false }, { paused: true }, 'Rebooting', override).allowed).toBe(true);
  });
});

describe('changes no classifier names: hostile specs', () => {
  it('never throws, and refuses exactly when it names a change, whatever the specs hold', () => {
    const spec = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.constantFrom('size', 'label', 'paused', '__proto__', 'constructor'), fc.jsonValue()),
    );
    fc.assert(
      fc.property(spec, spec, fc.constantFrom('Broken', 'Busy', 'Rebooting'), (oldSpec, newSpec, phase) => {
        const decision = evaluateTransition(
          machine,
          { spec: oldSpec, status: { phase } } as never,
          { spec: newSpec } as never,
        );
        const unclassified = decision.unclassified.changes.length + decision.unclassified.more;
        expect(decision.denials.length).toBe(
          decision.changes.filter(({ ruling }) => ruling.outcome !== 'allowed').length +
            Math.min(unclassified, unclassifiedChangesNamed) +
            (decision.unclassified.more > 0 ? 1 : 0),
        );
      }),
      { numRuns: 1000 },
    );
  });
});

describe('changes no classifier names: the self-check', () => {
  it('refuses a setting that is none of the three, naming where it is', () => {
    const wrong = {
      ...machine,
      unclassifiedChanges: 'denied' as never,
      rules: { ...machine.rules, Gone: { unclassifiedChanges: 'no' as never } },
    };
    expect(checkMachine(wrong)).toEqual([
      "unclassifiedChanges must be 'allowed', 'refused' or 'refused-unless-overridden', got \"denied\"",
      "rules.Gone.unclassifiedChanges must be 'allowed', 'refused' or 'refused-unless-overridden', got \"no\"",
    ]);
  });

  it('refuses one on a state that allows any change, where it could never apply', () => {
    const wrong = {
      ...machine,
      rules: { ...machine.rules, Draft: { ...machine.rules.Draft, unclassifiedChanges: 'refused' as const } },
    };
    expect(checkMachine(wrong)).toEqual([
      'state Draft allows any change, so its unclassifiedChanges refused never applies: leave it out',
    ]);
    expect(checkMachine(machine)).toEqual([]);
  });
});
