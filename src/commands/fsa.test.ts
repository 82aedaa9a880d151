import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { runCli } from '../cli-runner.fixture.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';

const run = (...argv: string[]) => runCli(process.cwd(), ...argv);

describe('crdgate fsa', () => {
  it('renders the machine that docs/transitions.md shows', async () => {
    const page = await readFile(new URL('../../docs/transitions.md', import.meta.url), 'utf8');
    const diagram = /```mermaid\n([\s\S]*?)```/.exec(page)?.[1];
    const rendered = await run('fsa', '--format', 'mermaid');
    expect(rendered.code).toBe(0);
    expect(
      diagram,
      'the diagram in docs/transitions.md is stale: paste the output of `npm run --silent crdgate -- fsa` into it',
    ).toBe(rendered.stdout);
  });

  it('renders dot and table, each naming every state', async () => {
    for (const format of ['dot', 'table']) {
      const { code, stdout } = await run('fsa', '--format', format);
      expect(code).toBe(0);
      for (const state of [
        'Pending',
        'Provisioning',
        'Ready',
        'Scaling',
        'Resizing',
        'Upgrading',
        'Degraded',
        'Failed',
        'Deleting',
      ]) {
        expect(stdout).toContain(state);
      }
    }
    expect((await run('fsa', '--format', 'dot')).stdout).toMatch(/^digraph /);
  });

  it('lists with --coverage every change kind, deletion rule and default, and who enforces or sets it', async () => {
    const { code, stdout } = await run('fsa', '--coverage');
    expect(code).toBe(0);
    for (const kind of Object.keys(geoDatabaseContract().transitions!.changeKinds))
      expect(stdout).toContain(`| ${kind} | policy and webhook | |`);
    expect(stdout).toContain('| geo.example.com/deletion-protection=true | policy and webhook | |');
    expect(stdout).toMatch(/Enforced by the webhook only: .*invariants, update rules/);
    // A write in v1alpha1 (no storage class) that would change the stored one unseen: refused by the policy too.
    expect(stdout).toContain('| spec.storage.storageClassName written in v1alpha1 | policy and webhook | |');
    expect(stdout).toContain(
      'GeoDatabase: what the MutatingAdmissionPolicy sets even while crdgate is down\n\n| default | set by | why not by the policy |\n|---|---|---|\n| spec.readReplicas: 0 | policy and webhook | |\n',
    );
  });

  it("says with --coverage that spec changes through /scale are the webhook's alone, for a contract with a scale subresource", async () => {
    const { code, stdout } = await run(
      'fsa',
      '--coverage',
      '--contract',
      'src/admission/scalable-geodatabase.fixture.ts',
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /\| spec changes through \| enforced by \| why not by the policy \|\n\|---\|---\|---\|\n\| \/scale \| webhook only \| a Scale carries neither/,
    );
    expect((await run('fsa', '--coverage')).stdout).not.toContain('/scale');
  });

  it('shows what each state does with changes no change kind names, in every format, and with --coverage who refuses them', async () => {
    const contract = ['--contract', 'src/policy/message-broker.fixture.ts'];
    const summary =
      'changes no change kind names: refused in Upgrading; refused unless overridden in Provisioning, Rebalancing, Degraded, Failed, Terminating, an unrecognised phase; allowed in Pending, Queued, Running';
    const table = (await run('fsa', ...contract, '--format', 'table')).stdout;
    expect(table).toContain('| Upgrading | none (changes no change kind names: refused) | Running, Degraded, Failed |');
    expect(table).toContain(`\n${summary}\n`);
    expect((await run('fsa', ...contract, '--format', 'mermaid')).stdout).toContain(`    %% ${summary}\n`);
    expect((await run('fsa', ...contract, '--format', 'dot')).stdout).toContain(`${summary}\\l`);
    const coverage = await run('fsa', ...contract, '--coverage');
    expect(coverage.stdout).toContain(
      '| changes no change kind names, at | enforced by | why not by the policy |\n|---|---|---|\n| every spec field | policy and webhook | |\n',
    );
    // The built-in GeoDatabase allows them everywhere: nothing to enforce, and it says so.
    expect((await run('fsa', '--format', 'table')).stdout).toContain(
      '\nchanges no change kind names: allowed in every state\n',
    );
    expect((await run('fsa', '--coverage')).stdout).toContain(
      '\nChanges no change kind names: allowed in every state, so there is nothing to enforce.\n',
    );
  });

  it('exits 2 for an unknown format or kind', async () => {
    expect(await run('fsa', '--format', 'svg')).toMatchObject({ code: 2, stderr: expect.stringContaining('--format') });
    expect(await run('fsa', '--kind', 'Nope')).toMatchObject({ code: 2, stderr: expect.stringContaining('Nope') });
  });
});
