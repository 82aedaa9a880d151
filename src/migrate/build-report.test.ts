import { describe, expect, it } from 'vitest';
import { buildReport, type ReportedRun } from './build-report.ts';
import { readStorageFacts } from './custom-resource-definition.ts';
import { renderSummary } from './migration-report.ts';
import { Tally } from './object-tally.ts';
import { NOT_A_DRY_RUN, StorageRulesTally } from './storage-rules.ts';

const facts = readStorageFacts({
  metadata: { name: 'geodatabases.geo.example.com', generation: 4 },
  spec: {
    group: 'geo.example.com',
    names: { plural: 'geodatabases' },
    versions: [
      { name: 'v1beta1', served: true },
      { name: 'v1', served: true, storage: true },
    ],
  },
  status: { storedVersions: ['v1beta1', 'v1'] },
});
const run: ReportedRun = {
  resource: 'geodatabases.geo.example.com',
  server: 'https://api',
  dryRun: false,
  via: 'object',
  facts,
  durationSeconds: 2,
};
const unchanged = ['v1beta1', 'v1'];
const notJudged = new StorageRulesTally(NOT_A_DRY_RUN).report();

describe('buildReport', () => {
  it('adds up the tally, and says storedVersions before and after and why', () => {
    const tally = new Tally();
    for (const counted of ['rewritten', 'rewritten', 'current', 'gone'] as const) tally.add({ counted });
    tally.add({ counted: 'failed', failure: { namespace: 'maps', name: 'db', code: 422, message: 'refused' } });
    tally.add({ halt: { outcome: 'interrupted' } });
    const report = buildReport(run, tally, { outcome: 'failed', storedVersionsAfter: unchanged }, notJudged);
    expect(report).toMatchObject({
      outcome: 'failed',
      generation: 4,
      storageVersion: 'v1',
      objects: { seen: 5, rewritten: 2, current: 1, gone: 1, failed: 1 },
      failures: [{ name: 'db', code: 422 }],
      storedVersions: { before: unchanged, after: unchanged, why: expect.stringContaining('not trimmed') },
      objectsPerSecond: 2.5,
    });
    expect(report).not.toHaveProperty('shard');
    expect(report).not.toHaveProperty('cause');
  });

  it('carries the stop cause and problem of a run that could not finish', () => {
    const finish = { outcome: 'aborted' as const, cause: 'forbidden' as const, problem: 'forbidden: ...' };
    const report = buildReport(run, new Tally(), { ...finish, storedVersionsAfter: unchanged }, notJudged);
    expect(report).toMatchObject({ outcome: 'aborted', cause: 'forbidden', problem: 'forbidden: ...' });
  });

  it('has a shard block only for a run given a shard or a record, naming the record and what it recorded', () => {
    const tally = new Tally();
    tally.listed = 7;
    const shards = { complete: false, succeeded: [0], failed: [], missing: [1], stale: [] };
    const shard = { index: 0, count: 2, record: { namespace: 'ops', name: 'mig' } };
    const report = buildReport(
      { ...run, shard },
      tally,
      {
        outcome: 'shard-done',
        storedVersionsAfter: unchanged,
        recorded: { recorded: 'succeeded', shards },
      },
      notJudged,
    );
    expect(report.shard).toEqual({ index: 0, count: 2, record: 'ops/mig', listed: 7, recorded: 'succeeded', shards });
  });

  it('counts no rate for a run that took no time', () => {
    const finish = { outcome: 'nothing-to-do' as const, storedVersionsAfter: ['v1'] };
    const report = buildReport({ ...run, durationSeconds: 0 }, new Tally(), finish, notJudged);
    expect(report.objectsPerSecond).toBe(0);
  });

  it('carries what the judgement against the storage rules came to, in the same shape whether or not it ran', () => {
    const rules = new StorageRulesTally();
    rules.add({ namespace: 'maps', name: 'db' }, { causes: [] });
    rules.add(
      { namespace: 'maps', name: 'big' },
      {
        causes: [
          { field: 'spec.size', message: 'Invalid value: 50: spec.size in body should be less than or equal to 10' },
        ],
      },
    );
    const finish = { outcome: 'dry-run' as const, storedVersionsAfter: unchanged };
    const judged = buildReport({ ...run, dryRun: true }, new Tally(), finish, rules.report());
    expect(JSON.parse(JSON.stringify(judged)).storageRules).toEqual({
      checked: true,
      judged: 2,
      breaking: 1,
      objects: [
        {
          namespace: 'maps',
          name: 'big',
          causes: [
            { field: 'spec.size', message: 'Invalid value: 50: spec.size in body should be less than or equal to 10' },
          ],
          moreCauses: 0,
        },
      ],
    });
    const real = buildReport(run, new Tally(), { outcome: 'migrated', storedVersionsAfter: ['v1'] }, notJudged);
    expect(JSON.parse(JSON.stringify(real)).storageRules).toEqual({
      checked: false,
      notChecked: 'only a dry run (--dry-run) judges the objects against the rules',
      judged: 0,
      breaking: 0,
      objects: [],
    });
  });
});

