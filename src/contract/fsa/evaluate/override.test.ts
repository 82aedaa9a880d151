import { describe, expect, it } from 'vitest';
import { overrideAuditKey, readOverride } from './override.ts';
import { toyMachine, widget } from '../toy-machine.fixture.ts';

const key = 'toy.example.com/override-transitions';

describe('readOverride', () => {
  it('reads the trimmed reason of an override this write adds', () => {
    expect(readOverride(toyMachine, widget({}, undefined, { [key]: ' ticket 42 ' }), widget({}))).toEqual({
      given: true,
      reason: 'ticket 42',
    });
  });

  it('reads an override whose value this write changes', () => {
    expect(
      readOverride(
        toyMachine,
        widget({}, undefined, { [key]: 'ticket 43' }),
        widget({}, undefined, { [key]: 'ticket 42' }),
      ),
    ).toEqual({
      given: true,
      reason: 'ticket 43',
    });
  });

  it('takes a value the stored object carried already for stale: it authorised the write that set it', () => {
    expect(
      readOverride(
        toyMachine,
        widget({}, undefined, { [key]: 'ticket 42' }),
        widget({}, undefined, { [key]: 'ticket 42' }),
      ),
    ).toEqual({ given: false, why: 'stale' });
  });

  it('tells an absent annotation from a blank one', () => {
    expect(readOverride(toyMachine, widget({}), widget({}, undefined, { [key]: 'ticket 42' }))).toEqual({
      given: false,
      why: 'absent',
    });
    expect(readOverride(toyMachine, widget({}, undefined, { [key]: '' }), widget({}))).toEqual({
      given: false,
      why: 'blank',
    });
  });

  it('reads an override on a write with no stored object (a create) as given', () => {
    expect(readOverride(toyMachine, widget({}, undefined, { [key]: 'why' }), undefined)).toEqual({
      given: true,
      reason: 'why',
    });
  });

  it('tolerates junk metadata on either side', () => {
    expect(readOverride(toyMachine, { metadata: { annotations: 'junk' as never } }, widget({}))).toEqual({
      given: false,
      why: 'absent',
    });
    expect(
      readOverride(toyMachine, widget({}, undefined, { [key]: 'why' }), { metadata: { annotations: 'junk' as never } }),
    ).toEqual({ given: true, reason: 'why' });
  });
});

describe('overrideAuditKey', () => {
  it("is the annotation's name part: the API server puts the webhook's name in front", () => {
    expect(overrideAuditKey('geo.example.com/override-transitions')).toBe('override-transitions');
  });
});
