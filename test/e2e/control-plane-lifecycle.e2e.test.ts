import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startControlPlane } from '../../src/control-plane/control-plane.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';

const provided = laneControlPlane();
const available = !('unavailable' in provided);

// The processes started for a control plane, found by its (unique) folder in their arguments.
function processesUsing(dir: string): string[] {
  const all = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' }).split('\n');
  return all.filter((line) => line.includes(dir));
}

describe.skipIf(!available)('startControlPlane / stop', () => {
  const { assetsDir } = provided as ProvidedControlPlane;

  it('starts etcd and kube-apiserver with extra flags, and stop() leaves nothing behind', async () => {
    const controlPlane = await startControlPlane({
      assetsDir,
      extraApiServerFlags: ['--service-cluster-ip-range=10.1.0.0/24'],
    });
    let stopped = false;
    try {
      expect(
        processesUsing(controlPlane.dir)
          .map((line) => /\/(etcd|kube-apiserver) /.exec(line)?.[1])
          .sort(),
      ).toEqual(['etcd', 'kube-apiserver']);
      // The extra flag replaced the default rather than being appended to it.
      const apiServerArgs = processesUsing(controlPlane.dir).find((line) => line.includes('/kube-apiserver ')) ?? '';
      expect(apiServerArgs.match(/--service-cluster-ip-range=\S+/g)).toEqual([
        '--service-cluster-ip-range=10.1.0.0/24',
      ]);
      expect((await fetch(`${controlPlane.etcdUrl}/health`)).status).toBe(200);

      await Promise.all([controlPlane.stop(), controlPlane.stop()]);
      stopped = true;
      expect(processesUsing(controlPlane.dir)).toEqual([]);
      expect(existsSync(controlPlane.dir)).toBe(false);
      await expect(fetch(`${controlPlane.etcdUrl}/health`)).rejects.toThrow();
      await controlPlane.stop(); // still fine afterwards
    } finally {
      if (!stopped) await controlPlane.stop();
    }
  });

  it('fails with the tail of kube-apiserver output when it cannot start, and cleans up', async () => {
    const lines: string[] = [];
    await expect(
      startControlPlane({ assetsDir, extraApiServerFlags: ['--no-such-flag=1'], log: (line) => lines.push(line) }),
    ).rejects.toThrow(
      /kube-apiserver exited with code 1 before GET \/healthz succeeded; end of its output:\n.*unknown flag: --no-such-flag/s,
    );
    const dir = /control plane folder (\S+)/.exec(lines.join('\n'))?.[1];
    expect(dir).toBeDefined();
    expect(processesUsing(dir ?? 'missing')).toEqual([]);
    expect(existsSync(dir ?? 'missing')).toBe(false);
  });
});
