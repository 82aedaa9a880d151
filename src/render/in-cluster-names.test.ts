import { describe, expect, it } from 'vitest';
import { defineContract } from '../contract/define-contract.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { installNameProblem, installNames, migrationJobName } from './in-cluster-names.ts';

const withPlural = (plural: string) => {
  const base = geoDatabaseContract();
  return defineContract({ ...base, identity: { ...base.identity, plural } });
};

describe('installNameProblem', () => {
  it('accepts the default and other DNS-1035 labels', () => {
    for (const name of ['crdgate', 'team-a', 'a', 'geo2'])
      expect(installNameProblem(name, [geoDatabaseContract()])).toBeUndefined();
  });

  it.each(['', 'Team-A', 'team_a', '-team', 'team-', '2fast', 'team.a'])(
    'refuses %j, which cannot name a Service',
    (name) => {
      expect(installNameProblem(name, [])).toMatch(/must be a DNS-1035 label/);
    },
  );

  it('refuses a name that would make a derived name longer than 63 characters, saying how long it may be', () => {
    const longest = 'x'.repeat(63 - '-serving-cert'.length);
    expect(installNameProblem(longest, [])).toBeUndefined();
    expect(installNameProblem(`${longest}x`, [])).toBe(
      `"${longest}x" is too long: it would make the object name "${longest}x-serving-cert" longer than 63 characters (at most 50 characters here)`,
    );
  });

  it("leaves room for the migration Jobs' names, which carry each contract's plural", () => {
    const plural = 'p'.repeat(40);
    const name = 'n'.repeat(63 - '-migrate-'.length - plural.length);
    expect(installNameProblem(name, [withPlural(plural)])).toBeUndefined();
    expect(installNameProblem(`${name}n`, [withPlural(plural)])).toContain(`"${name}n-migrate-${plural}"`);
    expect(migrationJobName(name, withPlural(plural))).toHaveLength(63);
  });
});

describe('installNames', () => {
  it('derives every name from the install name, so that two installs share none', () => {
    const a = Object.values(installNames('team-a'));
    const b = new Set(Object.values(installNames('team-b')));
    expect(a.filter((name) => b.has(name))).toEqual([]);
    for (const name of a) expect(name.startsWith('team-a')).toBe(true);
  });
});
