import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guideExamples, importingSource, type GuideExample } from './guide-examples.ts';

// The guide's examples, run against crdgate's source here (the packaging test in test/e2e runs them against the
// packed package, typechecked). Each example asserts what the guide says it shows.

let dir: string;
let examples: GuideExample[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-guide-'));
  examples = await guideExamples();
  for (const { file, code } of examples) {
    await writeFile(join(dir, file), importingSource(code));
  }
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the contract guide (docs/contracts.md)', () => {
  it('has runnable examples, importing only the public modules', () => {
    expect(examples.map((e) => e.file)).toEqual(
      expect.arrayContaining([
        'bucket-contract.ts',
        'bucket-contract.check.ts',
        'bucket-defaults.ts',
        'bucket-machine.ts',
        'bucket-versions.ts',
        'quantities.ts',
      ]),
    );
    for (const { file, code } of examples) {
      const imported = [...code.matchAll(/from '([^']+)'/g)].map((m) => m[1]!);
      expect(
        imported.filter((name) => !/^(crdgate|crdgate\/testing|node:.*|\.\/[\w.-]+\.ts)$/.test(name)),
        file,
      ).toEqual([]);
    }
  });

  it('runs every example without a failed assertion', async () => {
    for (const { file } of examples) await import(join(dir, file));
  });
});
