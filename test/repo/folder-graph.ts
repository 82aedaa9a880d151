import { dirname } from 'node:path';
import { importsOf, sourceFiles } from './module-imports.ts';

/** One folder's imports of another: the folders, and every "file -> imported file" that makes the edge. */
export interface FolderEdge {
  readonly from: string;
  readonly to: string;
  readonly imports: readonly string[];
}

/** Tests and the fixtures only tests import may reach up a layer (a test of admission/ runs the built-in example). */
export function isTestCode(file: string): boolean {
  return file.endsWith('.test.ts') || file.endsWith('.fixture.ts');
}

/**
 * The folder-level import graph of `root` (repo-relative): an edge from a folder to each other folder its files
 * import, type-only and dynamic imports included (a Go compiler would count them too). A subfolder is a folder of its
 * own, so contract/ and contract/schema/ can make a loop. The files of `root` itself stand each alone (errors.ts is at
 * the bottom, cli.ts at the top). Test code is left out.
 */
export async function folderGraph(root: string): Promise<FolderEdge[]> {
  const placeOf = (file: string): string => (dirname(file) === root ? file : dirname(file));
  const imports = new Map<string, Map<string, string[]>>();
  for (const file of await sourceFiles(root)) {
    if (isTestCode(file)) continue;
    for (const target of await importsOf(file)) {
      if (!target.startsWith(`${root}/`)) continue;
      const from = placeOf(file);
      const to = placeOf(target);
      if (from === to) continue;
      const byTarget = imports.get(from) ?? new Map<string, string[]>();
      imports.set(from, byTarget);
      byTarget.set(to, [...(byTarget.get(to) ?? []), `${file} -> ${target}`]);
    }
  }
  return [...imports]
    .flatMap(([from, byTarget]) => [...byTarget].map(([to, files]) => ({ from, to, imports: files })))
    .sort((a, b) => a.from.localeCompare(b.from) || a.to.localeCompare(b.to));
}

/**
 * The loops of a folder graph: each set of folders that reach one another (a strongly connected component of more
 * than one folder, by Tarjan's algorithm), sorted, with the edges that run inside it.
 */
export function folderLoops(edges: readonly FolderEdge[]): FolderEdge[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (folder: string): void => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder)!);
    stack.push(folder);
    for (const to of next.get(folder) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(folder, Math.min(low.get(folder)!, low.get(to)!));
      } else if (stack.includes(to)) {
        low.set(folder, Math.min(low.get(folder)!, index.get(to)!));
      }
    }
    if (low.get(folder) !== index.get(folder)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) components.push(component.sort());
  };
  for (const folder of [...new Set(edges.flatMap(({ from, to }) => [from, to]))].sort()) {
    if (!index.has(folder)) visit(folder);
  }
  return components
    .sort((a, b) => a[0]!.localeCompare(b[0]!))
    .map((component) => edges.filter(({ from, to }) => component.includes(from) && component.includes(to)));
}
