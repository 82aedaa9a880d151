import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { committedCrdsDir, generateFixtureCrds } from '../fixtures/controller-gen/generate.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { expectFloors } from './support/case-floors.ts';
import { applyCrdFile, kubectl } from './support/kubectl.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

/**
 * The CRDs that tests compare crdgate with kube-apiserver on are controller-gen's real output for Go types of
 * crdgate's own (test/fixtures/controller-gen), not schemas written by hand to suit crdgate: they are generated
 * again here and must equal what is committed, and the API server must take each as written.
 */
describe.skipIf(!controlPlane)('controller-gen fixture CRDs', () => {
  const cp = controlPlane as ProvidedControlPlane;
  const applied: string[] = [];

  afterAll(async () => {
    if (applied.length > 0)
      await kubectl(cp, ['delete', '--ignore-not-found', '--wait=false', ...applied.map((name) => `crd/${name}`)]);
  });

  it('are what controller-gen makes of the Go types today', async () => {
    const committed = new Map(
      await Promise.all(
        (await readdir(committedCrdsDir))
          .sort()
          .map(async (file) => [file, await readFile(join(committedCrdsDir, file), 'utf8')] as const),
      ),
    );
    const generated = await generateFixtureCrds();
    // As many as today (Shape and Ruled, which the differential and check tests name): none gone, equal or not.
    expectFloors(
      'controller-gen fixture CRDs',
      { committed: committed.size, generated: generated.size },
      { committed: 2, generated: 2 },
    );
    expect([...generated.keys()]).toEqual([...committed.keys()]);
    for (const [file, text] of generated)
      expect(text, `${file} is out of date: run node test/fixtures/controller-gen/generate.ts`).toBe(
        committed.get(file),
      );
  }, 600_000);

  it('are each accepted and established by kube-apiserver as written', async () => {
    const files = (await readdir(committedCrdsDir)).sort();
    expectFloors('controller-gen fixture CRDs', { files: files.length }, { files: 2 });
    for (const file of files) {
      const name = (parse(await readFile(join(committedCrdsDir, file), 'utf8')) as { metadata: { name: string } })
        .metadata.name;
      await applyCrdFile(cp, join(committedCrdsDir, file), name);
      applied.push(name);
    }
  });
});
