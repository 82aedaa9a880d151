import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { folderGraph, folderLoops } from './folder-graph.ts';
import { importsOf, repo } from './module-imports.ts';

// The layers of src/ are listed once in layers.config.js (lowest first) and described in docs/development.md#layers;
// eslint.config.js makes a rule of each entry. These tests hold the real import graph to that list, and show that
// the lint rule fires on an import up the layers.

type Layers = ReadonlyArray<readonly [string, readonly string[]]>;
const layersModule = new URL('../../layers.config.js', import.meta.url).href;
const { layers } = (await import(layersModule)) as { layers: Layers };
const allowed = new Map(layers.map(([place, imports]) => [place, imports]));
const placeName = (path: string): string => path.replace(/^src\//, '');

describe('the layers of src/', () => {
  it('no loop of folders, subfolders included', async () => {
    const loops = folderLoops(await folderGraph('src')).map((loop) => loop.flatMap(({ imports }) => imports));
    expect(loops).toEqual([]);
  });

  it('every import between places is one the list allows (dynamic and type-only imports too)', async () => {
    const refused = (await folderGraph('src'))
      .filter(({ from, to }) => !(allowed.get(placeName(from)) ?? []).includes(placeName(to)))
      .flatMap(({ imports }) => imports);
    expect(refused).toEqual([]);
  });

  it('every folder of src/ and file of src/ itself that imports or is imported has its place in the list', async () => {
    const edges = await folderGraph('src');
    const places = new Set(edges.flatMap(({ from, to }) => [placeName(from), placeName(to)]));
    expect(places.size).toBeGreaterThan(30);
    expect([...places].filter((place) => !allowed.has(place))).toEqual([]);
  });

  it('the list is in order: each place imports only places above it', () => {
    const upward = layers.flatMap(([place, imports], index) =>
      imports
        .filter((other) => !layers.slice(0, index).some(([earlier]) => earlier === other))
        .map((other) => `${place} -> ${other}`),
    );
    expect(upward).toEqual([]);
  });

  it('docs/development.md lists the same places in the same order, each with the same imports', async () => {
    const page = await readFile(join(repo, 'docs/development.md'), 'utf8');
    const start = page.indexOf('\n## Layers\n');
    const section = page.slice(start, page.indexOf('\n## ', start + 1));
    // An item may wrap onto lines indented under it.
    const listed = [...section.matchAll(/^- `([^`]+)`: (.*(?:\n {2}.*)*)$/gm)].map(([, place, rest]) => [
      place!.replace(/\/$/, ''),
      [...rest!.matchAll(/`([^`]+)`/g)].map(([, other]) => other!.replace(/\/$/, '')),
    ]);
    expect(listed).toEqual(layers.map(([place, imports]) => [place, [...imports]]));
  });

  it('reads imports as written, dynamic ones too (the checks above would pass on nothing otherwise)', async () => {
    expect(await importsOf('src/kube/kube-api.ts')).toContain('src/abort/stop-signal.ts');
    expect(await importsOf('src/commands/check.ts')).toContain('src/migrate/rate-limiter.ts');
    const edges = await folderGraph('src');
    expect(edges.find(({ from, to }) => from === 'src/commands' && to === 'src/kube')?.imports).toContain(
      'src/commands/migrate.ts -> src/kube/kube-api.ts',
    );
  });

  it('`npm run --silent layers` prints the graph, says there is no loop, and exits 0', () => {
    const run = spawnSync('npm', ['run', '--silent', 'layers'], { cwd: repo, encoding: 'utf8' });
    expect(run.stdout.split('\n')).toEqual(
      expect.arrayContaining([
        'src/kube -> src/abort, src/contract/values, src/log.ts',
        'src/errors.ts -> (nothing in src/)',
        'no folder loop',
      ]),
    );
    expect(run.stdout).not.toMatch(/^loop: /m);
    expect(run.status).toBe(0);
  });

  it('finds a loop of folders, and one between a folder and its subfolder', () => {
    const edge = (from: string, to: string) => ({ from, to, imports: [`${from}/a.ts -> ${to}/b.ts`] });
    const edges = [edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('d', 'd/e'), edge('d/e', 'd'), edge('f', 'a')];
    const loops = folderLoops(edges).map((loop) => loop.map(({ from, to }) => `${from}>${to}`));
    expect(loops).toEqual([
      ['a>b', 'b>c', 'c>a'],
      ['d>d/e', 'd/e>d'],
    ]);
  });
});

describe('npm run lint refuses an import up the layers', () => {
  const layerRuleIds = ['no-restricted-imports', 'no-restricted-syntax'];

  /** The layer rules ESLint has configured for `file`, run on `code` as if it were that file. */
  async function layerProblems(file: string, code: string): Promise<string[]> {
    const config = await new ESLint({ cwd: repo }).calculateConfigForFile(file);
    const rules = Object.fromEntries(layerRuleIds.map((rule) => [rule, config.rules[rule]]));
    const only = { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules };
    const linted = new Linter().verify(code, only, file);
    return linted.map(({ ruleId, fatal }) => (fatal ? 'fatal' : String(ruleId)));
  }

  it('a static import of admission/ from kube/ fails no-restricted-imports; one of abort/ passes', async () => {
    const upward = "import type { Verdict } from '../admission/verdict.ts';\n";
    expect(await layerProblems('src/kube/upward.ts', upward)).toEqual(['no-restricted-imports']);
    const downward = "import { StopRequested } from '../abort/stop-signal.ts';\n";
    expect(await layerProblems('src/kube/downward.ts', downward)).toEqual([]);
  });

  it('a dynamic import up the layers fails no-restricted-syntax', async () => {
    const upward = "export const load = () => import('../server/serve.ts');\n";
    expect(await layerProblems('src/migrate/upward.ts', upward)).toEqual(['no-restricted-syntax']);
  });

  it('a subfolder is a place of its own: crd-revision/ may not import compare/, compare/ may import it', async () => {
    const upward = "import { compareCrdRevisions } from './compare/compare-crd-revisions.ts';\n";
    expect(await layerProblems('src/crd-revision/upward.ts', upward)).toEqual(['no-restricted-imports']);
    const downward = "import type { Finding } from '../finding.ts';\n";
    expect(await layerProblems('src/crd-revision/compare/downward.ts', downward)).toEqual([]);
  });

  it('a file of src/ itself: errors.ts may import nothing of src/', async () => {
    const upward = "import type { Logger } from './log.ts';\n";
    expect(await layerProblems('src/errors.ts', upward)).toEqual(['no-restricted-imports']);
  });
});
