import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

/** `crdgate dev`, with what it printed so far and a way to wait for a line. */
export interface DevProcess {
  child: ChildProcess;
  output: () => string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/** `crdgate dev --contract CONTRACT` from crdgate's source, run in `cwd` as a user runs it, on the suite's binaries. */
export function startDev(cwd: string, assetsDir: string, contract: string): DevProcess {
  const child = spawn(process.execPath, [join(repo, 'src/bin.ts'), 'dev', '--contract', contract], {
    cwd,
    env: { ...process.env, KUBEBUILDER_ASSETS: assetsDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => text,
    exited,
    async waitFor(pattern, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = pattern.exec(text);
        if (match) return match;
        if (child.exitCode !== null)
          throw new Error(`crdgate dev exited (${child.exitCode}) before printing ${pattern}; it printed:\n${text}`);
        if (Date.now() > deadline)
          throw new Error(`crdgate dev did not print ${pattern} within ${timeoutMs} ms; it printed:\n${text}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}
