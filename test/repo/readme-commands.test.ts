import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli-runner.fixture.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const prefix = 'npm run --silent crdgate -- ';

// The commands README.md and the pages of docs/ show on the repository's own files, as a reader pastes them into a
// checkout.
const pages = ['README.md', ...(await readdir(join(repoRoot, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)];
const commands = (await Promise.all(pages.map((page) => readFile(join(repoRoot, page), 'utf8'))))
  .flatMap((text) => text.split('\n'))
  .filter((line) => line.startsWith(prefix))
  .map((line) => line.slice(prefix.length).trim().split(/\s+/));

describe("README.md's and docs/'s `npm run crdgate` examples", () => {
  it('are found', () => {
    expect(commands.map((argv) => argv[0])).toEqual(expect.arrayContaining(['check', 'convert']));
  });

  it.each(commands.map((argv) => [argv.join(' '), argv] as const))('%s: names files that exist, and exits as the text around it says', async (_, argv) => {
    const files = argv.flatMap((arg, i) => (argv[i - 1] === '-f' ? [arg] : []));
    for (const file of files) await access(`${repoRoot}${file}`);
    const { code, stderr } = await runCli(repoRoot, ...argv);
    // 2 is bad usage or an unreadable file; check exits 1 on the denial it is there to show.
    expect(code, stderr).toBe(argv[0] === 'check' ? 1 : 0);
  });
});

// The README's quick start is two commands on a fresh machine: one installs and serves the built-in example, one runs
// every test; CI runs the second as the README gives it.
describe("README.md's quick start", () => {
  it('is the two commands, and CI runs the test command as written', async () => {
    const readme = await readFile(join(repoRoot, 'README.md'), 'utf8');
    const block = /^## Quick start\n[\s\S]*?^```sh\n([\s\S]*?)^```$/m.exec(readme)?.[1];
    const quickStart = block?.split('\n').filter(Boolean).map((line) => line.replace(/\s+#.*$/, ''));
    expect(quickStart).toEqual(['npm ci && npm start', 'npm test']);
    expect(await readFile(join(repoRoot, '.ci/run'), 'utf8')).toMatch(/^npm test\b/m);
  });

  // The check example of "Try it" follows `npm ci && npm start`: the engine it runs on is built by npm ci's prepare
  // (build-engine.test.ts runs that step with and without Go).
  it('builds the engine that `crdgate check` needs in npm ci, before the compiled copy takes it', async () => {
    const { scripts } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(scripts['prepare']).toMatch(/build-engine\.ts --if-go --place dist\/api-server-engine$/);
    expect(await readFile(join(repoRoot, 'README.md'), 'utf8')).toMatch(/`npm ci` also builds the API server engine that `crdgate check` runs/);
  });
});
