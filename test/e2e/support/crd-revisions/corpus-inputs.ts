import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import type { Crd, CrdWithObjects } from './crd.ts';

/**
 * Real CRDs from a folder given at run time (CRDGATE_CRD_CORPUS): a folder per CRD, each with `crd.yaml` and
 * `samples/*.yaml` (multi-document; documents of other kinds, or of versions the CRD does not serve, are skipped).
 * Samples are made ready to store by asSample, and their status left out. A CRD whose conversion is a webhook is
 * observed with conversion None (no webhook runs here), which the report says.
 */
export async function corpusInputs(
  dir: string,
  namespace: string,
): Promise<{ inputs: CrdWithObjects[]; notes: string[] }> {
  const inputs: CrdWithObjects[] = [];
  const notes: string[] = [];
  for (const folder of (await readdir(dir, { withFileTypes: true }))
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()) {
    const crd = (await readDocuments(join(dir, folder, 'crd.yaml'))).find(
      (document) => document?.['kind'] === 'CustomResourceDefinition',
    ) as Crd | undefined;
    if (!crd) {
      notes.push(`${folder}: no CustomResourceDefinition in crd.yaml`);
      continue;
    }
    if (crd.spec.conversion?.strategy === 'Webhook') {
      crd.spec.conversion = { strategy: 'None' };
      notes.push(`${folder}: conversion webhook replaced by None`);
    }
    const served = new Set(
      crd.spec.versions.filter((version) => version.served).map((version) => `${crd.spec.group}/${version.name}`),
    );
    const samples = await readdir(join(dir, folder, 'samples')).catch(() => [] as string[]);
    const objects: KubeObject[] = [];
    for (const file of samples.filter((name) => /\.ya?ml$/.test(name)).sort()) {
      for (const document of await readDocuments(join(dir, folder, 'samples', file))) {
        if (document?.['kind'] !== crd.spec.names.kind || !served.has(String(document['apiVersion']))) continue;
        const { status: _status, ...withoutStatus } = document as KubeObject;
        objects.push(asSample(withoutStatus, objects.length, crd, namespace));
      }
    }
    inputs.push({ source: folder, crd, objects });
  }
  return { inputs, notes };
}

/**
 * An upstream example as the test stores it: named `sample-N` (examples share names), in the test's namespace for a
 * namespaced kind, without finalizers or owner references (a delete then deletes at once) or a generateName.
 */
export function asSample(document: KubeObject, index: number, crd: Crd, namespace: string): KubeObject {
  const { metadata, ...rest } = document;
  const {
    finalizers: _finalizers,
    ownerReferences: _owners,
    namespace: _namespace,
    name: _name,
    generateName: _generateName,
    ...kept
  } = (metadata ?? {}) as Record<string, unknown>;
  return {
    ...rest,
    metadata: { ...kept, name: `sample-${index}`, ...(crd.spec.scope === 'Cluster' ? {} : { namespace }) },
  } as KubeObject;
}

async function readDocuments(path: string): Promise<Array<Record<string, unknown> | null>> {
  return parseAllDocuments(await readFile(path, 'utf8')).map(
    (document) => document.toJS() as Record<string, unknown> | null,
  );
}
