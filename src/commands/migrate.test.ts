import { describe, expect, it } from 'vitest';
import { runCli } from '../cli-runner.fixture.ts';

// Usage errors come before the kubeconfig is read: none of these runs reaches an API server.
const run = (...argv: string[]) =>
  runCli(
    process.cwd(),
    'migrate',
    '--resource',
    'geodatabases.geo.example.com',
    '--kubeconfig',
    '/nonexistent',
    ...argv,
  );

describe('crdgate migrate: --shard, --record and --via usage', () => {
  it.each([
    [['--shard', '1/4'], '--shard 1/4 needs --record NAMESPACE/NAME'],
    [['--shard', '4/4', '--record', 'ops/mig'], '--shard must be I/N with 0 <= I < N'],
    [
      ['--shard', '$(JOB_COMPLETION_INDEX)/4', '--record', 'ops/mig'],
      'JOB_COMPLETION_INDEX is set only in a Job with completionMode: Indexed',
    ],
    [['--shard', '0/2', '--record', 'mig'], '--record must be NAMESPACE/NAME'],
    [['--via', 'subresource'], '--via must be object or status, got "subresource"'],
  ])('%j: exit 2 and one line', async (argv, message) => {
    const result = await run(...argv);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('takes one shard without a record, and a record with or without --shard, past the usage checks', async () => {
    for (const argv of [
      ['--shard', '0/1'],
      ['--record', 'ops/mig'],
      ['--shard', '2/3', '--record', 'ops/mig'],
      ['--via', 'status'],
    ]) {
      const result = await run(...argv);
      // The next thing it does is read the kubeconfig, which does not exist.
      expect(result.stderr, argv.join(' ')).not.toMatch(/--shard|--record|--via/);
      expect(result.code).toBe(2);
    }
  });
});
