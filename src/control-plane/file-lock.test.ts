import { execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withFileLock } from './file-lock.ts';

const execFileAsync = promisify(execFile);
const lockModule = fileURLToPath(new URL('./file-lock.ts', import.meta.url));

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-file-lock-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

/** A process of its own that holds the lock for `holdMs`, recording when it got in and out. */
function contender(name: string, holdMs: number): Promise<{ stderr: string }> {
  const script = `
    import { appendFileSync } from 'node:fs';
    import { withFileLock } from ${JSON.stringify(lockModule)};
    await withFileLock(${JSON.stringify(join(dir, '.tool.lock'))}, 'tool', (line) => process.stderr.write(line + '\\n'), async () => {
      appendFileSync(${JSON.stringify(join(dir, 'record'))}, 'in ${name} ' + Date.now() + '\\n');
      await new Promise((resolve) => setTimeout(resolve, ${holdMs}));
      appendFileSync(${JSON.stringify(join(dir, 'record'))}, 'out ${name} ' + Date.now() + '\\n');
    });`;
  return execFileAsync(process.execPath, ['--input-type=module', '-e', script]);
}

describe('withFileLock', () => {
  it('lets one process at a time in, across processes; the others wait, saying for whom', async () => {
    const runs = await Promise.all(['a', 'b', 'c'].map((name) => contender(name, 700)));
    const events = (await readFile(join(dir, 'record'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => line.split(' '));
    expect(events).toHaveLength(6);
    // in, out, in, out...: no two holders at once, and each leaves before the next enters.
    expect(events.map(([what]) => what)).toEqual(['in', 'out', 'in', 'out', 'in', 'out']);
    for (let i = 0; i < 6; i += 2) expect(events[i]![1]).toBe(events[i + 1]![1]);
    const waited = runs.map((run) => run.stderr).filter((stderr) => stderr.includes('waiting for process'));
    expect(waited.length).toBeGreaterThanOrEqual(2);
    expect(waited.join('')).toMatch(/tool: waiting for process \d+ on \S+, which has held it for \d+ s/);
    // The lock is gone once the last holder is out.
    await expect(readFile(join(dir, '.tool.lock'))).rejects.toMatchObject({ code: 'ENOENT' });
  }, 30_000);

  it('takes over a lock whose process no longer runs', async () => {
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = gone.pid!;
    await new Promise((resolve) => gone.on('exit', resolve));
    await writeFile(join(dir, '.tool.lock'), JSON.stringify({ pid, host: hostname(), since: Date.now() }));
    const lines: string[] = [];
    const result = await withFileLock(
      join(dir, '.tool.lock'),
      'tool',
      (line) => lines.push(line),
      async () => 'built',
    );
    expect(result).toBe('built');
    expect(lines).toEqual([expect.stringMatching(new RegExp(`taking over .*, left by process ${pid} on `))]);
  });

  it('releases the lock when the work fails, and passes the failure on', async () => {
    const lockPath = join(dir, '.tool.lock');
    await expect(
      withFileLock(
        lockPath,
        'tool',
        () => {},
        async () => {
          throw new Error('go build failed');
        },
      ),
    ).rejects.toThrow('go build failed');
    await expect(readFile(lockPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('never takes over the lock of a process that still runs', async () => {
    const lockPath = join(dir, '.tool.lock');
    // This very process holds it, as far as the file says: a second taker must wait until it is released.
    await writeFile(lockPath, JSON.stringify({ pid: process.pid, host: hostname(), since: Date.now() }));
    let entered = false;
    const second = withFileLock(
      lockPath,
      'tool',
      () => {},
      async () => {
        entered = true;
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(entered).toBe(false);
    await rm(lockPath);
    await second;
    expect(entered).toBe(true);
  });
});
