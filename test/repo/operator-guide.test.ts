import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli.ts';
import {
  guideCommands,
  guideExamples,
  guideYamlFiles,
  importingSource,
  type GuideCommand,
  type GuideExample,
} from './guide-examples.ts';

// docs/guarding-an-operator.md, run: its named files written into a project folder as the guide lays it out (the
// operator's CRD in crds/, the contract and its checks in src/, the GitOps revisions), every TypeScript example run
// against crdgate's source, and every `npx crdgate` command it shows run in that folder, exiting as its `# exits N`
// says and printing what the ```text block after it shows (the folder's path written as the guide writes it).

const guide = new URL('../../docs/guarding-an-operator.md', import.meta.url);
/** Where the guide's project is on its reader's machine, in the output it shows. */
const shownProject = '/home/me/db-guard';
/**
 * Commands the guide shows whose output the suite does not compare: init packs crdgate and installs (it is run below
 * without either), dev starts a control plane (test/e2e/dev.e2e.test.ts runs it).
 */
const notRun = new Set(['init', 'dev']);

let dir: string;
let examples: GuideExample[];
let yamlFiles: GuideExample[];
let commands: GuideCommand[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-operator-guide-'));
  examples = await guideExamples(guide);
  yamlFiles = await guideYamlFiles(guide);
  commands = await guideCommands(guide);
  for (const { file, code } of [...yamlFiles, ...examples.map((e) => ({ ...e, code: importingSource(e.code) }))]) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), code);
  }
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** `crdgate ARGV` in the guide's project folder, stdout and stderr in the order written, as a terminal shows them. */
async function crdgate(argv: string[]): Promise<{ code: number; output: string }> {
  let output = '';
  const write = (text: string) => (output += text);
  const code = await main(argv, { stdout: write, stderr: write, cwd: dir, waitForStop: () => new Promise(() => {}) });
  return { code, output: output.replaceAll(dir, shownProject) };
}

describe('the operator guide (docs/guarding-an-operator.md)', () => {
  it("has the operator's CRD, the contract and its checks, and the revisions CI compares", () => {
    expect(yamlFiles.map((f) => f.file)).toEqual([
      'crds/database-crd.yaml',
      'main/shop/orders.yaml',
      'shop/orders.yaml',
    ]);
    expect(examples.map((e) => e.file)).toEqual(['src/contract.ts', 'src/contract.check.ts']);
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

  it('shows the commands it runs, and the ones it cannot run here', () => {
    expect(commands.map((c) => c.argv.slice(0, 1).join(' '))).toEqual(['init', 'dev', 'check', 'manifests', 'fsa']);
    expect(commands.filter((c) => !notRun.has(c.argv[0]!)).every((c) => c.output !== undefined)).toBe(true);
  });

  it('runs each command in the project, which exits and prints as the guide shows', async () => {
    for (const command of commands.filter((c) => !notRun.has(c.argv[0]!))) {
      const { code, output } = await crdgate(command.argv);
      expect({ command: command.argv.join(' '), code, output }).toEqual({
        command: command.argv.join(' '),
        code: command.exitCode,
        output: command.output,
      });
    }
  });

  it("scaffolds the project with the init it shows: a guard whose src/contract.ts reads the CRD as the guide's does", async () => {
    const init = commands.find((c) => c.argv[0] === 'init')!;
    const scratch = await mkdtemp(join(tmpdir(), 'crdgate-operator-guide-init-'));
    try {
      // As the reader has it: the chart's CRDs in the file the command names. No install: init packs crdgate otherwise.
      const crd = yamlFiles.find((f) => f.file === 'crds/database-crd.yaml')!;
      await writeFile(join(scratch, init.argv[init.argv.indexOf('--from-crd') + 1]!), crd.code);
      const code = await main([...init.argv, '--crdgate', '0.1.0', '--skip-install'], {
        stdout: () => {},
        stderr: () => {},
        cwd: scratch,
        waitForStop: () => new Promise(() => {}),
      });
      expect(code).toBe(0);
      const scaffolded = await readFile(join(scratch, init.argv[1]!, 'src', 'contract.ts'), 'utf8');
      expect(scaffolded).toContain("...fromCrd(crd, { crdOwner: 'external' }),");
      const crdLine = (source: string) => source.split('\n').find((line) => line.startsWith('export const crd = '));
      expect(crdLine(scaffolded)).toBe(crdLine(examples.find((e) => e.file === 'src/contract.ts')!.code));
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it('renders no CRD of the operator, nor a migration, for a contract that does not own its CRD', async () => {
    const manifests = commands.find((c) => c.argv[0] === 'manifests')!;
    expect((await crdgate(manifests.argv)).code).toBe(0);
    const base = await readdir(join(dir, 'deploy', 'base'));
    expect(base.filter((name) => name.startsWith('20-crd'))).toEqual([]);
    expect(await readdir(join(dir, 'deploy'))).not.toContain('migration');
  });
});
