import { describe, expect, it } from 'vitest';
import { evaluateCel } from '../api-server-engine/engine.ts';
import { patternExamples } from './pattern-examples.ts';

// Each guess held to kube-apiserver's own regular expressions (RE2, through the engine's CEL `matches`, the
// function the API server's pattern check shares its engine with): patterns of real CRDs and of every construct the
// reader follows.

const patterns = [
  // controller-gen's quantity (int-or-string), a DNS label and subdomain, a duration, a semver, an image tag
  '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
  '^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$',
  '^v?(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[\\w.]+)?$',
  '^[\\w][\\w.-]{0,127}$',
  // CloudNativePG's schedule and a cron, cert-manager's duration, a key=value
  '^(\\*|[0-5]?\\d)( (\\*|[01]?\\d|2[0-3])){1,4}$',
  '^[0-9]+(h|m|s)$',
  '^[A-Za-z_][A-Za-z0-9_]*=[^=\\s]+$',
  // named and flagged groups, classes of every kind, escapes, braces
  '^(?P<major>\\d{1,3})(?i:x)(?:[[:alpha:]][[:digit:]]){2}[^a-z\\s]\\x41\\.$',
  'anywhere-[ab]{3,}',
  '^(gold|silver|bronze)$',
];

function matches(text: string, pattern: string): boolean {
  const answer = evaluateCel({ expr: `${JSON.stringify(text)}.matches(${JSON.stringify(pattern)})` });
  if (answer.compileError !== undefined || answer.evalError !== undefined)
    throw new Error(answer.compileError ?? answer.evalError);
  return (answer.value as { boolValue?: boolean }).boolValue === true;
}

describe('patternExamples', () => {
  it.each(patterns)('guesses strings %s takes, the first among them', (pattern) => {
    const guesses = patternExamples(pattern);
    expect(guesses.length).toBeGreaterThan(0);
    expect(matches(guesses[0]!, pattern), guesses[0]).toBe(true);
    // Most of the rest too: they are what the scaffold tries next when the first is taken elsewhere.
    const taken = guesses.filter((guess) => matches(guess, pattern));
    expect(taken.length / guesses.length, guesses.join(' | ')).toBeGreaterThanOrEqual(0.5);
  });

  it('offers each alternative, and distinct strings for a list whose items must differ', () => {
    expect(patternExamples('^(gold|silver|bronze)$').slice(0, 3)).toEqual(['gold', 'silver', 'bronze']);
    expect(new Set(patternExamples('^[a-z]+$')).size).toBeGreaterThan(2);
  });

  it('gives no guess for what it does not follow, rather than a wrong one', () => {
    expect(patternExamples('^\\p{L}+$')).toEqual([]);
    expect(patternExamples('^(a')).toEqual([]);
    expect(patternExamples('^[a-')).toEqual([]);
  });
});
