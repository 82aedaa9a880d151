import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('./bin.ts', import.meta.url));

/** Runs the `crdgate` entry point as a process; `pretendNode` makes it see another Node.js version. */
function runBin(args: string[], pretendNode?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const pretend = pretendNode
    ? ['--import', `data:text/javascript,Object.defineProperty(process.versions, 'node', { value: '${pretendNode}' })`]
    : [];
  return new Promise((resolve) => {
    execFile(process.execPath, [...pretend, bin, ...args], (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

describe('the crdgate command (bin)', () => {
  it('runs the CLI on the Node version crdgate needs', async () => {
    const result = await runBin(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('usage: crdgate COMMAND');
  });

  it('says in one line which Node it needs, and exits 2, on an older one', async () => {
    const engines = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')).engines
      .node as string;
    const required = /^>=(\d+)/.exec(engines)?.[1];
    const result = await runBin(['serve'], '20.20.2');
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^crdgate: Node\\.js ${required} or newer is required, this is Node\\.js 20\\.20\\.2 `),
      ),
    ]);
  });
});

/** The files a `crdgate` process loads, recorded by a module hook installed before the entry point runs. */
async function filesLoadedBy(args: string[]): Promise<string[]> {
  const recorder = `import { registerHooks } from 'node:module';
const loaded = [];
registerHooks({ load(url, context, nextLoad) { loaded.push(url); return nextLoad(url, context); } });
process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(loaded) + '\\n'));`;
  const result = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(recorder)}`, bin, ...args],
      (error, _stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stderr)),
    );
  });
  const line = result.split('\n').find((l) => l.startsWith('LOADED '));
  if (!line) throw new Error(`no LOADED line in: ${result}`);
  return JSON.parse(line.slice('LOADED '.length)) as string[];
}

describe('what a command loads', () => {
  const fromPackage = (files: string[], name: string) => files.filter((url) => url.includes(`/node_modules/${name}/`));
  // A module's path under commands/ ('serve/flags'): a command with files of its own keeps them in its folder.
  const commandModules = (files: string[]) =>
    files.map((url) => /\/commands\/([\w/-]+)\.[jt]s$/.exec(url)?.[1]).filter((name) => name !== undefined);

  it('serve loads neither node-forge nor yaml nor another command, so they stay out of its heap', async () => {
    const files = await filesLoadedBy(['serve', '--help']);
    expect(files.some((url) => url.endsWith('/server/serve.ts'))).toBe(true);
    expect(fromPackage(files, 'node-forge')).toEqual([]);
    expect(fromPackage(files, 'yaml')).toEqual([]);
    const modules = commandModules(files);
    expect(modules).toContain('serve/serve');
    expect(new Set(modules.filter((name) => !name.startsWith('serve/')))).toEqual(
      new Set(['command', 'contracts', 'parent-exit', 'system-error']),
    );
  });

  it('certs does load node-forge (the recorder sees what a command imports)', async () => {
    const files = await filesLoadedBy(['certs', '--help']);
    expect(fromPackage(files, 'node-forge')).not.toEqual([]);
    expect(commandModules(files).filter((name) => name.startsWith('serve/'))).toEqual([]);
  });
});
