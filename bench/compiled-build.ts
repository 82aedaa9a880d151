import { execFile } from 'node:child_process';
import { access, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { placeBuiltEngine } from '../src/api-server-engine/build-engine.ts';

export interface CompiledBuild {
  /** src/ compiled, as `npm run build` makes dist/ for the image. */
  srcDir: string;
  /** bench/ compiled: the server scripts, so that no server process loads Node's TypeScript stripper. */
  benchDir: string;
  cliPath: string;
  /** Anything tsc reported (type errors still emit JS, and colleagues' work in progress should not stop the bench). */
  diagnostics: string;
  remove(): Promise<void>;
}

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const buildTimeoutMs = 120_000;

/**
 * The image runs compiled JavaScript (`node dist/cli.js`), not src/*.ts through Node's type stripping, which keeps
 * its own compiler resident (tens of MiB) and strips every file at start-up. So the servers run from a compiled
 * copy of src/ and bench/, built into a temporary directory: the repository's dist/ is left alone.
 */
export async function buildCompiledCopy(): Promise<CompiledBuild> {
  const root = await mkdtemp(join(tmpdir(), 'crdgate-bench-build-'));
  const outDir = join(root, 'out');
  const remove = () => rm(root, { recursive: true, force: true });
  try {
    const tsconfig = join(root, 'tsconfig.json');
    await writeFile(
      tsconfig,
      JSON.stringify({
        extends: join(repoRoot, 'tsconfig.json'),
        compilerOptions: { noEmit: false, outDir, rootDir: repoRoot, sourceMap: false },
        include: [join(repoRoot, 'src'), join(repoRoot, 'bench')],
        exclude: [join(repoRoot, 'src/**/*.test.ts'), join(repoRoot, 'src/**/*.fixture.ts')],
      }),
    );
    // "type": "module" makes the .js files ES modules; packages (and tsc's @types) resolve from the repository's
    // node_modules.
    await writeFile(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
    await symlink(join(repoRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    const diagnostics = await runTsc(['-p', tsconfig]);
    const build = {
      srcDir: join(outDir, 'src'),
      benchDir: join(outDir, 'bench'),
      cliPath: join(outDir, 'src', 'cli.js'),
      diagnostics,
      remove,
    };
    await access(build.cliPath);
    // As `npm run build` puts it into dist/: crdgate check judges through it. The servers never load it.
    await placeBuiltEngine(join(build.srcDir, 'api-server-engine'));
    return build;
  } catch (error) {
    await remove();
    throw error;
  }
}

function runTsc(args: string[]): Promise<string> {
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [tsc, ...args],
      { cwd: repoRoot, timeout: buildTimeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        // Exit code 1 or 2 with output means diagnostics, and the JavaScript was emitted all the same.
        if (error && (error.killed || typeof error.code !== 'number')) reject(error);
        else resolve(`${stdout}${stderr}`.trim());
      },
    );
  });
}
