import { revisionChangedPaths, withOneFieldChanged } from '../../../../src/crd-revision/objects/one-field-changed.ts';
import type { Rest } from '../raw-api.ts';
import { storageVersionOf } from './crd.ts';
import type { CrdRevision } from './generate-revisions.ts';
import { observeRevision, type OneFieldChanges, type RevisionObservation } from './observe-revision.ts';

/**
 * A revision observed twice on the API server, each in a CRD group of its own: applied (`revised`), and, as the
 * baseline every effect is measured against, the old revision applied over itself (`baseline`), its objects read and
 * written as the revised ones are, the status and spec writes making the very changes the revised ones made.
 */
export async function observeReleasePair(
  rest: Rest,
  pair: CrdRevision,
  namespace: string,
  options: { groupPrefix: string; label: { key: string; value: string } },
): Promise<{ baseline: RevisionObservation; revised: RevisionObservation }> {
  const revised = await observeRevision(rest, pair, namespace, {
    groupPrefix: `${options.groupPrefix}n`,
    label: options.label,
  });
  const serving = storageVersionOf(revised.revisionRefused ? pair.old : pair.new);
  const changedPaths = revisionChangedPaths(pair.old, pair.new);
  const changes = new Map<string, OneFieldChanges>();
  for (const outcome of revised.outcomes) {
    const read = outcome.reads[serving.name];
    if (read === undefined || !('object' in read)) continue;
    const schema = serving.schema?.openAPIV3Schema;
    const [status, spec] = [
      withOneFieldChanged(read.object, schema, 'status', changedPaths),
      withOneFieldChanged(read.object, schema, 'spec', changedPaths),
    ];
    changes.set(outcome.object.name, { ...(status ? { status } : {}), ...(spec ? { spec } : {}) });
  }
  const baseline = await observeRevision(rest, { ...pair, id: `${pair.id} (baseline)`, new: pair.old }, namespace, {
    groupPrefix: `${options.groupPrefix}b`,
    label: options.label,
    oneFieldChanges: changes,
  });
  return { baseline, revised };
}
