import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readFile, readdir, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { crdGateDefaults } from '../../src/config.ts';
import { crdUpdateReview, pipeCrd } from '../../src/crd-gate/crd-gate.fixture.ts';
import { parseQuantity, quantityToNumber } from '../../src/contract/values/quantity.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { crdgateImage, type SharedImage } from './support/crdgate-image.ts';
import { postJson, startCrdgateProcess } from './support/crdgate-process.ts';
import { runCommand } from './support/npm.ts';
import { kubectl, waitEstablished } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

// CRDGATE_GATE_IMAGE_OBJECTS measures the gate on more; past the gate's bound on the objects it reads (5,000 by
// default, as the Deployment runs it), the gate is given that many with --crd-gate-max-objects.
const storedObjects = Number(process.env['CRDGATE_GATE_IMAGE_OBJECTS'] || 300);
/** Pipes with a note of a few kilobytes, which the breaking revision removes. */
const fields = { size: { type: 'integer' }, note: { type: 'string' } };
const storedCrd = pipeCrd({ fields });
const crdName = storedCrd.metadata!.name!;
const group = (storedCrd.spec as { group: string }).group;

/**
 * The CRD gate as crdgate's image runs it: the image built from the Dockerfile as `docker build .` builds it (its Go
 * stage builds the API server engine), `serve --crd-gate` started from the image's /app with the image's ENV and the
 * env of the Deployment that `crdgate manifests --crd-gate` renders, judging a CRD revision against a few hundred
 * objects stored in the suite's kube-apiserver. Without the engine in the image, the gate would decide on the
 * revision's own rules alone and say so in a warning.
 */
