import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandErrors } from '../errors.ts';

// A machine without the binaries, as both commands that need them meet it: an empty cache, no KUBEBUILDER_ASSETS
// and no Go on PATH.
const cli = fileURLToPath(new URL('../cli.ts', import.meta.url));
let cache: string;
beforeAll(async () => {
  cache = await mkdtemp(join(tmpdir(), 'crdgate-kube-bin-'));
});
afterAll(async () => {
  await rm(cache, { recursive: true, force: true });
});

describe('kube-apiserver, etcd and kubectl (or helm) neither found nor buildable', () => {
  it.each(['kube-bin', 'dev', 'kube-bin --helm'])(
    'crdgate %s ends in KUBE_BINARIES_UNAVAILABLE, in one line',
    async (commandLine) => {
      const [command = '', ...flags] = commandLine.split(' ');
      const env = { PATH: dirname(process.execPath), HOME: cache, XDG_CACHE_HOME: cache };
      const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
        execFile(process.execPath, [cli, command, ...flags], { env }, (error, stdout, stderr) => {
          if (error && typeof error.code !== 'number') reject(error);
          else resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
        });
      });
      expect(run).toEqual({
        code: commandErrors.KUBE_BINARIES_UNAVAILABLE.exitStatus,
        stdout: '',
        stderr: expect.stringMatching(new RegExp(`^crdgate ${command}: [^\\n]+\\n$`)),
      });
    },
  );
});
