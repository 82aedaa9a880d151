// npm run test:fresh [-- --keep]: the suite's tool-building path as a new machine runs it. With an empty crdgate cache
// and an empty Go build cache (the Go module cache is kept: it holds sources, not builds), vitest runs the test files
// that use each tool, so its setup builds every tool from nothing first, as `npm test` does on a fresh machine. Run it
// before submitting any change that touches a build or a tool.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findGo, goEnv } from '../../src/control-plane/go-toolchain.ts';
import { requireE2eVariable } from '../missing-prerequisite.ts';
import { SUITE_TOOLS } from './suite-tools.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));

async function main(args: string[]): Promise<number> {
  const go = await findGo(process.env);
  if (!go) {
    process.stderr.write('test:fresh: Go is not installed (no `go` on PATH): there is no tool-building path to run\n');
    return 2;
  }
  const root = await mkdtemp(join(tmpdir(), 'crdgate-fresh-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CACHE_HOME: join(root, 'cache'),
    GOCACHE: join(root, 'go-build'),
    // Named, so that the new cache home cannot move it.
    GOMODCACHE: await goEnv(go, 'GOMODCACHE', process.env),
    [requireE2eVariable]: '1',
  };
  delete env['KUBEBUILDER_ASSETS'];
  const files = [...new Set(SUITE_TOOLS.flatMap((tool) => tool.provenBy))];
  process.stderr.write(
    `test:fresh: empty caches in ${root} (crdgate's and Go's build cache; Go's module cache kept: ${env['GOMODCACHE']})\n` +
      `test:fresh: building ${SUITE_TOOLS.map((tool) => tool.name).join(', ')}, then running ${files.join(', ')}\n`,
  );
  const started = Date.now();
  try {
    const code = await run(join(repo, 'node_modules', '.bin', 'vitest'), ['run', ...files], env);
    process.stderr.write(
      `test:fresh: vitest exited ${code} after ${Math.round((Date.now() - started) / 1000)} s (tools and tests)\n`,
    );
    return code;
  } finally {
    if (args.includes('--keep')) process.stderr.write(`test:fresh: kept ${root}\n`);
    else await rm(root, { recursive: true, force: true });
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repo, env, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
