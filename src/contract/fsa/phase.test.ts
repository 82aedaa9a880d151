import { describe, expect, it } from 'vitest';
import { checkPhaseMove, readPhase, readState, recordedState } from './phase.ts';
import { toyConditionStates, toyMachine } from './toy-machine.fixture.ts';

describe('readState', () => {
  it('reads a known phase', () => {
    expect(readState(toyMachine, { status: { phase: 'Busy' } })).toEqual({ recognised: true, state: 'Busy' });
  });

  it('takes a set deletionTimestamp for the deleting state', () => {
    expect(
      readState(toyMachine, { metadata: { deletionTimestamp: '2025-01-01T00:00:00Z' }, status: { phase: 'Busy' } }),
    ).toEqual({
      recognised: true,
      state: 'Gone',
    });
  });

  it('takes no status, no phase, null or "" for the initial state', () => {
    for (const object of [
      {},
      { status: {} },
      { status: { phase: null } },
      { status: { phase: '' } },
      { status: 'junk' },
    ]) {
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
    expect(checkPhaseMove(toyMachine, 'Active', 'Exploded')).toMatchObject({
      expected: false,
      message: expect.stringContaining('"Exploded"'),
    });
    expect(checkPhaseMove(toyMachine, 'Active', { phase: 1 }).expected).toBe(false);
  });

  it('warns once, on the move into a phase it does not know: staying there, and leaving it for a state, are no news', () => {
    expect(checkPhaseMove(toyMachine, 'Exploded', 'Exploded')).toEqual({ expected: true });
    expect(checkPhaseMove(toyMachine, 'Exploded', 'Active')).toEqual({ expected: true });
    expect(checkPhaseMove(toyMachine, { phase: 1 }, 'Active')).toEqual({ expected: true });
    expect(checkPhaseMove(toyMachine, 'Exploded', 'Imploded')).toMatchObject({
      expected: false,
      message: expect.stringContaining('"Imploded"'),
    });
  });
});

describe("the operator's own words for its states", () => {
  const sentences = {
    ...toyMachine,
    phases: {
      'Setting up primary': 'Draft',
      'Cluster in healthy state': 'Active',
      'Upgrading cluster': 'Busy',
      'Failed to provision': 'Broken',
    },
  } as const;

  it('reads a phase sentence through the table, and nothing else', () => {
    expect(readState(sentences, { status: { phase: 'Cluster in healthy state' } })).toEqual({
      recognised: true,
      state: 'Active',
    });
    expect(readState(sentences, { status: { phase: 'Active' } })).toEqual({ recognised: false, phase: '"Active"' });
    expect(readState(sentences, { status: { phase: 'constructor' } })).toEqual({
      recognised: false,
      phase: '"constructor"',
    });
    expect(readState(sentences, { status: {} })).toEqual({ recognised: true, state: 'Draft' });
  });

  it('warns once about a phase it does not know: on the move into it, not on every status write that keeps it', () => {
    expect(checkPhaseMove(sentences, 'Cluster in healthy state', 'Switchover in progress')).toMatchObject({
      expected: false,
      message: expect.stringContaining('"Switchover in progress" is not a state'),
    });
    expect(checkPhaseMove(sentences, 'Switchover in progress', 'Switchover in progress')).toEqual({ expected: true });
    expect(checkPhaseMove(sentences, 'Setting up primary', 'Cluster in healthy state')).toEqual({ expected: true });
  });
});

describe('a state reader of its own', () => {
  const ready = (object: {
    status?: { conditions?: { type: string; status: string }[] };
    metadata?: { generation?: number };
    [key: string]: unknown;
  }) => {
    const conditions = object.status?.conditions;
    if (conditions === undefined) return undefined;
    const readyCondition = conditions.find((condition) => condition.type === 'Ready');
    if (readyCondition?.status === 'True') return 'Active' as const;
    if (readyCondition?.status === 'False') return 'Busy' as const;
    return { unrecognised: `Ready is ${readyCondition?.status ?? 'missing'}` };
  };
  const machine = { ...toyMachine, readState: ready as never };

  it('reads the state from the conditions, a deletion first', () => {
    expect(readState(machine, { status: { conditions: [{ type: 'Ready', status: 'True' }] } })).toEqual({
      recognised: true,
      state: 'Active',
    });
    expect(readState(machine, {})).toEqual({ recognised: true, state: 'Draft' });
    expect(readState(machine, { status: { conditions: [] } })).toEqual({
      recognised: false,
      phase: '"Ready is missing"',
    });
    expect(readState(machine, { metadata: { deletionTimestamp: 'x' }, status: { conditions: [] } })).toEqual({
      recognised: true,
      state: 'Gone',
    });
  });

  it('reads a reader that throws, or answers no state, as unrecognised', () => {
    const throwing = {
      ...toyMachine,
      readState: () => {
        throw new Error('boom');
      },
    };
    expect(readState(throwing, {})).toMatchObject({
      recognised: false,
      phase: expect.stringContaining('the state reader failed: boom'),
    });
    expect(readState({ ...toyMachine, readState: () => 'Exploded' as never }, {})).toEqual({
      recognised: false,
      phase: '"Exploded"',
    });
  });
});

describe('conditionStates: the state from the conditions and the observed generation, as data', () => {
  const machine = { ...toyMachine, phasePath: undefined, conditionStates: toyConditionStates };
  const pool = (conditions: unknown, observedGeneration?: unknown, generation = 2) => ({
    metadata: { generation },
    status: { conditions, ...(observedGeneration === undefined ? {} : { observedGeneration }) },
  });
  const ready = (status: string, reason?: string) => ({
    type: 'Ready',
    status,
    ...(reason === undefined ? {} : { reason }),
  });

  it('takes the first rule whose every test holds', () => {
    expect(readState(machine, pool([ready('True')], 2))).toEqual({ recognised: true, state: 'Active' });
    expect(readState(machine, pool([ready('True')], 1))).toEqual({ recognised: true, state: 'Busy' });
    expect(readState(machine, pool([ready('False', 'Stuck')], 2))).toEqual({ recognised: true, state: 'Broken' });
    expect(readState(machine, pool([ready('False', 'Retrying')], 2))).toEqual({ recognised: true, state: 'Busy' });
    expect(readState(machine, pool([{ type: 'Synced', status: 'True' }, ready('True')], 3))).toEqual({
      recognised: true,
      state: 'Active',
    });
  });

  it('reads nothing recorded yet as the initial state, and as no state for crdgate check --old to assume', () => {
    expect(readState(machine, {})).toEqual({ recognised: true, state: 'Draft' });
    expect(readState(machine, pool([{ type: 'Synced', status: 'True' }]), 'Active')).toEqual({
      recognised: true,
      state: 'Active',
    });
    expect(recordedState(machine, pool([]))).toBeUndefined();
  });

  it('fails closed where no rule holds, naming the conditions it saw', () => {
    expect(readState(machine, pool([ready('Unknown', 'Probing')], 2))).toEqual({
      recognised: false,
      phase: '"conditions Ready=Unknown (Probing)"',
    });
    // Ready True, but no observedGeneration: neither behind nor current.
    expect(readState(machine, pool([ready('True')]))).toEqual({ recognised: false, phase: '"conditions Ready=True"' });
    expect(readState(machine, { ...pool([ready('Unknown')]), metadata: { deletionTimestamp: 'x' } })).toEqual({
      recognised: true,
      state: 'Gone',
    });
  });

  it('reads values of unexpected types as the policy does: no condition, no generation', () => {
    expect(readState(machine, pool('Ready'))).toEqual({ recognised: true, state: 'Draft' });
    expect(readState(machine, pool([7, null, ['Ready'], { type: ['Ready'] }]))).toEqual({
      recognised: true,
      state: 'Draft',
    });
    expect(readState(machine, pool([{ type: 'Ready', status: true }], 2))).toMatchObject({ recognised: false });
    for (const observed of [1.5, '1', 2 ** 53])
      expect(readState(machine, pool([ready('True')], observed))).toMatchObject({ recognised: false });
    expect(readState(machine, { status: 'junk' })).toEqual({ recognised: true, state: 'Draft' });
  });
});
