import { describe, expect, it } from 'vitest';
import { checkPhaseMove } from './check-phase-move.ts';
import { toyMachine } from './toy-machine.fixture.ts';

describe('checkPhaseMove', () => {
  it.each([
    ['an operator move', 'Draft', 'Active'],
    ['the next state of an allowed change', 'Active', 'Busy'],
    ['staying put', 'Busy', 'Busy'],
    ['leaving the initial state when no phase was recorded', undefined, 'Active'],
  ])('expects %s', (_, from, to) => {
    expect(checkPhaseMove(toyMachine, from, to)).toEqual({ expected: true });
  });

  it('flags a move the machine does not know, naming the expected ones', () => {
    const check = checkPhaseMove(toyMachine, 'Busy', 'Draft');
    expect(check.expected).toBe(false);
    expect(check).toMatchObject({ message: expect.stringContaining('(from Busy: Active, Broken)') });
  });

  it('flags a move out of a human-intervention state, which only a person makes', () => {
    expect(checkPhaseMove(toyMachine, 'Broken', 'Active').expected).toBe(false);
  });

  it('flags a phase that is not a state', () => {
    expect(checkPhaseMove(toyMachine, 'Active', 'Exploded')).toMatchObject({ expected: false, message: expect.stringContaining('"Exploded"') });
    expect(checkPhaseMove(toyMachine, { phase: 1 }, 'Active').expected).toBe(false);
  });
});
