import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { isPlainObject } from '../../src/contract/values/kube-object.ts';
import { shapeObject } from '../check-benchmark.ts';
import { ruledObject } from '../ruled-objects.ts';

// The CRDs the comparison revises, each with the objects to store under it: controller-gen's fixture kinds of
// test/fixtures with objects the bench already writes, and a corpus of real CRDs given by folder (each folder's
// crd.yaml and the objects of that kind among its samples/), never named in the repository.

export interface RevisionSource {
  name: string;
  crd: Record<string, unknown>;
  objects: Record<string, unknown>[];
}

const FIXTURE_CRDS = fileURLToPath(new URL('../../test/fixtures/controller-gen/crds/', import.meta.url));
const FIXTURE_OBJECTS = 8;

export async function fixtureSources(): Promise<RevisionSource[]> {
  const shapes = await readYamlDocuments(join(FIXTURE_CRDS, 'shapes.fixtures.crdgate.example.com_shapes.yaml'));
  const ruleds = await readYamlDocuments(join(FIXTURE_CRDS, 'shapes.fixtures.crdgate.example.com_ruleds.yaml'));
  const count = Array.from({ length: FIXTURE_OBJECTS }, (_, n) => n);
  return [
    { name: 'fixture Shape', crd: shapes[0]!, objects: count.map((n) => shapeObject(n) as Record<string, unknown>) },
    { name: 'fixture Ruled', crd: ruleds[0]!, objects: count.map((n) => ruledObject(n, 'new')) },
  ];
}

/** Every folder of the corpus that holds a crd.yaml; the objects are its samples of the CRD's group and kind. */
export async function corpusSources(corpusDir: string): Promise<RevisionSource[]> {
  const sources: RevisionSource[] = [];
  for (const entry of (await readdir(corpusDir, { withFileTypes: true }))
    .filter((dirent) => dirent.isDirectory())
    .sort((a, b) => a.name.localeCompare(b.name))) {
    const folder = join(corpusDir, entry.name);
    const crd = (await readYamlDocuments(join(folder, 'crd.yaml')).catch(() => []))[0];
    if (!crd || !isPlainObject(crd.spec)) continue;
    const group = String(crd.spec.group);
    const kind = isPlainObject(crd.spec.names) ? String(crd.spec.names.kind) : '';
    const samples = await readdir(join(folder, 'samples')).catch(() => [] as string[]);
    const objects: Record<string, unknown>[] = [];
    for (const sample of samples.filter((file) => /\.ya?ml$/.test(file)).sort()) {
      for (const document of await readYamlDocuments(join(folder, 'samples', sample)).catch(() => [])) {
        if (document.kind === kind && String(document.apiVersion).startsWith(`${group}/`)) objects.push(document);
      }
    }
    sources.push({ name: entry.name, crd, objects });
  }
  return sources;
}

async function readYamlDocuments(path: string): Promise<Record<string, unknown>[]> {
  return parseAllDocuments(await readFile(path, 'utf8'))
    .map((document) => document.toJS() as unknown)
    .filter(isPlainObject);
}

/** The CRD as one is applied: its spec, and of its metadata only the name. */
export function applicableCrd(crd: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: crd.apiVersion,
    kind: crd.kind,
    metadata: { name: (crd.metadata as Record<string, unknown>).name },
    spec: crd.spec,
  };
}
