import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseAllDocuments } from 'yaml';
import type { KubeObject } from '../../src/contract/values/kube-object.ts';
import { predictStoredObject } from '../../src/crd-revision/objects/predict-stored-object.ts';
import { storedObjectRevisionFindings } from '../../src/crd-revision/objects/revision-findings.ts';
import { prepareCrdRevision } from '../../src/crd-revision/objects/revision-under-test.ts';
import { storedObjectFindings } from '../../src/crd-revision/objects/stored-object-findings.ts';
import { createStoredObjectTally } from '../../src/crd-revision/objects/stored-object-tally.ts';

// crdgate's prediction of what a CRD revision does to stored objects (src/crd-revision/objects), as a process of its
// own for the bench: `node bench/crd-tools/predict-revision.ts --old OLD_CRD --new NEW_CRD PATH...` (files, or
// folders read through), the objects as `kubectl get -o yaml` gives them, one file at a time so that memory stays flat in their number. Prints JSON: the
// objects judged, how many objects had each set of rules found (`a+b`: a histogram, so that objects with any of
// several rules can be counted without a list of objects), the tally's entries, and whether any finding is an error. Until `crdgate check` takes stored objects, the bench times
// this in its place.

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { old: { type: 'string' }, new: { type: 'string' } },
    allowPositionals: true,
  });
  if (!values.old || !values.new) throw new Error('usage: predict-revision.ts --old OLD_CRD --new NEW_CRD FILE...');
  const [oldCrd, newCrd] = await Promise.all([readFirstDocument(values.old), readFirstDocument(values.new)]);
  const revision = prepareCrdRevision(oldCrd, newCrd);
  const tally = createStoredObjectTally({ examples: 3 });
  tally.addRevision(revision.name, storedObjectRevisionFindings(revision));
  const ruleSets = new Map<string, number>();
  let objects = 0;
  for await (const path of filesIn(positionals)) {
    for (const document of parseAllDocuments(await readFile(path, 'utf8'))) {
      const read = document.toJS() as (KubeObject & { items?: KubeObject[] }) | null;
      if (!read) continue;
      // `kubectl get -o yaml` of several objects answers a List of them.
      for (const object of Array.isArray(read.items) && String(read.kind).endsWith('List') ? read.items : [read]) {
        const findings = storedObjectFindings(revision, object, predictStoredObject(revision, object));
        tally.addObject(revision.name, findings);
        objects += 1;
        const rules = [...new Set(findings.map((finding) => finding.rule))].sort().join('+');
        if (rules) ruleSets.set(rules, (ruleSets.get(rules) ?? 0) + 1);
      }
    }
  }
  const updateRefused = revision.updateRefusal !== undefined;
  process.stdout.write(
    `${JSON.stringify({ summary: { checked: objects }, updateRefused, ruleSets: Object.fromEntries(ruleSets), entries: tally.entries(), failed: tally.failed() })}\n`,
  );
}

async function* filesIn(paths: readonly string[]): AsyncGenerator<string> {
  for (const path of paths) {
    if (!(await stat(path)).isDirectory()) {
      yield path;
      continue;
    }
    const entries = (await readdir(path)).sort();
    yield* filesIn(entries.map((entry) => join(path, entry)));
  }
}

async function readFirstDocument(path: string): Promise<unknown> {
  return parseAllDocuments(await readFile(path, 'utf8'))[0]?.toJS();
}

main().catch((error: unknown) => {
  process.stderr.write(`predict-revision: ${(error as Error).message}\n`);
  process.exit(2);
});