const dryRunFinish = { outcome: 'dry-run' as const, storedVersionsAfter: unchanged };
const tooBig = {
  field: 'spec.size',
  message: 'Invalid value: 50: spec.size in body should be less than or equal to 10',
};
const red = { field: 'spec', message: 'Invalid value: red is retired' };

function summaryOf(rules: StorageRulesTally, reported: ReportedRun = { ...run, dryRun: true }): string {
  const tally = new Tally();
  for (let i = 0; i < 4; i++) tally.add({ counted: 'rewritten' });
  const finish = reported.dryRun ? dryRunFinish : { ...dryRunFinish, outcome: 'migrated' as const };
  return renderSummary(buildReport(reported, tally, finish, rules.report()));
}

describe('renderSummary: the objects that break the storage version rules', () => {
  it('says what such an object means, and lists each with its causes after the summary lines', () => {
    const rules = new StorageRulesTally();
    rules.add({ namespace: 'shop', name: 'w-0' }, { causes: [] });
    rules.add({ namespace: 'shop', name: 'w-1' }, { causes: [tooBig] });
    rules.add({ namespace: 'shop', name: 'w-3' }, { causes: [red, tooBig] });
    rules.add({ namespace: 'shop', name: 'w-4' }, { causes: [] });
    const summary = summaryOf(rules);
    expect(summary).toContain(
      "\n  storage rules     2 of the 4 objects judged break v1's schema or rules as they stand: each migrates (a write " +
        "that leaves a field as it is passes the API server's ratcheting), but any write that changes such a field " +
        'is refused until it is fixed (listed below)\n  duration ',
    );
    expect(summary).toMatch(
      new RegExp(
        "\n  objects breaking v1's rules \\(2\\):\n" +
          '    shop/w-1:\n' +
          '      spec.size: Invalid value: 50: spec.size in body should be less than or equal to 10\n' +
          '    shop/w-3:\n' +
          '      spec: Invalid value: red is retired\n' +
          '      spec.size: Invalid value: 50: spec.size in body should be less than or equal to 10\n$',
      ),
    );
  });

  it('names how many objects and causes are left out past the bounds', () => {
    const rules = new StorageRulesTally();
    const causes = ['spec.a', 'spec.b', 'spec.c', 'spec.d'].map((field) => ({ field, message: 'Required value' }));
    for (let i = 0; i < 25; i++) rules.add({ name: `w-${i}` }, { causes });
    const summary = summaryOf(rules);
    expect(summary).toContain(
      "  objects breaking v1's rules (25, the first 20 listed):\n    w-0:\n      spec.a: Required value\n",
    );
    expect(summary.match(/ {6}\.\.\. and 1 more\n/g)).toHaveLength(20);
    expect(summary).toMatch(/\n {4}w-19:\n(?: {6}.*\n){4} {4}\.\.\. and 5 more\n$/);
  });

  it('says when every object judged meets the rules', () => {
    const rules = new StorageRulesTally();
    rules.add({ name: 'w-0' }, { causes: [] });
    const summary = summaryOf(rules);
    expect(summary).toContain(
      "\n  storage rules     the 1 objects judged all meet v1's schema and rules as they stand\n",
    );
    expect(summary).not.toContain('objects breaking');
  });

  it('says a dry run did not check the rules, and why; a real run, which never does, says nothing of them', () => {
    const missing = new StorageRulesTally("crdgate's API server engine is not there");
    expect(summaryOf(missing)).toContain(
      "\n  storage rules     not checked: crdgate's API server engine is not there\n",
    );
    const real = summaryOf(new StorageRulesTally(NOT_A_DRY_RUN), run);
    expect(real).not.toContain('storage rules');
  });
});
