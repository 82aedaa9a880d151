import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatFieldError } from '../../values/field-error.ts';
import { evaluateTransition, transitionRule } from './evaluate-transition.ts';
import { toyMachine, toyOverrideOnlyMachine, widget } from '../toy-machine.fixture.ts';
import { whenDifferent } from '../comparisons.ts';
import { fieldClassifier } from '../field-classifier.ts';
import { cannotRead } from '../value-readers.ts';

const override = { 'toy.example.com/override-transitions': 'vendor asked for it' };

function evaluate(
  oldSpec: Record<string, unknown>,
  newSpec: Record<string, unknown>,
  phase?: string,
  annotations?: Record<string, string>,
) {
  return evaluateTransition(toyMachine, widget(oldSpec, phase), widget(newSpec, phase, annotations));
}

describe('evaluateTransition: state', () => {
  it("reads the state from the old object's phase", () => {
    expect(evaluate({}, {}, 'Busy').state).toEqual({ recognised: true, state: 'Busy' });
  });

  it('takes an absent phase for the initial state', () => {
    expect(evaluate({}, {}).state).toEqual({ recognised: true, state: 'Draft' });
  });

  it('takes a started deletion for the deleting state, whatever the phase says', () => {
    const old = {
      ...widget({ size: 1 }, 'Active'),
      metadata: { name: 'w', deletionTimestamp: '2025-01-01T00:00:00Z' },
    };
    const decision = evaluateTransition(toyMachine, old, widget({ size: 1, label: 'x' }, 'Active'));
    expect(decision.state).toEqual({ recognised: true, state: 'Gone' });
    expect(decision.changes[0]?.ruling).toEqual({ outcome: 'not-allowed', allowedIn: ['Active', 'Busy'] });
  });

  it('lets nothing through in an unrecognised phase', () => {
    const decision = evaluate({ label: 'a' }, { label: 'b' }, 'Rebooting');
    expect(decision.state).toEqual({ recognised: false, phase: '"Rebooting"' });
    expect(decision.allowed).toBe(false);
    expect(decision.denials[0]?.message).toContain('in the unrecognised phase "Rebooting"');
  });
});

