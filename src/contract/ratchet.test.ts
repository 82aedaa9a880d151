import { describe, expect, it } from 'vitest';
import { fieldError } from './values/field-error.ts';
import { ratchet } from './ratchet.ts';

const tooBig = fieldError('spec.caches[0].memory', 'FieldValueInvalid', 'must be between 64Mi and 64Gi');
const oldObject = { spec: { caches: [{ name: 'a', memory: '100Gi' }], readReplicas: 1 } };

describe('ratchet', () => {
  it('tolerates an error the old object had at an unchanged value', () => {
    const object = { spec: { caches: [{ name: 'a', memory: '100Gi' }], readReplicas: 2 } };
    expect(ratchet([tooBig], oldObject, object, () => [tooBig])).toEqual({ errors: [], tolerated: [tooBig] });
  });

  it('keeps an error whose value the update changed', () => {
    const object = { spec: { caches: [{ name: 'a', memory: '200Gi' }] } };
    expect(ratchet([tooBig], oldObject, object, () => [tooBig])).toEqual({ errors: [tooBig], tolerated: [] });
  });

  it('keeps an error the old object did not have, even at an unchanged value (the rule is not new for it)', () => {
    const object = structuredClone(oldObject);
    expect(ratchet([tooBig], oldObject, object, () => [])).toEqual({ errors: [tooBig], tolerated: [] });
  });

  it('does not validate the old object when the new one is valid', () => {
    let calls = 0;
    ratchet([], oldObject, oldObject, () => {
      calls++;
      return [];
    });
    expect(calls).toBe(0);
  });

  it('treats a still-missing required field as unchanged', () => {
    const missing = fieldError('spec.storage', 'FieldValueRequired', 'Required value');
    const object = { spec: { readReplicas: 3 } };
    expect(ratchet([missing], { spec: {} }, object, () => [missing]).tolerated).toEqual([missing]);
  });
});
