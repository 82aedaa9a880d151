import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** `go` from PATH, else from GOROOT (set by some CI setups that do not touch PATH); undefined without Go. */
export async function findGo(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const candidates = ['go', ...(env['GOROOT'] ? [join(env['GOROOT'], 'bin', 'go')] : [])];
  for (const candidate of candidates) {
    try {
      await execFileAsync(candidate, ['version'], { env });
      return candidate;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

/** One of `go env`'s variables, as the toolchain resolves it. */
export async function goEnv(go: string, name: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await execFileAsync(go, ['env', name], { env });
  return stdout.trim();
}

/** `go1.26.8`: what a build's cache key is salted with where the toolchain decides the binary. */
export function goVersion(go: string, env: NodeJS.ProcessEnv): Promise<string> {
  return goEnv(go, 'GOVERSION', env);
}
