import { spawnSync } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { dockerfile } from '../../src/scaffold/project-files.ts';
import { scaffoldNames } from '../../src/scaffold/scaffold-names.ts';
import { imageNodeOptions } from '../../src/render/server-workload.ts';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** The NODE_OPTIONS of every container in the committed manifests, by file and container. */
async function manifestNodeOptions(): Promise<Array<[string, string]>> {
  const found: Array<[string, string]> = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('.yaml')) {
        for (const doc of parseAllDocuments(await readFile(path, 'utf8'))) {
          const object = doc.toJS() as any;
          const pod = object?.spec?.template?.spec ?? object?.spec?.jobTemplate?.spec?.template?.spec;
          for (const container of pod?.containers ?? []) {
            for (const variable of container.env ?? []) {
              if (variable.name === 'NODE_OPTIONS')
                found.push([`${path.slice(repo.length)} ${object.kind}/${container.name}`, variable.value]);
            }
          }
        }
      }
    }
  };
  await walk(join(repo, 'manifests'));
  return found;
}

/** What the pinned Node says when it starts with `value` as NODE_OPTIONS, as a container's entrypoint would. */
function startWith(value: string): { status: number | null; stderr: string } {
  const result = spawnSync(process.execPath, ['-e', '0'], {
    env: { PATH: process.env['PATH'], NODE_OPTIONS: value },
    encoding: 'utf8',
  });
  return { status: result.status, stderr: result.stderr.trim() };
}

// Node takes only some V8 flags from NODE_OPTIONS and exits 9 at start on any other; on the command line it takes
// them all, which is how a test that passes flags itself missed a pod that could not start.
describe('every NODE_OPTIONS crdgate ships is one Node starts with', () => {
  it('knows what a refused option looks like (so that an accepted one means something)', () => {
    expect(startWith('--min-semi-space-size=16')).toEqual({
      status: 9,
      stderr: expect.stringContaining('is not allowed in NODE_OPTIONS'),
    });
  });

  it("the image's ENV", async () => {
    const value = /^ENV NODE_OPTIONS="([^"]*)"$/m.exec(await readFile(join(repo, 'Dockerfile'), 'utf8'))?.[1];
    expect(value).toBe(imageNodeOptions);
    expect(startWith(value!)).toEqual({ status: 0, stderr: '' });
  });

  it('every container of the rendered manifests: the server of each overlay and the migration Job', async () => {
    const found = await manifestNodeOptions();
    expect(found.map(([where]) => where)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^manifests\/base\/.* Deployment\/crdgate$/),
        expect.stringMatching(/^manifests\/migration\/.* Job\/migrate$/),
      ]),
    );
    for (const [where, value] of found)
      expect({ where, ...startWith(value) }).toEqual({ where, status: 0, stderr: '' });
  });

  it('the Dockerfile that crdgate init scaffolds', () => {
    const versions = {
      crdgate: '0.1.0',
      node: process.versions.node,
      typescript: '6.0.3',
      typesNode: '24.19.2',
      fastCheck: '4.10.2',
    };
    const text = dockerfile(scaffoldNames('example.com', 'Widget'), versions);
    const value = /^ENV NODE_OPTIONS="([^"]*)"$/m.exec(text)?.[1];
    expect(value).toBe(imageNodeOptions);
    expect(startWith(value!)).toEqual({ status: 0, stderr: '' });
  });
});
