import { describe, expect, it } from 'vitest';
import { compileGoRegexp, goRegexpError } from './go-regexp.ts';

// What Go's regexp answers is held to kube-apiserver's own code in ../go-patterns.test.ts (and to a real one in
// test/e2e/re2-patterns.e2e.test.ts); here, what those cannot show: the cost of a long pattern.

describe('compileGoRegexp', () => {
  it('reads a long pattern in time linear in it where re2js alone would not', () => {
    // Inside a class, each `[:` with no `:]` after it made re2js look to the end of the pattern: minutes for this one.
    const brackets = `[${'[:'.repeat(200_000)}x]`;
    const regexp = compileGoRegexp(brackets);
    expect([regexp.test('['), regexp.test(':'), regexp.test('y')]).toEqual([true, true, false]);
    // And each `\p{` with no `}` after it, or an unknown class name, stops the reading as it stops Go's parser.
    expect(goRegexpError('\\p{'.repeat(200_000))).toMatch(/^error parsing regexp: invalid character class range: /);
    expect(goRegexpError(`\\p{Foo}${'\\p{L}'.repeat(200_000)}`)).toBe(
      'error parsing regexp: invalid character class range: `\\p{Foo}`',
    );
  });
});
