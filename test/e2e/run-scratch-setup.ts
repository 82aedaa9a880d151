import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { removeCrdgateImage } from './support/crdgate-image.ts';

// A folder for what the e2e files of one run share and build once (crdgate's image), removed when the run ends.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const scratch = await mkdtemp(join(tmpdir(), 'crdgate-e2e-run-'));
  project.provide('runScratch', scratch);
  return async () => {
    await removeCrdgateImage(scratch);
    await rm(scratch, { recursive: true, force: true });
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    runScratch: string;
  }
}
