import { spawn } from 'node:child_process';
import { request } from 'node:https';
import { scratchEnv } from './npm.ts';

export interface CrdgateProcess {
  port: number;
  pid: number;
  /** Everything the process wrote, for failure messages. */
  output: () => string;
  /** SIGTERM, then the exit code once it has exited. */
  stop: () => Promise<number | null>;
}

/**
 * Starts an installed crdgate (`node BIN serve ...`) as its own process, as a container would, and waits for its
 * "crdgate is serving" log line, which names the port (start it with --port 0). `extraEnv` adds to its environment
 * (an image's ENV).
 */
export function startCrdgateProcess(
  bin: string,
  args: string[],
  cwd: string,
  extraEnv: Record<string, string> = {},
): Promise<CrdgateProcess> {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd,
    env: { ...scratchEnv(), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`crdgate did not start within 30 s:\n${output}`));
    }, 30_000);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const serving = output
        .split('\n')
        .flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as { msg?: string; port?: number }] : []))
        .find((entry) => entry.msg === 'crdgate is serving');
      if (serving?.port === undefined) return;
      clearTimeout(timer);
      resolve({
        port: serving.port,
        pid: child.pid!,
        output: () => output,
        stop: () => {
          child.kill('SIGTERM');
          return exited;
        },
      });
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`crdgate exited with ${code} before serving:\n${output}`));
    });
  });
}

/** POSTs JSON over HTTPS to 127.0.0.1, trusting only `ca`; resolves with the status and the parsed answer. */
export function postJson(
  port: number,
  path: string,
  body: unknown,
  ca: Buffer,
): Promise<{ status: number; json: any }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ca,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}