describe('evaluateTransition: rulings', () => {
  it('allows a change the state allows and names the next state', () => {
    const decision = evaluate({ size: 1 }, { size: 2 }, 'Active');
    expect(decision.allowed).toBe(true);
    expect(decision.changes).toEqual([
      {
        change: { kind: 'size.up', field: 'spec.size', from: '1', to: '2' },
        ruling: { outcome: 'allowed', nextState: 'Busy' },
      },
    ]);
    expect(decision.denials).toEqual([]);
    expect(decision.warnings).toEqual([]);
  });

  it('keeps the state for a change allowed without a next state', () => {
    expect(evaluate({ label: 'a' }, { label: 'b' }, 'Busy').changes[0]?.ruling).toEqual({
      outcome: 'allowed',
      nextState: 'Busy',
    });
  });

  it('refuses a change the state does not allow, saying where it is allowed', () => {
    const decision = evaluate({ size: 1 }, { size: 2 }, 'Busy');
    expect(decision.allowed).toBe(false);
    expect(decision.changes[0]?.ruling).toEqual({ outcome: 'not-allowed', allowedIn: ['Active'] });
    expect(decision.denials).toEqual([
      {
        field: 'spec.size',
        type: 'FieldValueForbidden',
        message: 'growing from 1 to 2 is not allowed while the widget is Busy (allowed in: Active)',
      },
    ]);
  });

  it('refuses an unsupported change with its reason', () => {
    const decision = evaluate({ size: 3 }, { size: 2 }, 'Active');
    expect(decision.changes[0]?.ruling).toEqual({ outcome: 'unsupported', reason: 'widgets cannot shrink' });
    expect(decision.denials.map(formatFieldError)).toEqual([
      'spec.size: shrinking from 3 to 2 is unsupported: widgets cannot shrink',
    ]);
  });

  it('judges each change of an update on its own', () => {
    const decision = evaluate({ size: 3, label: 'a' }, { size: 2, label: 'b' }, 'Active');
    expect(decision.changes.map(({ change, ruling }) => [change.kind, ruling.outcome])).toEqual([
      ['size.down', 'unsupported'],
      ['label', 'allowed'],
    ]);
    expect(decision.denials.map((denial) => denial.field)).toEqual(['spec.size']);
  });

  it('refuses two exclusive changes in one update, each naming the other', () => {
    const decision = evaluate({ size: 1, color: 'red' }, { size: 2, color: 'blue' }, 'Active');
    expect(decision.changes.map(({ ruling }) => ruling.outcome)).toEqual(['exclusive-conflict', 'exclusive-conflict']);
    expect(decision.denials.map((denial) => denial.field)).toEqual(['spec.size', 'spec.color']);
    expect(decision.denials[0]?.message).toContain('color (spec.color)');
    expect(decision.denials[1]?.message).toContain('size.up (spec.size)');
  });

  it('allows an exclusive change next to a non-exclusive one', () => {
    expect(evaluate({ size: 1, label: 'a' }, { size: 2, label: 'b' }, 'Active').allowed).toBe(true);
  });

  it('does not count an exclusive change that is refused anyway as a conflict', () => {
    // Busy allows neither: both are "not allowed", which is the more useful thing to say.
    const decision = evaluate({ size: 1, color: 'red' }, { size: 2, color: 'blue' }, 'Busy');
    expect(decision.changes.map(({ ruling }) => ruling.outcome)).toEqual(['not-allowed', 'not-allowed']);
  });

  it('allows anything, unsupported and combined exclusive changes included, where any change is allowed', () => {
    const decision = evaluate({ size: 3, color: 'red' }, { size: 9, color: 'blue' });
    expect(decision.allowed).toBe(true);
    const shrink = evaluate({ size: 3 }, { size: 2 });
    expect(shrink.changes[0]?.ruling).toEqual({ outcome: 'allowed', nextState: 'Draft' });
  });

  it('sees no change when the default is written out', () => {
    expect(evaluate({}, { size: 1 }, 'Broken').changes).toEqual([]);
  });

  it('allows an update without spec changes in every state', () => {
    for (const state of toyMachine.states) {
      expect(evaluate({ size: 2, label: 'a' }, { size: 2, label: 'a' }, state)).toMatchObject({
        allowed: true,
        changes: [],
        warnings: [],
      });
    }
  });
});

