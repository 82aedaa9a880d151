import { describe, expect, it } from 'vitest';
import { buildReport, type ReportedRun } from './build-report.ts';
import { readStorageFacts } from './custom-resource-definition.ts';
import { renderSummary } from './migration-report.ts';
import { Tally } from './object-tally.ts';
import { NOT_A_DRY_RUN, StorageRulesTally } from './storage-rules.ts';

const facts = readStorageFacts({
  metadata: { name: 'widgets.example.com', generation: 3 },
  spec: {
    group: 'example.com',
    names: { plural: 'widgets' },
    versions: [
      { name: 'v1alpha1', served: true },
      { name: 'v1', served: true, storage: true },
    ],
  },
  status: { storedVersions: ['v1alpha1', 'v1'] },
});
const dryRun: ReportedRun = {
  resource: 'widgets.example.com',
  server: 'https://api',
  dryRun: true,
  via: 'object',
  facts,
  durationSeconds: 1,
};
const finish = { outcome: 'dry-run' as const, storedVersionsAfter: ['v1alpha1', 'v1'] };
const tooBig = {
  field: 'spec.size',
  message: 'Invalid value: 50: spec.size in body should be less than or equal to 10',
};
const red = { field: 'spec', message: 'Invalid value: red is retired' };

function summaryOf(rules: StorageRulesTally, run: ReportedRun = dryRun): string {
  const tally = new Tally();
  for (let i = 0; i < 4; i++) tally.add({ counted: 'rewritten' });
  return renderSummary(
    buildReport(run, tally, run.dryRun ? finish : { ...finish, outcome: 'migrated' }, rules.report()),
  );
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
    const real = summaryOf(new StorageRulesTally(NOT_A_DRY_RUN), { ...dryRun, dryRun: false });
    expect(real).not.toContain('storage rules');
  });
});
