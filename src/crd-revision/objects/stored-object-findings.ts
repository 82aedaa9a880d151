import { describeValue } from '../../contract/values/describe-value.ts';
import { splitApiVersion, type KubeObject } from '../../contract/values/kube-object.ts';
import type { StoredObjectOutcome, WriteOutcome } from './outcome.ts';
import { asStoredUnderOld } from './predict-stored-object.ts';
import { readDifferences } from './read-differences.ts';
import { readInVersion, type ObjectConverter } from './read-stored-object.ts';
import type { CrdRevisionUnderTest } from './revision-under-test.ts';
import { storedObjectFinding, type StoredObjectFinding } from './stored-object-finding.ts';
import { migratePlan } from './migrate-plan.ts';

/**
 * What the outcome of one object means for the team applying the revision: values its reads lose, gain or change
 * (the object's own version, or the new storage version when that one is no longer served, read under both
 * revisions), the version its clients read it in going away, each kind of write refused, and the version it is
 * stored in being removed. `object` is the object as predictStoredObject was given it, `outcome` its prediction.
 */
export function storedObjectFindings(
  revision: CrdRevisionUnderTest,
  object: KubeObject,
  outcome: StoredObjectOutcome,
  options: { convert?: ObjectConverter } = {},
): StoredObjectFinding[] {
  const ref = outcome.object;
  const oldStorage = revision.old.storage;
  if (revision.updateRefusal) {
    // The old revision goes on serving: nothing happens to the object but the refusal itself.
    return oldStorage !== undefined && !revision.new.versions.includes(oldStorage)
      ? [
          storedObjectFinding(
            'storedInRemovedVersion',
            `stored in ${oldStorage}, which the revision removes: ${migratePlan(revision, oldStorage)}`,
            { object: ref, version: oldStorage },
          ),
        ]
      : [];
  }
  const findings: StoredObjectFinding[] = [];
  const own = splitApiVersion(ref.apiVersion).version;
  const ownRead = outcome.reads[own];
  if (
    revision.old.served.includes(own) &&
    ownRead !== undefined &&
    'refused' in ownRead &&
    ownRead.refused.code === 404
  ) {
    findings.push(
      storedObjectFinding(
        'readVersionUnserved',
        `read in ${own}, which the revision ${revision.new.versions.includes(own) ? 'no longer serves' : 'removes'}: clients reading it there get 404`,
        { object: ref, version: own },
      ),
    );
  }
  findings.push(...readFindings(revision, object, outcome, options.convert));
  findings.push(
    ...writeFindings('unchangedWriteRefused', 'a write that changes nothing', outcome.unchangedWrite, outcome),
  );
  findings.push(...writeFindings('labelWriteRefused', 'a write that adds a label', outcome.labelWrite, outcome));
  findings.push(
    ...writeFindings('recreateRefused', 'a create of it as it reads (a re-sync or restore)', outcome.recreate, outcome),
  );
  return findings;
}

function readFindings(
  revision: CrdRevisionUnderTest,
  object: KubeObject,
  outcome: StoredObjectOutcome,
  convert: ObjectConverter | undefined,
): StoredObjectFinding[] {
  const own = splitApiVersion(outcome.object.apiVersion).version;
  const version = [own, revision.new.storage].find(
    (candidate) =>
      candidate !== undefined && outcome.reads[candidate] !== undefined && 'object' in outcome.reads[candidate]!,
  );
  if (version === undefined) return [];
  const now = outcome.reads[version] as { object: KubeObject };
  const before = readInVersion(revision.old, asStoredUnderOld(revision.old, object, convert), version, convert);
  if ('refused' in before) return [];
  const written = outcome.labelWrite.allowed
    ? outcome.labelWrite.stored
    : outcome.unchangedWrite.allowed
      ? outcome.unchangedWrite.stored
      : undefined;
  return readDifferences(before.object, now.object).map((difference) => {
    const details = {
      object: outcome.object,
      version,
      path: difference.path,
      old: difference.old,
      new: difference.new,
    };
    if (!('new' in difference)) {
      const erased =
        written === undefined ? 'its next write that succeeds erases it' : 'its next write erases it from etcd';
      return storedObjectFinding(
        'fieldDroppedOnRead',
        `${difference.path}: ${describeValue(difference.old)} is dropped on read; ${erased}`,
        details,
      );
    }
    if (!('old' in difference))
      return storedObjectFinding(
        'defaultAddedOnRead',
        `${difference.path}: ${describeValue(difference.new)} appears on read`,
        details,
      );
    return storedObjectFinding(
      'valueChangedOnRead',
      `${difference.path}: reads ${describeValue(difference.new)}, was ${describeValue(difference.old)}`,
      details,
    );
  });
}

function writeFindings(
  rule: 'unchangedWriteRefused' | 'labelWriteRefused' | 'recreateRefused',
  what: string,
  write: WriteOutcome,
  outcome: StoredObjectOutcome,
): StoredObjectFinding[] {
  if (write.allowed) return [];
  const { code, causes } = write.refused;
  const why =
    causes.length > 0
      ? `: ${causes.map((cause) => `${cause.field || '(the object)'} (${cause.type})`).join(', ')}`
      : '';
  const fields = causes.map((cause) => cause.field).filter((field) => field !== '');
  return [
    storedObjectFinding(rule, `${what} is refused with ${code}${why}`, {
      object: outcome.object,
      ...(fields.length > 0 ? { path: fields.join(', ') } : {}),
    }),
  ];
}
