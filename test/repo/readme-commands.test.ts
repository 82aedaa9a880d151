import { execFile, spawn } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli-runner.fixture.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const prefix = 'npm run --silent crdgate -- ';

// The commands README.md and the pages of docs/ show on the repository's own files, as a reader pastes them into a
// checkout.
const pages = [
  'README.md',
  ...(await readdir(join(repoRoot, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`),
];
const texts = await Promise.all(pages.map((page) => readFile(join(repoRoot, page), 'utf8')));
const commands = texts
  .flatMap((text) => text.split('\n'))
  .filter((line) => line.startsWith(prefix))
  .map((line) => line.slice(prefix.length).trim().split(/\s+/));
/** What a page shows a command printing: the plain ``` or ```text block right after the command's own block. */
const shownOutputs = new Map(
  texts.flatMap((text) =>
    [...text.matchAll(/^```sh\n(npm run --silent crdgate -- .*)\n```\n\n```(?:text)?\n([\s\S]*?)^```$/gm)].map(
      ([, line, output]) => [line!.slice(prefix.length).trim(), output!] as const,
    ),
  ),
);

describe("README.md's and docs/'s `npm run crdgate` examples", () => {
  it('are found', () => {
    expect(commands.map((argv) => argv[0])).toEqual(expect.arrayContaining(['check', 'convert']));
  });

  it.each(commands.map((argv) => [argv.join(' '), argv] as const))(
    '%s: names files that exist, exits as the text around it says, and prints what the page shows',
    async (_, argv) => {
      const files = argv.flatMap((arg, i) => (argv[i - 1] === '-f' ? [arg] : []));
      for (const file of files) await access(`${repoRoot}${file}`);
      const { code, stdout, stderr } = await runCli(repoRoot, ...argv);
      // 2 is bad usage or an unreadable file; check exits 1 on the denial it is there to show.
      expect(code, stderr).toBe(argv[0] === 'check' ? 1 : 0);
      const shown = shownOutputs.get(argv.join(' '));
      if (shown !== undefined) expect(stdout).toBe(shown);
    },
  );

  it("include the README's check, whose output the README shows and the test compares", () => {
    expect([...shownOutputs.keys()]).toContain('check -f test/fixtures/check/tree/apps/geo/databases.yaml');
  });
});

// "Try it": the README's curl, as written, against the server `npm start` runs (on a free port and a certificate
// folder of its own), answers what the README shows, up to the parts it leaves out ("...").
describe("README.md's Try it", () => {
  it('posts the fixture with curl and gets the denial the README shows', async () => {
    const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Try it'));
    const curl = /^```sh\n(curl [\s\S]*?)^```$/m
      .exec(section)![1]!
      .replace(/\\\n\s*/g, ' ')
      .trim();
    const shown = /^```json\n([\s\S]*?)^```$/m.exec(section)![1]!;
    const { scripts } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const [, ...startArgs] = scripts['start']!.split(' ');
    const certDir = await mkdtemp(join(tmpdir(), 'crdgate-readme-start-'));
    const server = spawn(
      process.execPath,
      [...startArgs, '--port', '0', '--host', '127.0.0.1', '--cert-dir', certDir],
      { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let log = '';
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`npm start's server did not serve within 20 s:\n${log}`)),
          20_000,
        );
        server.stdout.on('data', (chunk: Buffer) => {
          log += chunk.toString();
          const serving = /"port":(\d+)[^\n]*"msg":"crdgate is serving"/.exec(log);
          if (!serving) return;
          clearTimeout(timer);
          resolve(Number(serving[1]));
        });
      });
      const command = curl
        .replace('certs/ca.crt', join(certDir, 'ca.crt'))
        .replace('https://127.0.0.1:8443', `https://127.0.0.1:${port}`);
      const { stdout } = await promisify(execFile)('sh', ['-c', command], { cwd: repoRoot });
      // The README wraps the one line for reading and leaves parts out: every part it shows is there, in order.
      const squeezed = (text: string) => text.replace(/\s+/g, '');
      const answer = squeezed(stdout);
      let from = 0;
      for (const part of squeezed(shown).split(/\.\.\.(?:oneperfield\.\.\.)?/)) {
        const at = answer.indexOf(part, from);
        expect(
          at,
          `the README's "${part}" is not in the answer after position ${from}:\n${stdout}`,
        ).toBeGreaterThanOrEqual(0);
        from = at + part.length;
      }
    } finally {
      server.kill('SIGTERM');
      await rm(certDir, { recursive: true, force: true });
    }
  }, 30_000);
});

// The README's quick start is two commands on a fresh machine: one installs and serves the built-in example, one runs
// every test; CI runs the second as the README gives it.
describe("README.md's quick start", () => {
  it('is the two commands, and CI runs the test command as written', async () => {
    const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
    const block = /^## Quick start\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(readme)?.[1];
    const quickStart = block
      ?.split('\n')
      .filter(Boolean)
      .map((line) => line.replace(/\s+#.*$/, ''));
    expect(quickStart).toEqual(['npm ci && npm start', 'npm test']);
    expect(await readFile(join(repoRoot, '.ci/run'), 'utf8')).toMatch(/^npm test\b/m);
  });

  // The check example of "Try it" follows `npm ci && npm start`: the engine it runs on is built by npm ci's prepare
  // (build-engine.test.ts runs that step with and without Go).
  it('builds the engine that `crdgate check` needs in npm ci, before the compiled copy takes it', async () => {
    const { scripts } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts['prepare']).toMatch(/build-engine\.ts --if-go --place dist\/api-server-engine$/);
    expect(await readFile(join(repoRoot, 'README.md'), 'utf8')).toMatch(
      /`npm ci` also builds the API server engine that `crdgate check` runs/,
    );
  });
});
