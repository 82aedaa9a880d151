import { describe, expect, it } from 'vitest';
import { describeChange, stateLabel } from './transition-messages.ts';
import { toyMachine } from '../toy-machine.fixture.ts';

describe('describeChange', () => {
  it("fills the placeholders of the kind's description", () => {
    expect(describeChange(toyMachine, { kind: 'size.up', field: 'spec.size', from: '1', to: '2' })).toBe(
      'growing from 1 to 2',
    );
  });

  it('shows an absent side as (none)', () => {
    expect(describeChange(toyMachine, { kind: 'label', field: 'spec.label', to: 'x' })).toBe(
      'relabelling from (none) to x',
    );
  });

  it('falls back to the kind for a kind the machine does not define', () => {
    expect(describeChange(toyMachine, { kind: 'paint' as never, field: 'spec.paint' })).toBe('paint');
  });
});

describe('stateLabel', () => {
  it('completes "while the widget is ..."', () => {
    expect(stateLabel({ recognised: true, state: 'Busy' })).toBe('Busy');
    expect(stateLabel({ recognised: false, phase: '"Rebooting"' })).toBe('in the unrecognised phase "Rebooting"');
  });
});
