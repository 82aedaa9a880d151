import { readFile } from 'node:fs/promises';

export interface GuideExample {
  /** The file name on the block's first line (`// bucket-contract.ts`). */
  file: string;
  code: string;
}

export const guideUrl = new URL('../../docs/contracts.md', import.meta.url);

/**
 * The TypeScript blocks of the contract guide that name a file on their first line, in order: examples that
 * import each other by those names and import crdgate as a user does ('crdgate', 'crdgate/testing').
 */
export async function guideExamples(): Promise<GuideExample[]> {
  const guide = await readFile(guideUrl, 'utf8');
  return [...guide.matchAll(/^```ts\n\/\/ ([\w.-]+\.ts)\n([\s\S]*?)^```$/gm)].map(([, file, code]) => ({ file: file!, code: code! }));
}
