import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { runCommand } from './support/npm.ts';

// crdgate packed once per run, as `npm pack` makes it for publishing (its prepare script builds dist/), for the
// tests that install it into projects of their own outside the repository.
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const repo = fileURLToPath(new URL('../..', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'crdgate-packed-'));
  const packed = await runCommand('npm', ['pack', '--json', '--pack-destination', dir], repo);
  if (packed.exitCode !== 0) throw new Error(`npm pack failed (exit ${packed.exitCode}):\n${packed.stderr}`);
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string }];
  project.provide('packedCrdgate', { tarball: join(dir, filename) });
  return () => rm(dir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    packedCrdgate: { tarball: string };
  }
}
