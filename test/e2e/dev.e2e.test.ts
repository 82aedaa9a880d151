import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, readlink, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneControlPlane } from './provided-context.ts';
import { startDev, type DevProcess } from './support/dev-process.ts';
import { runCommand, scratchEnv, type CommandResult } from './support/npm.ts';

// `crdgate dev` as a user runs it: one command in one terminal, kubectl in another, the contract edited in between.

const controlPlane = laneControlPlane();
const repo = fileURLToPath(new URL('../..', import.meta.url));
const crdgateEntry = pathToFileURL(join(repo, 'src/index.ts')).href;

/**
 * A user's Queue contract: an invariant tied to `maxDepth`, and a machine that refuses any change of `depth` in
 * Pending. `depth` is scaled through a scale subresource, so the server reads the control plane's kubeconfig as it
 * starts (for the stored objects behind /scale reviews).
 */
function queueContract(options: { maxDepth: number; extraField?: string }): string {
  const extra = options.extraField ? `, ${options.extraField}: { type: 'string' }` : '';
  return `import { defineContract, fieldClassifier, fieldError, readInteger, whenDifferent } from '${crdgateEntry}';

export default defineContract({
  identity: { group: 'dev.example.com', kind: 'Queue', plural: 'queues', singular: 'queue', scope: 'Namespaced' },
  hub: 'v1',
  versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: {
    spec: { type: 'object', required: ['depth'], properties: { depth: { type: 'integer', minimum: 1 }${extra} } },
    status: { type: 'object', properties: { phase: { type: 'string' }, depth: { type: 'integer' } } },
  } }, subresources: { status: {}, scale: { specReplicasPath: '.spec.depth', statusReplicasPath: '.status.depth' } } }],
  conversions: {},
  invariants: [(queue) => ((queue.spec?.depth ?? 0) > ${options.maxDepth} ? [fieldError('spec.depth', 'FieldValueInvalid', 'a queue is at most ${options.maxDepth} deep')] : [])],
  transitions: {
    name: 'Queue', subject: 'queue',
    states: ['Pending', 'Ready', 'Deleting'], initialState: 'Pending', steadyState: 'Ready', deletingState: 'Deleting',
    terminalStates: ['Deleting'], humanInterventionStates: [], phasePath: 'status.phase',
    changeKinds: { resize: { description: 'changing the depth from {from} to {to}' } },
    rules: { Pending: { operatorMoves: ['Ready'] }, Ready: { allow: [{ changes: ['resize'] }], operatorMoves: ['Pending'] }, Deleting: {} },
    overrideAnnotation: 'dev.example.com/override-transitions',
    classifiers: [fieldClassifier({ path: 'depth', read: readInteger, compare: whenDifferent('resize') })],
  },
});
`;
}

const queue = (name: string, spec: Record<string, unknown>): string =>
  JSON.stringify({ apiVersion: 'dev.example.com/v1', kind: 'Queue', metadata: { name, namespace: 'default' }, spec });

/** Processes whose command line names this folder: etcd's data, kube-apiserver's certificates, crdgate's. */
async function processesUsing(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry))) {
    const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(dir)) found.push(`${pid}: ${cmdline.replaceAll('\0', ' ')}`);
  }
  return found;
}

/** Processes whose working folder is this one. */
async function processesIn(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const pid of (await readdir('/proc')).filter((entry) => /^\d+$/.test(entry))) {
    if ((await readlink(`/proc/${pid}/cwd`).catch(() => '')) === dir) found.push(pid);
  }
  return found;
}