describe('evaluateTransition: override', () => {
  it('lets a supported change through a state that forbids it, with a warning and an audit annotation', () => {
    const decision = evaluate({ size: 1 }, { size: 2 }, 'Broken', override);
    expect(decision.allowed).toBe(true);
    expect(decision.changes[0]?.ruling).toEqual({ outcome: 'overridden', allowedIn: ['Active'] });
    expect(decision.warnings).toHaveLength(1);
    expect(decision.warnings[0]).toMatch(
      /^toy\.example\.com\/override-transitions: overriding size\.up while the widget is Broken; reason: "vendor asked for it"$/,
    );
    expect(Object.keys(decision.auditAnnotations)).toEqual(['override-transitions']);
    expect(decision.auditAnnotations['override-transitions']).toContain('size.up at spec.size (growing from 1 to 2)');
    expect(decision.auditAnnotations['override-transitions']).toContain('"vendor asked for it"');
  });

  it('never lifts an unsupported change, and then leaves no override trace', () => {
    const decision = evaluate({ size: 3 }, { size: 2 }, 'Broken', override);
    expect(decision.changes[0]?.ruling.outcome).toBe('unsupported');
    expect(decision).toMatchObject({ allowed: false, warnings: [] });
    // Exactly none: toMatchObject would take any object for `{}`.
    expect(decision.auditAnnotations).toEqual({});
  });

  it('does not lift an exclusive conflict', () => {
    const decision = evaluate({ size: 1, color: 'red' }, { size: 2, color: 'blue' }, 'Busy', override);
    expect(decision.changes.map(({ ruling }) => ruling.outcome)).toEqual(['exclusive-conflict', 'exclusive-conflict']);
    expect(decision.allowed).toBe(false);
  });

  it('lifts changes in an unrecognised phase', () => {
    expect(evaluate({ label: 'a' }, { label: 'b' }, 'Rebooting', override).allowed).toBe(true);
  });

  it('reads the override from the new object only', () => {
    const decision = evaluateTransition(toyMachine, widget({ size: 1 }, 'Busy', override), widget({ size: 2 }, 'Busy'));
    expect(decision.allowed).toBe(false);
  });

  it('counts only on the write that sets it: one the stored object carried already authorises nothing, and the refusal says why', () => {
    const decision = evaluateTransition(
      toyMachine,
      widget({ size: 1 }, 'Busy', override),
      widget({ size: 2 }, 'Busy', override),
    );
    expect(decision.override).toEqual({ given: false, why: 'stale' });
    expect(decision.allowed).toBe(false);
    expect(decision.denials.map(formatFieldError)).toEqual([
      'spec.size: growing from 1 to 2 is not allowed while the widget is Busy (allowed in: Active); the toy.example.com/override-transitions annotation on ' +
        'the object authorised only the write that set it: to override this change, give the annotation a new reason in the write that makes it',
    ]);
    expect(decision.warnings).toEqual([]);
    expect(decision.auditAnnotations).toEqual({});
  });

  it('counts again when the write gives it a new reason', () => {
    const renewed = { 'toy.example.com/override-transitions': 'vendor asked again' };
    const decision = evaluateTransition(
      toyMachine,
      widget({ size: 1 }, 'Busy', override),
      widget({ size: 2 }, 'Busy', renewed),
    );
    expect(decision.allowed).toBe(true);
    expect(decision.auditAnnotations['override-transitions']).toContain('"vendor asked again"');
  });

  it('lets nothing new through when the write removes it', () => {
    const decision = evaluateTransition(toyMachine, widget({ size: 1 }, 'Busy', override), widget({ size: 2 }, 'Busy'));
    expect(decision.override).toEqual({ given: false, why: 'absent' });
    expect(decision.allowed).toBe(false);
    expect(decision.denials.map(formatFieldError)).toEqual([
      'spec.size: growing from 1 to 2 is not allowed while the widget is Busy (allowed in: Active)',
    ]);
  });

  it('says nothing of a stale override when nothing needed one', () => {
    const decision = evaluateTransition(
      toyMachine,
      widget({ label: 'a' }, 'Busy', override),
      widget({ label: 'b' }, 'Busy', override),
    );
    expect(decision).toMatchObject({ allowed: true, warnings: [] });
    expect(decision.auditAnnotations).toEqual({});
  });

  it('ignores a blank reason and says so when it mattered', () => {
    const decision = evaluate({ size: 1 }, { size: 2 }, 'Busy', { 'toy.example.com/override-transitions': '  ' });
    expect(decision.allowed).toBe(false);
    expect(decision.override).toEqual({ given: false, why: 'blank' });
    expect(decision.warnings).toEqual([expect.stringContaining('empty')]);
  });

  it('points out an override the update does not need', () => {
    const decision = evaluate({ label: 'a' }, { label: 'b' }, 'Active', override);
    expect(decision.allowed).toBe(true);
    expect(decision.warnings).toEqual([expect.stringContaining('needs no override')]);
    expect(decision.auditAnnotations).toEqual({});
  });

  it('keeps a hostile reason out of warnings as control characters and length', () => {
    const reason = `line one\nline two\u0007${'x'.repeat(5000)}`;
    const decision = evaluate({ size: 1 }, { size: 2 }, 'Busy', { 'toy.example.com/override-transitions': reason });
    expect(decision.warnings[0]).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(decision.warnings[0]!.length).toBeLessThan(256);
    expect(decision.auditAnnotations['override-transitions']!.length).toBeLessThan(1024);
  });
});

