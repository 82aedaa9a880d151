import { describe, expect, it } from 'vitest';
import { describeEnvelopeValue } from './describe-envelope-value.ts';

describe('describeEnvelopeValue', () => {
  it.each([
    [undefined, 'nothing'],
    [null, 'null'],
    ['AdmissionReview', '"AdmissionReview"'],
    ['x'.repeat(65), 'a long string'],
    [[1], 'an array'],
    [{ huge: 'x'.repeat(10_000) }, 'an object'],
    [7, 'a number'],
  ])('describes %j as %s', (value, expected) => {
    expect(describeEnvelopeValue(value)).toBe(expected);
  });
});