describe.skipIf('unavailable' in controlPlane)('crdgate dev', () => {
  let project: string;
  // kubectl's input is written outside the watched folder, or every kubectl call would reload the contract.
  let scratch: string;
  let dev: DevProcess;
  let kubectl: (args: string[], stdin?: string) => Promise<CommandResult>;

  beforeAll(async () => {
    if ('unavailable' in controlPlane) return;
    project = await mkdtemp(join(tmpdir(), 'crdgate-dev-e2e-'));
    scratch = await mkdtemp(join(tmpdir(), 'crdgate-dev-e2e-input-'));
    await writeFile(join(project, 'queue.ts'), queueContract({ maxDepth: 10 }));
    dev = startDev(project, controlPlane.assetsDir, './queue.ts');
    const [, kubeconfig] = await dev.waitFor(/export KUBECONFIG=(\S+)/, 120_000);
    const [, path] = await dev.waitFor(/export PATH="([^":]+):\$PATH"/);
    kubectl = async (args, stdin) => {
      const file = join(scratch, `input-${Date.now()}.json`);
      if (stdin !== undefined) await writeFile(file, stdin);
      return runCommand(
        join(path!, 'kubectl'),
        [`--kubeconfig=${kubeconfig}`, ...args, ...(stdin !== undefined ? ['-f', file] : [])],
        project,
        60_000,
      );
    };
  });

  afterAll(async () => {
    if (dev && dev.child.exitCode === null) dev.child.kill('SIGKILL');
    for (const dir of [project, scratch]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('starts clean: crdgate is served once the kubeconfig it reads exists, so nothing warns about it, and no stack is printed', async () => {
    const [, dataDir] = /logs and data in (\S+)/.exec(dev.output()) ?? [];
    // The first generation's log: crdgate serve, which reads the control plane's kubeconfig as it starts.
    const log = await readFile(join(dataDir!, 'crdgate-1.log'), 'utf8');
    const entries = log
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(entries.map((entry) => entry.msg)).toContain('crdgate is serving');
    expect(entries.filter((entry) => entry.level >= 40)).toEqual([]);
    expect(log).not.toMatch(/kubeconfig|"stack"/);
    expect(dev.output()).not.toMatch(/warn|cannot load|^\s+at /im);
  });

  it('puts the contract in front of the API server: kubectl is refused a bad object and an unsupported change', async () => {
    expect(dev.output()).toMatch(/ready in [\d.]+ s: kube-apiserver v1\.\d+\.\d+/);
    const tooDeep = await kubectl(['create'], queue('too-deep', { depth: 12 }));
    expect(tooDeep.exitCode).not.toBe(0);
    // The invariant's own words: crdgate decided, as a 422 with causes that kubectl prints as "is invalid".
    expect(tooDeep.stderr).toContain('The Queue "too-deep" is invalid: spec.depth: a queue is at most 10 deep');

    const created = await kubectl(['create'], queue('orders', { depth: 3 }));
    expect(created.stderr).toBe('');
    expect(created.exitCode).toBe(0);
    const resized = await kubectl(['patch', 'queue', 'orders', '--type=merge', '-p', '{"spec":{"depth":4}}']);
    expect(resized.exitCode).not.toBe(0);
    expect(resized.stderr).toContain('admission webhook "validate.queues.dev.example.com" denied the request');
    expect(resized.stderr).toContain(
      'spec.depth: changing the depth from 3 to 4 is not allowed while the queue is Pending',
    );
  });

  it('reloads an edit of the contract, in crdgate and in the CRD it gave the API server', async () => {
    const unknownField = await kubectl(['create'], queue('with-owner', { depth: 2, owner: 'team-a' }));
    expect(unknownField.stderr).toContain('unknown field "spec.owner"');

    // Saved as vim and sed -i save: a new file renamed over the old one. The next edit writes in place, and must
    // still be seen (Node's recursive fs.watch loses a file after such a save).
    await writeFile(join(project, 'queue.ts.swp'), queueContract({ maxDepth: 20, extraField: 'owner' }));
    await rename(join(project, 'queue.ts.swp'), join(project, 'queue.ts'));
    await dev.waitFor(/reloaded: generation 2 serves/);
    const deeper = await kubectl(['create'], queue('deeper', { depth: 15, owner: 'team-a' }));
    expect(deeper.stderr).toBe('');
    expect(deeper.exitCode).toBe(0);
    const tooDeep = await kubectl(['create'], queue('too-deep', { depth: 25 }));
    expect(tooDeep.stderr).toContain('a queue is at most 20 deep');
  });

  it('notices that its serving process died, says so, and starts it again: kubectl writes are decided again', async () => {
    const [, port] = /reloaded: generation 2 serves at https:\/\/127\.0\.0\.1:(\d+)/.exec(dev.output()) ?? [];
    const [, dataDir] = /logs and data in (\S+)/.exec(dev.output()) ?? [];
    const serving = (await processesUsing(dataDir!)).filter((line) => / serve .*--port \d+ /.test(line));
    const [pid] = serving.filter((line) => line.includes(` --port ${port} `)).map((line) => Number(line.split(':')[0]));
    expect(pid, serving.join('\n')).toBeGreaterThan(0);
    process.kill(pid!, 'SIGKILL');
    const [died] = await dev.waitFor(
      /generation 2's crdgate serve was killed by SIGKILL \(its log: \S+\): starting it again.*/,
    );
    expect(died).toContain(join(dataDir!, 'crdgate-2.log'));
    await dev.waitFor(/restarted: generation 3 serves at https:\/\/127\.0\.0\.1:\d+/, 120_000);
    // The restarted server decides, with the contract as last edited (at most 20 deep, the owner field known).
    const tooDeep = await kubectl(['create'], queue('after-restart', { depth: 25, owner: 'team-b' }));
    expect(tooDeep.stderr).toContain('a queue is at most 20 deep');
    const fine = await kubectl(['create'], queue('after-restart', { depth: 5, owner: 'team-b' }));
    expect(fine.stderr).toBe('');
    expect(fine.exitCode).toBe(0);
  });

  it('keeps the last good contract serving when an edit does not load, and says why', async () => {
    await writeFile(join(project, 'queue.ts'), 'export default 42;\n');
    const [failure] = await dev.waitFor(/the edit did not load, so generation 3 keeps serving:\n.*\n?.*/);
    expect(failure).toContain('--contract ./queue.ts: the default export must be a contract');
    // The user ran crdgate dev: the child command's name is not theirs to decode.
    expect(failure).not.toMatch(/crdgate (manifests|serve):/);
    const tooDeep = await kubectl(['create'], queue('still-guarded', { depth: 25 }));
    expect(tooDeep.stderr).toContain('a queue is at most 20 deep');
  });

  it('stops everything it started on SIGTERM', async () => {
    const [, dataDir] = /logs and data in (\S+)/.exec(dev.output()) ?? [];
    expect(dataDir).toBeDefined();
    expect(await processesUsing(dataDir!)).not.toEqual([]);
    dev.child.kill('SIGTERM');
    expect(await dev.exited).toBe(0);
    expect(dev.output()).toMatch(/SIGTERM: stopping[^]*stopped\n$/);
    expect(await processesUsing(dataDir!)).toEqual([]);
  });
});

describe.skipIf('unavailable' in controlPlane)('crdgate dev through npm run', () => {
  let project: string;
  let wrapper: ChildProcess | undefined;
  let dataDir: string | undefined;

  afterAll(async () => {
    if (wrapper && wrapper.exitCode === null) wrapper.kill('SIGKILL');
    // What a failed run left behind: crdgate dev (run in the project), and what it started.
    const left = [...(project ? await processesIn(project) : []), ...(dataDir ? await processesUsing(dataDir) : [])];
    for (const pid of left.map((line) => Number.parseInt(line))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    if (project) await rm(project, { recursive: true, force: true });
  });

  // npm forwards the signal to the `sh -c` it runs the script in, which dies of it and never passes it on.
  it('stops with its wrapper: SIGTERM to `npm run dev` leaves no crdgate, kube-apiserver or etcd running', async () => {
    if ('unavailable' in controlPlane) return;
    project = await mkdtemp(join(tmpdir(), 'crdgate-dev-npm-e2e-'));
    const dev = `"${process.execPath}" "${join(repo, 'src/bin.ts')}" dev`;
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'dev-wrapper', private: true, scripts: { dev } }),
    );
    const child = spawn('npm', ['run', 'dev'], {
      cwd: project,
      env: { ...scratchEnv(), KUBEBUILDER_ASSETS: controlPlane.assetsDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    wrapper = child;
    let output = '';
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await expect.poll(() => output, { timeout: 120_000, interval: 200 }).toContain('Ctrl-C stops everything.');
    dataDir = /logs and data in (\S+)/.exec(output)![1]!;
    expect(await processesUsing(dataDir)).not.toEqual([]);

    child.kill('SIGTERM');
    await exited;
    await expect.poll(() => processesUsing(dataDir!), { timeout: 30_000, interval: 250 }).toEqual([]);
    expect(output).toMatch(/its parent process exited: stopping[^]*stopped\n$/);
  });
});