describe('evaluateTransition: untrusted input', () => {
  it('never throws, whatever the objects hold', () => {
    const junkObject = fc.oneof(
      fc.record({ spec: fc.jsonValue(), status: fc.jsonValue(), metadata: fc.jsonValue() }, { requiredKeys: [] }),
      fc.record({
        spec: fc.dictionary(fc.constantFrom('size', 'label', 'color'), fc.jsonValue()),
        status: fc.record({ phase: fc.jsonValue() }),
      }),
    );
    fc.assert(
      fc.property(junkObject, junkObject, (oldObject, newObject) => {
        const decision = evaluateTransition(toyMachine, oldObject as never, newObject as never);
        expect(decision.allowed).toBe(decision.denials.length === 0);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('transitionRule', () => {
  const rule = transitionRule(toyMachine);

  it('turns denials into forbidden field errors', () => {
    const findings = rule({ oldObject: widget({ size: 3 }, 'Active'), object: widget({ size: 2 }, 'Active') }, {});
    expect(findings.forbidden).toEqual([expect.objectContaining({ field: 'spec.size', type: 'FieldValueForbidden' })]);
    expect(findings.warnings).toEqual([]);
    expect(findings.auditAnnotations).toEqual({});
  });

  it('judges an old object that records no state in the state assumed for it, and one that records a state in that', () => {
    const grow = { oldObject: widget({ size: 1 }), object: widget({ size: 2 }) };
    expect(rule(grow, {}).forbidden).toEqual([]);
    expect(rule(grow, { assumedState: 'Busy' }).forbidden.map(formatFieldError)).toEqual([
      'spec.size: growing from 1 to 2 is not allowed while the widget is Busy (allowed in: Active)',
    ]);
    expect(
      rule(
        { oldObject: widget({ size: 1 }, 'Active'), object: widget({ size: 2 }, 'Active') },
        { assumedState: 'Busy' },
      ).forbidden,
    ).toEqual([]);
  });

  it("passes on the override's warning and audit annotation", () => {
    const object = widget({ size: 2 }, 'Busy', { 'toy.example.com/override-transitions': 'ticket 42' });
    const findings = rule({ oldObject: widget({ size: 1 }, 'Busy'), object }, {});
    expect(findings.forbidden).toEqual([]);
    expect(findings.warnings).toHaveLength(1);
    expect(Object.keys(findings.auditAnnotations)).toEqual(['override-transitions']);
  });
});

describe('evaluateTransition: a change that cannot be judged', () => {
  const readTagged = (raw: unknown) =>
    typeof raw !== 'string' ? undefined : raw.startsWith('v') ? raw : cannotRead(`${raw} is not a tagged value`);
  const machine = {
    ...toyMachine,
    classifiers: [
      ...toyMachine.classifiers.filter((c) => !c.kinds.includes('label')),
      fieldClassifier({ path: 'label', read: readTagged, compare: whenDifferent('label') }),
    ],
  };
  const run = (
    oldSpec: Record<string, unknown>,
    newSpec: Record<string, unknown>,
    phase?: string,
    annotations?: Record<string, string>,
  ) => evaluateTransition(machine, widget(oldSpec, phase), widget(newSpec, phase, annotations));

  it('refuses it as undecidable with the field and the values, even where its kind would be allowed', () => {
    const decision = run({ label: 'v1' }, { label: 'sha256:abc' }, 'Active');
    expect(decision.changes[0]?.ruling).toEqual({ outcome: 'undecidable', reason: 'sha256:abc is not a tagged value' });
    expect(decision.denials.map(formatFieldError)).toEqual([
      'spec.label: changing v1 to sha256:abc cannot be judged: sha256:abc is not a tagged value; it is refused while the widget is Active unless toy.example.com/override-transitions gives a reason',
    ]);
  });

  it('lets it through with the override, saying what was overridden, and where any change goes', () => {
    const overridden = run({ label: 'v1' }, { label: 'sha256:abc' }, 'Active', override);
    expect(overridden.allowed).toBe(true);
    expect(overridden.warnings[0]).toContain(
      'overriding an undecidable change of spec.label while the widget is Active',
    );
    expect(run({ label: 'v1' }, { label: 'sha256:abc' }).allowed).toBe(true);
  });
});

describe('evaluateTransition: an override-only change kind', () => {
  const repaint = (
    phase: string | undefined,
    annotations?: Record<string, string>,
    oldAnnotations?: Record<string, string>,
  ) =>
    evaluateTransition(
      toyOverrideOnlyMachine,
      widget({ color: 'red' }, phase, oldAnnotations),
      widget({ color: 'blue' }, phase, annotations),
    );

  it.each(['Active', 'Busy', 'Broken', 'Rebooting'])(
    'refuses it in %s without a reason, naming the reason it needs one and the annotation that gives it',
    (phase) => {
      const decision = repaint(phase);
      expect(decision.allowed).toBe(false);
      expect(decision.changes.map((judged) => judged.ruling)).toEqual([
        { outcome: 'override-only', reason: 'the paint shop closes' },
      ]);
      expect(decision.denials).toEqual([
        {
          field: 'spec.color',
          type: 'FieldValueForbidden',
          message:
            "repainting from red to blue needs a person's reason in every state: the paint shop closes; give one in the annotation toy.example.com/override-transitions, in the write that makes the change",
        },
      ]);
    },
  );

  it('lets it through with a reason in every state, with the warning and audit annotation of an override', () => {
    for (const phase of ['Active', 'Busy', 'Broken']) {
      const decision = repaint(phase, override);
      expect(decision.allowed, phase).toBe(true);
      expect(decision.changes[0]?.ruling).toEqual({ outcome: 'overridden', allowedIn: [] });
      expect(decision.warnings[0]).toContain(`overriding color while the widget is ${phase}`);
      expect(decision.auditAnnotations['override-transitions']).toContain('color at spec.color');
    }
  });

  it('lets it through without one where any change is, as an unsupported change', () => {
    expect(repaint(undefined).allowed).toBe(true);
  });

  it('refuses it under a stale override, saying so, and warns of a blank one', () => {
    const stale = repaint('Active', override, override);
    expect(stale.allowed).toBe(false);
    expect(stale.denials[0]?.message).toMatch(/needs a person's reason.*authorised only the write that set it/);
    const blank = repaint('Active', { 'toy.example.com/override-transitions': ' ' });
    expect(blank.warnings).toEqual([
      'toy.example.com/override-transitions is set but empty: an override needs a reason',
    ]);
  });
});

describe('evaluateTransition: absent and empty values in messages', () => {
  it('shows an absent value as (none) and the empty string as "", never a blank or undefined', () => {
    const relabel = evaluate({ label: '' }, {}, 'Broken');
    expect(relabel.denials.map((denial) => denial.message)).toEqual([
      'relabelling from "" to (none) is not allowed while the widget is Broken (allowed in: Active, Busy)',
    ]);
    const strict = { ...toyMachine, unclassifiedChanges: 'refused' as const };
    const unclassified = evaluateTransition(strict, widget({}, 'Active'), widget({ notes: '' }, 'Active'));
    expect(unclassified.denials.map((denial) => denial.message)).toEqual([
      'changing (none) to "" is refused while the widget is Active: no change kind names this field (such changes are refused there, override or not)',
    ]);
  });
});
