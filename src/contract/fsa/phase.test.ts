import { describe, expect, it } from 'vitest';
import { checkPhaseMove, readPhase, readState } from './phase.ts';
import { toyMachine } from './toy-machine.fixture.ts';

describe('readState', () => {
  it('reads a known phase', () => {
    expect(readState(toyMachine, { status: { phase: 'Busy' } })).toEqual({ recognised: true, state: 'Busy' });
  });

  it('takes a set deletionTimestamp for the deleting state', () => {
    expect(readState(toyMachine, { metadata: { deletionTimestamp: '2025-01-01T00:00:00Z' }, status: { phase: 'Busy' } })).toEqual({
      recognised: true,
      state: 'Gone',
    });
  });

  it('takes no status, no phase, null or "" for the initial state', () => {
    for (const object of [{}, { status: {} }, { status: { phase: null } }, { status: { phase: '' } }, { status: 'junk' }]) {
      expect(readState(toyMachine, object)).toEqual({ recognised: true, state: 'Draft' });
    }
  });

  it('keeps an unknown phase apart, quoted for messages', () => {
    expect(readState(toyMachine, { status: { phase: 'busy' } })).toEqual({ recognised: false, phase: '"busy"' });
    expect(readPhase(toyMachine, 7)).toEqual({ recognised: false, phase: '7' });
    expect(readPhase(toyMachine, 'constructor')).toEqual({ recognised: false, phase: '"constructor"' });
  });
});

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