describe.skipIf(!controlPlane)("the CRD gate in crdgate's image", () => {
  const cp = controlPlane as ProvidedControlPlane;
  const suffix = randomUUID().slice(0, 8);
  const namespace = `crdgate-e2e-gate-image-${suffix}`;
  let work: string;
  let image: SharedImage;
  let deployment: any;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'crdgate-e2e-gate-image-'));
    await chmod(work, 0o755);
    image = await crdgateImage();
    const tree = join(work, 'deploy');
    const rendered = await runCommand(
      process.execPath,
      [
        join(image.workDir, 'dist', 'cli.js'),
        'manifests',
        '--name',
        `gate-image-${suffix}`,
        '--namespace',
        namespace,
        '--crd-gate',
        crdName,
        '--out',
        tree,
      ],
      work,
    );
    expect(rendered.exitCode, rendered.stderr).toBe(0);
    const built = await kubectl(cp, ['kustomize', join(tree, 'base')]);
    expect(built.exitCode, built.stderr).toBe(0);
    deployment = parseAllDocuments(built.stdout)
      .map((doc) => doc.toJS())
      .find((object) => object.kind === 'Deployment');

    // The fixture's status is the API server's to write.
    await writeFile(join(work, 'crd.yaml'), stringify({ ...storedCrd, status: undefined }));
    const created = await kubectl(cp, ['apply', '-f', join(work, 'crd.yaml')]);
    expect(created.exitCode, created.stderr).toBe(0);
    expect((await waitEstablished(cp, crdName)).exitCode).toBe(0);
    expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
    // Objects of a few kilobytes each, as a real custom resource holds: what the engine decodes and judges.
    const pipes = Array.from({ length: storedObjects }, (_, i) => ({
      apiVersion: `${group}/v1`,
      kind: 'Pipe',
      metadata: { name: `pipe-${i}`, namespace },
      spec: { size: i, note: `pipe ${i} `.repeat(300) },
    }));
    await writeFile(join(work, 'pipes.yaml'), stringify({ apiVersion: 'v1', kind: 'List', items: pipes }));
    const stored = await kubectl(cp, ['apply', '--server-side', '-f', join(work, 'pipes.yaml')]);
    expect(stored.exitCode, stored.stderr).toBe(0);
  }, 900_000);

  afterAll(async () => {
    await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
    await kubectl(cp, ['delete', 'crd', crdName, '--wait=false', '--ignore-not-found']);
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('holds the API server engine where dist/ loads it from, built by the Go stage (.dockerignore keeps a prebuilt one out)', async () => {
    const engine = await stat(join(image.workDir, 'dist', 'api-server-engine', 'engine.wasm'));
    const native = await stat(join(image.workDir, 'dist', 'api-server-engine', 'engine-native'));
    process.stderr.write(
      `[crd-gate-image] the engine adds ${mebibytes(engine.size)} MiB (WebAssembly) and ${mebibytes(native.size)} MiB (native) to the image\n`,
    );
    expect(engine.size).toBeGreaterThan(10_000_000);
    expect(native.size).toBeGreaterThan(10_000_000);
    // Executable by the image's user, who owns nothing in /app.
    expect(native.mode & 0o001).toBe(0o001);
    // Built without C: no program interpreter (the dynamic loader of the C library it was linked against) to find
    // in the image, whichever Debian its Node is on.
    expect(await elfInterpreter(join(image.workDir, 'dist', 'api-server-engine', 'engine-native'))).toBeUndefined();
    // `npm run build` copies a prebuilt engine and its stamp from src/ into dist/ (this checkout has both): the
    // stamp's absence shows that the build stage never saw them, and the engine is the Go stage's.
    await expect(stat(join(image.workDir, 'dist', 'api-server-engine', 'engine.json'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect((await stat(join(image.workDir, 'dist', 'api-server-engine', 'engine.js'))).isFile()).toBe(true);
  });

  it('judges the stored objects against a breaking revision on the native engine, with no warning that it decided on the rules alone, within the memory the Deployment gives it (crdgate and the engine together)', async () => {
    const container = deployment.spec.template.spec.containers[0];
    expect(container.args).toContain('--crd-gate');
    const podEnv = Object.fromEntries(
      (container.env as Array<{ name: string; value: string }>).map(({ name, value }) => [name, value]),
    );
    const gate = await startCrdgateProcess(
      join(image.workDir, 'dist', 'cli.js'),
      [
        'serve',
        '--crd-gate',
        '--kubeconfig',
        cp.kubeconfigPath,
        '--port',
        '0',
        '--host',
        '127.0.0.1',
        '--cert-dir',
        join(work, 'serve-certs'),
        ...(storedObjects > crdGateDefaults.maxObjects ? ['--crd-gate-max-objects', String(storedObjects)] : []),
      ],
      image.workDir,
      { ...image.config.env, ...podEnv },
    );
    let residentBytes: number;
    let peakBytes: number;
    let engineMemory: { residentBytes: number; peakBytes: number };
    try {
      // The gate warms the engine before it serves: its process is running, and the log says which engine it is.
      expect(logLines(gate.output()).filter((line) => line.msg?.startsWith('the API server engine runs '))).toEqual([
        expect.objectContaining({
          level: 30,
          msg: expect.stringMatching(/^the API server engine runs natively: it is built \(/),
        }),
      ]);
      const idle = await memoryOfTree(gate.pid);
      expect(idle.children, 'the engine is one child process of crdgate').toHaveLength(1);
      expect(idle.children[0]!.command).toBe(join(image.workDir, 'dist', 'api-server-engine', 'engine-native'));
      const live = JSON.parse((await kubectl(cp, ['get', 'crd', crdName, '-o', 'json'])).stdout) as Parameters<
        typeof crdUpdateReview
      >[0];
      const breaking = { ...live, spec: pipeCrd({ fields: { size: fields.size } }).spec };
      const review = async () =>
        postJson(
          gate.port,
          '/crd-gate',
          crdUpdateReview(live, breaking),
          await readFile(join(work, 'serve-certs', 'ca.crt')),
        );
      const answer = await review();
      expect(answer.status).toBe(200);
      expect(answer.json.response.allowed, gate.output()).toBe(false);
      expect(answer.json.response.status.message).toContain(
        `of ${storedObjects} live objects: fieldDroppedOnRead (${storedObjects} objects`,
      );
      expect(answer.json.response.warnings ?? []).toEqual([]);
      const once = await memoryOfTree(gate.pid);
      // The same revision again, as an API server retrying the call sends it: the same answer, from the same engine.
      const again = await review();
      expect(again.json.response.status.message).toBe(answer.json.response.status.message);
      const after = await memoryOfTree(gate.pid);
      expect(after.children.map((child) => child.pid)).toEqual(idle.children.map((child) => child.pid));
      ({ residentBytes, peakBytes } = after);
      engineMemory = after.children[0]!;
      process.stderr.write(
        `[crd-gate-image] serve --crd-gate resident before judging: ${mebibytes(idle.residentBytes)} MiB (the engine ${mebibytes(idle.children[0]!.residentBytes)} MiB), ` +
          `after the first review ${mebibytes(once.residentBytes)} MiB, after the second ${mebibytes(after.residentBytes)} MiB\n`,
      );
    } finally {
      expect(await gate.stop()).toBe(0);
    }
    // Nothing went wrong around the engine (its warnings name it), and nothing else failed.
    expect(
      logLines(gate.output()).filter(
        (line) => (line.level ?? 0) >= 50 || ((line.level ?? 0) >= 40 && /engine/.test(line.msg ?? '')),
      ),
    ).toEqual([]);
    const { requests, limits } = container.resources as { requests: { memory: string }; limits: { memory: string } };
    process.stderr.write(
      `[crd-gate-image] serve --crd-gate after judging ${storedObjects} objects: ${mebibytes(residentBytes)} MiB resident, ${mebibytes(peakBytes)} MiB at the peak (the native engine ${mebibytes(engineMemory.residentBytes)} and ${mebibytes(engineMemory.peakBytes)} MiB of them); ` +
        `the Deployment requests ${requests.memory} and limits to ${limits.memory}\n`,
    );
    expect(residentBytes).toBeLessThan(bytes(requests.memory));
    expect(peakBytes).toBeLessThan(bytes(limits.memory));
  });
});

interface ProcessMemory {
  pid: number;
  /** The executable it runs. */
  command: string;
  residentBytes: number;
  peakBytes: number;
}

/** The process's resident set now (VmRSS) and at its peak (VmHWM), what the kernel counts against a memory limit. */
async function memoryOf(pid: number): Promise<ProcessMemory> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => {
    const kib = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
    if (!kib) throw new Error(`no ${name} in /proc/${pid}/status`);
    return Number(kib) * 1024;
  };
  return { pid, command: await readlink(`/proc/${pid}/exe`), residentBytes: field('VmRSS'), peakBytes: field('VmHWM') };
}

/**
 * crdgate's memory with its child processes' (the native engine), as a container's memory limit counts them: their
 * resident sets now, and the sum of their peaks (at least the peak of their sum, which /proc does not keep).
 */
async function memoryOfTree(
  pid: number,
): Promise<{ residentBytes: number; peakBytes: number; children: ProcessMemory[] }> {
  const own = await memoryOf(pid);
  // Every thread's children: the engine is started from a worker thread of crdgate's.
  const childPids = (
    await Promise.all(
      (await readdir(`/proc/${pid}/task`)).map((task) => readFile(`/proc/${pid}/task/${task}/children`, 'utf8')),
    )
  ).flatMap((text) =>
    text
      .split(' ')
      .filter((word) => word !== '')
      .map(Number),
  );
  const children = await Promise.all(childPids.map(memoryOf));
  const sum = (key: 'residentBytes' | 'peakBytes') => [own, ...children].reduce((total, each) => total + each[key], 0);
  return { residentBytes: sum('residentBytes'), peakBytes: sum('peakBytes'), children };
}

/** The JSON lines of crdgate's log. */
function logLines(output: string): Array<{ level?: number; msg?: string }> {
  return output.split('\n').flatMap((line) => (line.startsWith('{') ? [JSON.parse(line) as { msg?: string }] : []));
}

/** The program interpreter an ELF executable names (PT_INTERP), undefined for one linked statically. */
async function elfInterpreter(path: string): Promise<string | undefined> {
  const elf = await readFile(path);
  expect(elf.subarray(0, 4).toString('latin1')).toBe('\x7fELF');
  // 64-bit, little-endian: the only Linux builds the image is made for (amd64, arm64).
  expect([elf[4], elf[5]]).toEqual([2, 1]);
  const programHeaders = Number(elf.readBigUInt64LE(0x20));
  const entrySize = elf.readUInt16LE(0x36);
  const count = elf.readUInt16LE(0x38);
  for (let index = 0; index < count; index += 1) {
    const header = programHeaders + index * entrySize;
    if (elf.readUInt32LE(header) !== 3) continue;
    const offset = Number(elf.readBigUInt64LE(header + 0x08));
    const size = Number(elf.readBigUInt64LE(header + 0x20));
    return elf.subarray(offset, offset + size - 1).toString('latin1');
  }
  return undefined;
}

function mebibytes(bytes: number): number {
  return Math.round(bytes / 2 ** 20);
}

function bytes(quantity: string): number {
  const parsed = parseQuantity(quantity);
  if (!parsed) throw new Error(`${quantity} is not a quantity`);
  return quantityToNumber(parsed);
}
