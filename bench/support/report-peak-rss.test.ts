import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readPeakRss } from './read-peak-rss.ts';

// The bench's peak RSS of a crdgate process must count the native engine's process below it (alive until crdgate
// has exited), or a native run would look as small as Node alone. Here the child is a Node process that fills 64 MiB
// and waits on its standard input, started from a worker thread: a thread's children are counted too.
const hook = fileURLToPath(new URL('./report-peak-rss.ts', import.meta.url));
const childFills = `const keep = Buffer.alloc(64 * 2 ** 20, 1); process.stdout.write('full'); process.stdin.resume();`;
const parentStartsChildFromWorker = `
import { Worker } from 'node:worker_threads';
const worker = new Worker(\`
  const { spawn } = process.getBuiltinModule('node:child_process');
  const { parentPort } = process.getBuiltinModule('node:worker_threads');
  const child = spawn(process.execPath, ['-e', ${JSON.stringify(childFills)}], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.once('data', () => parentPort.postMessage('full'));
\`, { eval: true });
worker.once('message', () => process.exit(0));
`;

const scratch = await mkdtemp(join(tmpdir(), 'crdgate-peak-rss-test-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

function runMeasured(script: string, file: string): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', hook, '--input-type=module', '-e', script],
      { env: { ...process.env, CRDGATE_BENCH_PEAK_RSS_FILE: file } },
      (error) => (error ? reject(error) : resolve()),
    ),
  );
}

describe.runIf(process.platform === 'linux')('report-peak-rss', () => {
  it('adds the peak of a process a worker thread started, still running as the parent exits', async () => {
    const file = join(scratch, 'with-child');
    await runMeasured(parentStartsChildFromWorker, file);
    const peak = await readPeakRss(file);
    expect(peak.childrenBytes).toBeGreaterThanOrEqual(64 * 2 ** 20);
    expect(peak.selfBytes).toBeGreaterThan(0);
    expect(peak.totalBytes).toBe(peak.selfBytes + peak.childrenBytes);
  });

  it('counts no child where there is none', async () => {
    const file = join(scratch, 'alone');
    await runMeasured(`const keep = Buffer.alloc(64 * 2 ** 20, 1);`, file);
    const peak = await readPeakRss(file);
    expect(peak.childrenBytes).toBe(0);
    expect(peak.childrenCpuSeconds).toBe(0);
    expect(peak.selfBytes).toBeGreaterThanOrEqual(64 * 2 ** 20);
  });
});
