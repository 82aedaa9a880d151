import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { laneControlPlane } from './provided-context.ts';
import { guideExamples, guideYamlFiles, importingSource } from '../repo/guide-examples.ts';
import { startDev, type DevProcess } from './support/dev-process.ts';

// docs/guarding-an-operator.md, section 5, as its reader runs it: `crdgate dev` on the guide's project (its CRD, its
// contract), then the section's kubectl block line by line, each refused with the words the guide shows under it
// and every other line succeeding. The output `crdgate dev` prints is the one the guide and docs/local-loop.md show,
// up to times, ports and paths.

const controlPlane = laneControlPlane();
const pages = {
  guide: new URL('../../docs/guarding-an-operator.md', import.meta.url),
  localLoop: new URL('../../docs/local-loop.md', import.meta.url),
};

interface KubectlStep {
  command: string;
  /** The `# ...` lines under it: the error kubectl prints, wrapped for reading; none when it succeeds. */
  refusal?: string;
}

/** The ```sh block that starts with `firstLine`, as commands (a heredoc joined to its command) with what each prints. */
function kubectlSteps(page: string, firstLine: string): KubectlStep[] {
  const block = new RegExp(`^\`\`\`sh\\n(${firstLine}\\n[\\s\\S]*?)^\`\`\`$`, 'm').exec(page)![1]!;
  const steps: KubectlStep[] = [];
  let heredoc: string | undefined;
  for (const line of block.split('\n').filter(Boolean)) {
    const last = steps.at(-1);
    if (heredoc !== undefined) {
      last!.command += `\n${line}`;
      if (line === heredoc) heredoc = undefined;
    } else if (line.startsWith('# ')) {
      last!.refusal = `${last!.refusal ?? ''} ${line.slice(2)}`.trim();
    } else {
      steps.push({ command: line });
      heredoc = /<<'(\w+)'$/.exec(line)?.[1];
    }
  }
  return steps;
}

/** The lines a page shows `crdgate dev` printing, as patterns: times, ports and folders vary from run to run. */
function devOutputPattern(page: string): RegExp {
  const shown = /^```sh\nnpx crdgate dev --contract[^\n]*\n```\n\n```\w*\n([\s\S]*?)^```$/m.exec(page)![1]!;
  const escaped = shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // The folders first, then every number left (times, ports, versions).
  const pattern = escaped
    .replace(/PATH="[^"]*:\\\$PATH"/, 'PATH="[^"]+:\\$PATH"')
    .replace(/\/tmp\/crdgate-dev-\w+/g, '\\S+/crdgate-dev-\\w+')
    .replace(/watching \S+/, 'watching \\S+')
    .replace(/\d+(\\\.\d+)*/g, '[\\d.]+');
  return new RegExp(`^${pattern}`);
}

const squeezed = (text: string) => text.replace(/\s+/g, ' ').trim();

describe.skipIf('unavailable' in controlPlane)(
  "the operator guide's crdgate dev and kubectl (docs/guarding-an-operator.md)",
  () => {
    let project: string;
    let guide: string;
    let dev: DevProcess;
    let kubectlEnv: NodeJS.ProcessEnv;

    beforeAll(async () => {
      if ('unavailable' in controlPlane) return;
      guide = await readFile(pages.guide, 'utf8');
      project = await mkdtemp(join(tmpdir(), 'crdgate-guide-dev-'));
      for (const { file, code } of [
        ...(await guideYamlFiles(pages.guide)),
        ...(await guideExamples(pages.guide)).map((e) => ({ ...e, code: importingSource(e.code) })),
      ]) {
        await mkdir(dirname(join(project, file)), { recursive: true });
        await writeFile(join(project, file), code);
      }
      const contract = /^npx crdgate dev --contract (\S+)$/m.exec(guide)![1]!;
      dev = startDev(project, controlPlane.assetsDir, contract);
      const [, kubeconfig] = await dev.waitFor(/export KUBECONFIG=(\S+)/, 120_000);
      const [, path] = await dev.waitFor(/export PATH="([^":]+):\$PATH"/);
      await dev.waitFor(/Ctrl-C stops everything\.\n/);
      kubectlEnv = { ...process.env, KUBECONFIG: kubeconfig, PATH: `${path}:${process.env['PATH']}` };
    }, 180_000);

    afterAll(async () => {
      if (dev && dev.child.exitCode === null) {
        dev.child.kill('SIGTERM');
        await dev.exited;
      }
      if (project) await rm(project, { recursive: true, force: true });
    });

    it('prints what the guide and the local-loop page show crdgate dev printing', async () => {
      for (const page of Object.values(pages))
        expect(dev.output()).toMatch(devOutputPattern(await readFile(page, 'utf8')));
    });

    it("runs the guide's kubectl block: each line succeeds, or is refused with the words shown under it", async () => {
      const steps = kubectlSteps(guide, 'kubectl create namespace shop');
      expect(steps.filter((step) => step.refusal !== undefined)).toHaveLength(2);
      for (const { command, refusal } of steps) {
        const ran = await new Promise<{ code: number; stderr: string }>((resolve) =>
          execFile(
            'sh',
            ['-c', command],
            { cwd: project, env: kubectlEnv, timeout: 60_000 },
            (error, _stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr }),
          ),
        );
        if (refusal === undefined) expect({ command, ...ran }).toMatchObject({ command, code: 0 });
        else
          expect({ command, code: ran.code, stderr: squeezed(ran.stderr) }).toEqual({
            command,
            code: 1,
            stderr: refusal,
          });
      }
    });
  },
);
