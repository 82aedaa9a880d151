import { describe, expect, it } from 'vitest';
import { readPhase, readState } from './read-state.ts';
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
