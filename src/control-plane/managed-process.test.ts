import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { missingPrerequisite } from '../../test/missing-prerequisite.ts';
import { describeExit, startManagedProcess } from './managed-process.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'crdgate-managed-process-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const sh = (script: string, name = 'sh') =>
  startManagedProcess({ name, command: '/bin/sh', args: ['-c', script], cwd: dir, logFile: join(dir, `${name}.log`) });

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('startManagedProcess', () => {
  it('sends stdout and stderr to the log file and reports the exit code', async () => {
    const child = sh('echo out; echo err >&2; exit 3');
    expect(await child.exited).toEqual({ code: 3, signal: null });
    expect(child.exit).toEqual({ code: 3, signal: null });
    expect(await readFile(child.logFile, 'utf8')).toBe('out\nerr\n');
    expect(await child.logTail(4)).toBe('err\n');
    expect(describeExit({ code: 3, signal: null })).toBe('exited with code 3');
  });

  it('stops a process with SIGTERM when it obeys', async () => {
    const child = sh('trap "echo got TERM; exit 0" TERM; while true; do sleep 0.05; done');
    await new Promise((resolve) => setTimeout(resolve, 200)); // let the trap be installed
    await child.stop(5_000);
    expect(child.exit).toEqual({ code: 0, signal: null });
    expect(await readFile(child.logFile, 'utf8')).toContain('got TERM');
  });

  it('escalates to SIGKILL after the grace period, and stop() is idempotent', async () => {
    const child = sh('trap "" TERM; while true; do sleep 0.05; done');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const first = child.stop(300);
    const second = child.stop(300);
    await Promise.all([first, second]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(child.exit?.signal).toBe('SIGKILL');
  });

  it('reports a command that cannot start', async () => {
    const child = startManagedProcess({
      name: 'nope',
      command: join(dir, 'missing'),
      args: [],
      cwd: dir,
      logFile: join(dir, 'nope.log'),
    });
    const exit = await child.exited;
    // With setpriv in front, the failure is setpriv's exec error (exit 127), otherwise a spawn ENOENT.
    expect(exit.error?.message ?? exit.code).toSatisfy((v: unknown) => v === 127 || String(v).includes('ENOENT'));
    await child.stop(100);
  });

  // The parent's death reaches the child through PR_SET_PDEATHSIG (setpriv --pdeathsig), which only Linux has.
  const notLinux =
    process.platform === 'linux' ? undefined : `PR_SET_PDEATHSIG is Linux's, and this is ${process.platform}`;

  it.skipIf(missingPrerequisite('the test that a managed process dies with its parent', notLinux))(
    'dies with its parent even when the parent is SIGKILLed',
    async () => {
      // A node parent that starts a managed `sleep`, prints its pid, then waits to be killed.
      const script = `
      import { startManagedProcess } from ${JSON.stringify(new URL('./managed-process.ts', import.meta.url).href)};
      const child = startManagedProcess({ name: 'sleep', command: 'sleep', args: ['600'], cwd: ${JSON.stringify(dir)}, logFile: ${JSON.stringify(join(dir, 'sleep.log'))} });
      setTimeout(() => {}, 600_000);
    `;
      const parent = startManagedProcess({
        name: 'parent',
        command: process.execPath,
        args: ['--input-type=module', '-e', script],
        cwd: dir,
        logFile: join(dir, 'parent.log'),
      });
      const findSleep = (): number | undefined => {
        let out = '';
        try {
          out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(parent.pid)], { encoding: 'utf8' });
        } catch {
          return undefined; // ps exits 1 when nothing matches
        }
        const line = out.split('\n').find((l) => / sleep 600$/.test(l));
        return line ? Number.parseInt(line.trim(), 10) : undefined;
      };
      let sleepPid: number | undefined;
      for (let i = 0; i < 100 && sleepPid === undefined; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        sleepPid = findSleep();
      }
      expect(sleepPid, await parent.logTail()).toBeDefined();
      try {
        await parent.stop(0); // SIGTERM then immediately SIGKILL: no exit handler gets to run
        for (let i = 0; i < 40 && isAlive(sleepPid ?? 0); i++) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(isAlive(sleepPid ?? 0)).toBe(false);
      } finally {
        if (sleepPid !== undefined && isAlive(sleepPid)) process.kill(sleepPid, 'SIGKILL'); // no orphan when this fails
      }
    },
  );
});
