import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { committedCrdsDir } from '../fixtures/controller-gen/generate.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { apiServerJudgement, type Judgement } from './support/differential/api-server-judge.ts';
import { storedDifferences } from './support/differential/compare.ts';
import { crdgate } from './support/crdgate-cli.ts';
import { applyCrdFile, kubectl } from './support/kubectl.ts';
import { restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const group = 'shapes.fixtures.crdgate.example.com';
type Spec = Record<string, unknown>;
const shape = (name: string, spec: Spec) => ({
  apiVersion: `${group}/v1`,
  kind: 'Shape',
  metadata: { name },
  spec: { port: 80, storage: '1Gi', ...spec },
});
const ruled = (name: string, spec: Spec) => ({ apiVersion: `${group}/v1`, kind: 'Ruled', metadata: { name }, spec });
const plurals: Record<string, string> = { Shape: 'shapes', Ruled: 'ruleds' };

/**
 * `crdgate check --crd` on a tree of custom resources whose kinds no contract declares, only controller-gen's CRDs
 * (test/fixtures/controller-gen/crds) saying what they are: the real CLI decides, and the same objects are put to
 * kube-apiserver (installed CRDs, dry runs with strict field validation, as kubectl sends them), which must agree on
 * every outcome, every refused field, and on what it would store.
 */
describe.skipIf(!controlPlane)(
  'crdgate check --crd and kube-apiserver on custom resources of controller-gen CRDs',
  () => {
    const cp = controlPlane as ProvidedControlPlane;
    const namespace = `crdgate-e2e-check-crd-${randomUUID().slice(0, 8)}`;
    let rest: Rest;
    let work: string;

    const transitionBefore = { storageClass: 'fast', size: '2Gi', owner: 'alice' };
    const newTree = [
      shape('allowed', {
        ports: [{ name: 'http', number: 80 }],
        template: { spec: { containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 80 }] }] } },
      }),
      shape('denied', { replicas: 20, size: 'huge', maxUnavailable: '120%' }),
      ruled('cel-refused', { image: 'a', imageRef: 'b', tier: 'gold', replicasMin: 1 }),
      ruled('transition-refused', { storageClass: 'slow', size: '1Gi', owner: 'bob' }),
      ruled('transition-unchanged', transitionBefore),
    ];
    const oldTree = [ruled('transition-refused', transitionBefore), ruled('transition-unchanged', transitionBefore)];

    beforeAll(async () => {
      for (const file of (await readdir(committedCrdsDir)).sort()) {
        const name = (parse(await readFile(join(committedCrdsDir, file), 'utf8')) as { metadata: { name: string } })
          .metadata.name;
        await applyCrdFile(cp, join(committedCrdsDir, file), name);
      }
      expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
      rest = restClient(cp.kubeconfigPath, { maxSockets: 4 });
      work = await mkdtemp(join(tmpdir(), 'crdgate-e2e-check-crd-'));
      const inNamespace = (object: { metadata: object }) => ({
        ...object,
        metadata: { ...object.metadata, namespace },
      });
      for (const [folder, objects] of [
        ['new', newTree],
        ['old', oldTree],
      ] as const) {
        await mkdir(join(work, folder, 'apps'), { recursive: true });
        await writeFile(
          join(work, folder, 'apps', 'resources.yaml'),
          objects.map((o) => stringify(inNamespace(o))).join('---\n'),
        );
      }
    });

    afterAll(async () => {
      rest?.close();
      if (work) await rm(work, { recursive: true, force: true });
      await kubectl(cp, ['delete', 'namespace', namespace, '--wait=false', '--ignore-not-found']);
    });

    /** kube-apiserver's answer to one object: a dry-run create, or with its previous revision a dry-run update. */
    const apiServer = (object: { kind: string; metadata: { name: string } }, oldObject?: object): Promise<Judgement> =>
      apiServerJudgement(
        rest,
        { group, version: 'v1', plural: plurals[object.kind]!, namespace },
        {
          name: object.metadata.name,
          mutation: 'none',
          object: object as never,
          ...(oldObject ? { oldObject: oldObject as never } : {}),
        },
        `${object.metadata.name}-${randomUUID().slice(0, 6)}`,
      );

    /** What `crdgate check --defaulted json` prints for one object, with its previous revision as --old when given. */
    async function defaultedAlone(
      object: { metadata: { name: string } },
      oldObject?: { metadata: { name: string } },
    ): Promise<unknown> {
      const dir = join(work, `alone-${object.metadata.name}`);
      const inNamespace = (o: { metadata: object }) => stringify({ ...o, metadata: { ...o.metadata, namespace } });
      await mkdir(join(dir, 'old'), { recursive: true });
      await writeFile(join(dir, 'new.yaml'), inNamespace(object));
      if (oldObject) await writeFile(join(dir, 'old', 'old.yaml'), inNamespace(oldObject));
      const run = await crdgate(
        dir,
        'check',
        '-f',
        'new.yaml',
        ...(oldObject ? ['--old', 'old'] : []),
        '--crd',
        committedCrdsDir,
        '--defaulted',
        'json',
      );
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    }

    it('decides as kube-apiserver does: allowed, refused by the schema and by CEL rules, transition rules against --old', async () => {
      const run = await crdgate(work, 'check', '-f', 'new', '--old', 'old', '--crd', committedCrdsDir, '-o', 'json');
      expect(run.code, run.stderr).toBe(1);
      const report = JSON.parse(run.stdout) as {
        summary: Record<string, unknown>;
        objects: Array<{
          name: string;
          operation: string;
          allowed: boolean;
          causes: Array<{ field: string; message: string }>;
          message?: string;
        }>;
      };
      expect(report.summary).toMatchObject({ checked: 5, allowed: 2, denied: 3, crds: 2 });
      const verdicts = Object.fromEntries(report.objects.map((o) => [o.name, o]));
      expect(
        Object.fromEntries(report.objects.map((o) => [o.name, `${o.operation} ${o.allowed ? 'allowed' : 'denied'}`])),
      ).toEqual({
        allowed: 'CREATE allowed',
        denied: 'CREATE denied',
        'cel-refused': 'CREATE denied',
        'transition-refused': 'UPDATE denied',
        'transition-unchanged': 'UPDATE allowed',
      });
      const fields = (name: string) => [...new Set(verdicts[name]!.causes.map((c) => c.field))].sort();
      expect(fields('denied')).toEqual(['spec.maxUnavailable', 'spec.replicas', 'spec.size']);
      expect(verdicts['cel-refused']!.causes.map((c) => c.message).sort()).toEqual([
        'Invalid value: image and imageRef are mutually exclusive',
        'Invalid value: the gold tier needs at least 2 replicas',
      ]);
      expect(fields('transition-refused')).toEqual(['spec', 'spec.size', 'spec.storageClass']);

      // The same objects, put to kube-apiserver.
      let storedCompared = 0;
      for (const object of newTree) {
        const old = oldTree.find((o) => o.metadata.name === object.metadata.name);
        const judged = await apiServer(object, old);
        const ours = verdicts[object.metadata.name]!;
        expect(judged.allowed, `${object.metadata.name}: ${JSON.stringify(judged)}`).toBe(ours.allowed);
        if (!judged.allowed) {
          expect(fields(object.metadata.name), object.metadata.name).toEqual(judged.fields);
          // In the API server's words: each of its messages is one of crdgate's causes.
          expect(ours.causes.map((c) => `${c.field}: ${c.message}`).sort(), object.metadata.name).toEqual(
            [...judged.messages].sort(),
          );
        } else {
          // And what it would store: crdgate's --defaulted of this object alone (against its previous revision).
          expect(storedDifferences(judged.stored, await defaultedAlone(object, old)), object.metadata.name).toEqual([]);
          storedCompared++;
        }
      }
      expect(storedCompared).toBe(2);
    }, 300_000);

    it('prints with --defaulted what kube-apiserver would store: the schema defaults, in list items too', async () => {
      const run = await crdgate(
        work,
        'check',
        '-f',
        join('new', 'apps', 'resources.yaml'),
        '--crd',
        committedCrdsDir,
        '--defaulted',
        'yaml',
      );
      // Three objects are denied: nothing is printed then, so the allowed one is checked alone.
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      await writeFile(
        join(work, 'allowed.yaml'),
        stringify({ ...newTree[0], metadata: { name: 'allowed', namespace } }),
      );
      const alone = await crdgate(
        work,
        'check',
        '-f',
        'allowed.yaml',
        '--crd',
        committedCrdsDir,
        '--defaulted',
        'yaml',
      );
      expect(alone.code, alone.stderr).toBe(0);
      const [stored] = parseAllDocuments(alone.stdout).map((d) => d.toJS() as { spec: Spec });
      expect(stored!.spec).toMatchObject({
        replicas: 1,
        size: 'small',
        retention: { mode: 'Retain', days: 7 },
        ports: [{ name: 'http', number: 80, protocol: 'TCP' }],
      });
      expect(alone.stderr).toContain('default spec.ports[0].protocol: "TCP"');
      const judged = await apiServer(newTree[0]!);
      expect(judged.allowed).toBe(true);
      expect(stored!.spec).toEqual((judged as { stored: { spec: Spec } }).stored.spec);
    }, 120_000);
  },
);
