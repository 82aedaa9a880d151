import { describe, expect, it } from 'vitest';
import { overrideAuditKey, readOverride } from './override.ts';
import { toyMachine, widget } from '../toy-machine.fixture.ts';

describe('readOverride', () => {
  it('reads the trimmed reason', () => {
    expect(readOverride(toyMachine, widget({}, undefined, { 'toy.example.com/override-transitions': ' ticket 42 ' }))).toEqual({ given: true, reason: 'ticket 42' });
  });

  it('tells an absent annotation from a blank one', () => {
    expect(readOverride(toyMachine, widget({}))).toEqual({ given: false, blank: false });
    expect(readOverride(toyMachine, widget({}, undefined, { 'toy.example.com/override-transitions': '' }))).toEqual({ given: false, blank: true });
  });

  it('tolerates junk metadata', () => {
    expect(readOverride(toyMachine, { metadata: { annotations: 'junk' as never } })).toEqual({ given: false, blank: false });
  });
});

describe('overrideAuditKey', () => {
  it('is the annotation\'s name part: the API server puts the webhook\'s name in front', () => {
    expect(overrideAuditKey('geo.example.com/override-transitions')).toBe('override-transitions');
  });
});
