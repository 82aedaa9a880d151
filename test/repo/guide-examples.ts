import { readFile } from 'node:fs/promises';

export interface GuideExample {
  /** The file name on the block's first line (`// bucket-contract.ts`, `# crds/database-crd.yaml`). */
  file: string;
  code: string;
}

export const guideUrl = new URL('../../docs/contracts.md', import.meta.url);

/**
 * The TypeScript blocks of a guide (the contract guide unless another is named) that name a file on their first line,
 * in order: examples that import each other by those names and import crdgate as a user does ('crdgate',
 * 'crdgate/testing'). The name may be a path under the guide's project (`src/contract.ts`).
 */
export async function guideExamples(url: URL = guideUrl): Promise<GuideExample[]> {
  const guide = await readFile(url, 'utf8');
  return [...guide.matchAll(/^```ts\n\/\/ ([\w.-]+(?:\/[\w.-]+)*\.ts)\n([\s\S]*?)^```$/gm)].map(([, file, code]) => ({
    file: file!,
    code: code!,
  }));
}

/** The YAML blocks of a guide that name a file on their first line (`# crds/database-crd.yaml`), whole, that line included. */
export async function guideYamlFiles(url: URL): Promise<GuideExample[]> {
  const guide = await readFile(url, 'utf8');
  return [...guide.matchAll(/^```yaml\n(# ([\w.-]+(?:\/[\w.-]+)*\.yaml)\n[\s\S]*?)^```$/gm)].map(([, code, file]) => ({
    file: file!,
    code: code!,
  }));
}

/** Where a guide's examples import crdgate from when run against its source: the public modules, as files. */
export const publicModules = {
  crdgate: new URL('../../src/index.ts', import.meta.url).href,
  'crdgate/testing': new URL('../../src/testing.ts', import.meta.url).href,
};

/** An example's source with 'crdgate' and 'crdgate/testing' imported from crdgate's source, or from `modules`. */
export function importingSource(
  code: string,
  modules: Record<keyof typeof publicModules, string> = publicModules,
): string {
  return code.replace(
    /from '(crdgate(?:\/testing)?)'/g,
    (_, name: keyof typeof publicModules) => `from '${modules[name]}'`,
  );
}

export interface GuideCommand {
  /** The command's words after `npx crdgate`. */
  argv: string[];
  /** The exit code a `# exits N` comment on its line gives; 0 without one. */
  exitCode: number;
  /** The ```text block right after the command's ```sh block, when there is one: what it prints. */
  output?: string;
}

/** The `npx crdgate` commands of a guide's ```sh blocks, in order, each with the output shown after its block. */
export async function guideCommands(url: URL): Promise<GuideCommand[]> {
  const guide = await readFile(url, 'utf8');
  const commands: GuideCommand[] = [];
  for (const [, block, output] of guide.matchAll(/^```sh\n([\s\S]*?)^```\n(?:\n```text\n([\s\S]*?)^```$)?/gm)) {
    const lines = block!.split('\n').filter((line) => line.startsWith('npx crdgate '));
    for (const line of lines) {
      const [command = '', comment = ''] = line.slice('npx crdgate '.length).split(/\s+#\s*/, 2);
      commands.push({
        argv: command.trim().split(/\s+/),
        exitCode: Number(/^exits (\d+)/.exec(comment)?.[1] ?? 0),
        ...(output !== undefined && lines.length === 1 ? { output } : {}),
      });
    }
  }
  return commands;
}
