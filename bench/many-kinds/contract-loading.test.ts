import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readCorpus } from '../../test/fixtures/crd-corpus/corpus.ts';
import { measureContractLoading, type ContractLoadingPlan } from './contract-loading.ts';
import { writeContractProjects, type ContractProjects } from './contract-projects.ts';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

describe("the --many-kinds mode's timing of a guard's start-up, part by part", () => {
  let projects: ContractProjects;
  let plan: ContractLoadingPlan;

  beforeAll(async () => {
    // The corpus' smallest CRD: the parts are timed from source, as `npm run bench -- --many-kinds --from-source`.
    const smallest = readCorpus().crds.reduce((least, crd) => (crd.text.length < least.text.length ? crd : least));
    projects = await writeContractProjects([smallest], 0, { srcDir: `${repoRoot}src`, extension: 'ts' });
    plan = {
      benchDir: `${repoRoot}bench`,
      extension: 'ts',
      cwd: projects.dir,
      env: { ...(process.env as Record<string, string>), HOME: projects.dir },
      nodeOptions: '',
      modules: projects.kinds.map((kind) => kind.modules.external!),
      crdFiles: projects.kinds.map((kind) => kind.crdFile),
      rounds: 1,
    };
  }, 60_000);
  afterAll(() => projects?.remove());

  it('times reading the CRD, importing the module and making the contract, each in a process that did it', async () => {
    const parts = await measureContractLoading(plan);
    for (const ms of [parts.readMs, parts.importMs, parts.registryMs]) {
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThan(60_000);
    }
  }, 60_000);

  it('fails, saying why, when a module cannot be loaded', async () => {
    await expect(measureContractLoading({ ...plan, modules: ['./no-such-module.ts'] })).rejects.toThrow(
      /no-such-module/,
    );
  }, 60_000);
});
