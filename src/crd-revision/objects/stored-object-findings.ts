import { describeValue, describeValuePair } from '../../contract/values/describe-value.ts';
import { splitApiVersion, type KubeObject } from '../../contract/values/kube-object.ts';
import type { StoredObjectOutcome, WriteOutcome } from './outcome.ts';
import { invalidFields, type InvalidField } from './invalid-fields.ts';
import { asStoredUnderOld, oneFieldChangeOf, oneFieldWriteUnderOld } from './predict-stored-object.ts';
import { readDifferences, type ReadDifference } from './read-differences.ts';
import { readInVersion, type ObjectConverter } from './read-stored-object.ts';
import type { CrdRevisionUnderTest } from './revision-under-test.ts';
import { storedObjectFinding, type StoredObjectFinding } from './stored-object-finding.ts';
import { migratePlan } from '../migrate-plan.ts';

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
            `stored in ${oldStorage}, which the revision removes: ${migratePlan({ resource: revision.name, removed: oldStorage, target: revision.new.storage })}`,
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
    ...invalidFields(revision, object, outcome, options.convert).map((field) => invalidFieldFinding(field, outcome)),
  );
  findings.push(
    ...writeFindings('unchangedWriteRefused', 'a write that changes nothing', outcome.unchangedWrite, outcome),
  );
  findings.push(...writeFindings('labelWriteRefused', 'a write that adds a label', outcome.labelWrite, outcome));
  findings.push(...oneFieldWriteFindings(revision, object, outcome, options.convert));
  findings.push(
    ...writeFindings('recreateRefused', 'a create of it as it reads (a re-sync or restore)', outcome.recreate, outcome),
  );
  return findings;
}

/**
 * What reads show differently: in every version the object is read in under both revisions (its own version and the
 * new storage version first), the values gone, new or changed, each once with the versions it reads so in.
 */
function readFindings(
  revision: CrdRevisionUnderTest,
  object: KubeObject,
  outcome: StoredObjectOutcome,
  convert: ObjectConverter | undefined,
): StoredObjectFinding[] {
  const own = splitApiVersion(outcome.object.apiVersion).version;
  const versions = [...new Set([own, revision.new.storage, ...revision.new.served])].filter(
    (candidate): candidate is string =>
      candidate !== undefined &&
      revision.old.versions.includes(candidate) &&
      outcome.reads[candidate] !== undefined &&
      'object' in outcome.reads[candidate]!,
  );
  const stored = asStoredUnderOld(revision.old, object, convert);
  const found = new Map<string, { difference: ReadDifference; versions: string[] }>();
  for (const version of versions) {
    const before = readInVersion(revision.old, stored, version, convert);
    if ('refused' in before) continue;
    const now = outcome.reads[version] as { object: KubeObject };
    for (const difference of readDifferences(before.object, now.object)) {
      const key = JSON.stringify([
        difference.path,
        'old' in difference,
        difference.old,
        'new' in difference,
        difference.new,
      ]);
      const known = found.get(key);
      if (known) known.versions.push(version);
      else found.set(key, { difference, versions: [version] });
    }
  }
  const written = outcome.labelWrite.allowed
    ? outcome.labelWrite.stored
    : outcome.unchangedWrite.allowed
      ? outcome.unchangedWrite.stored
      : undefined;
  return [...found.values()].map(({ difference, versions: readIn }) => {
    const details = {
      object: outcome.object,
      version: readIn[0],
      path: difference.path,
      old: difference.old,
      new: difference.new,
    };
    const where = readIn.length > 1 ? ` (read in ${readIn.join(', ')})` : '';
    if (!('new' in difference)) {
      const erased =
        written === undefined ? 'its next write that succeeds erases it' : 'its next write erases it from etcd';
      return storedObjectFinding(
        'fieldDroppedOnRead',
        `${difference.path}: ${describeValue(difference.old)} is dropped on read${where}; ${erased}`,
        details,
      );
    }
    if (!('old' in difference))
      return storedObjectFinding(
        'defaultAddedOnRead',
        `${difference.path}: ${describeValue(difference.new)} appears on read${where}`,
        details,
      );
    const [was, reads] = describeValuePair(difference.old, difference.new);
    return storedObjectFinding('valueChangedOnRead', `${difference.path}: reads ${reads}, was ${was}${where}`, details);
  });
}

/** A value the new revision refuses as it stands: what the object holds, what refuses it, which writes meet it. */
function invalidFieldFinding(field: InvalidField, outcome: StoredObjectOutcome): StoredObjectFinding {
  const holds =
    field.value === undefined ? `${field.field} is missing` : `${field.field} holds ${describeValue(field.value)}`;
  const unit = field.unit === '' ? 'the object' : field.unit;
  const why =
    field.unit === field.field
      ? ''
      : field.type === 'FieldValueRequired' && isParent(field.unit, field.field)
        ? ' (its parent, where a missing field is judged)'
        : ' (the list it is in: ratcheting follows list items by a list-map key only)';
  const writes = field.underStatus
    ? field.statusSubresource
      ? `the operator's status writes (.../status) that change ${unit}${why} are refused`
      : `writes that change ${unit}${why}, the operator's status writes among them, are refused`
    : `writes that change ${unit}${why} are refused`;
  return storedObjectFinding(
    field.underStatus ? 'statusValueInvalid' : 'valueInvalid',
    `${holds}, which the new revision refuses in ${field.versions.join(', ')} (${field.keyword}: ${field.message}): ${writes}; writes that leave ${unit} as it is are accepted (ratcheting)`,
    {
      object: outcome.object,
      version: field.versions[0],
      path: field.field,
      ...(field.value === undefined ? {} : { old: field.value }),
      keyword: field.keyword,
      unit: field.unit,
    },
  );
}

function isParent(parent: string, field: string): boolean {
  return (
    field.startsWith(parent === '' ? '' : `${parent}.`) &&
    !field.slice(parent === '' ? 0 : parent.length + 1).includes('.')
  );
}

/**
 * The status write and the spec write refused under the new revision where the old revision accepted the same
 * change: the operator's and the users' everyday writes, which the revision stops.
 */
function oneFieldWriteFindings(
  revision: CrdRevisionUnderTest,
  object: KubeObject,
  outcome: StoredObjectOutcome,
  convert: ObjectConverter | undefined,
): StoredObjectFinding[] {
  const storage = revision.new.storage;
  const read = storage === undefined ? undefined : outcome.reads[storage];
  if (storage === undefined || read === undefined || !('object' in read)) return [];
  const findings: StoredObjectFinding[] = [];
  for (const [under, write, rule] of [
    ['status', outcome.statusWrite, 'statusWriteRefused'],
    ['spec', outcome.specWrite, 'specWriteRefused'],
  ] as const) {
    if (write === undefined || write.allowed) continue;
    const change = oneFieldChangeOf(revision, revision.new, storage, read.object, under);
    if (change === undefined) continue;
    const before = oneFieldWriteUnderOld(revision, object, change, under, convert);
    if (before !== undefined && !before.allowed) continue;
    const what =
      under === 'status'
        ? `the operator's status write that changes ${change.path}`
        : `a spec write that changes ${change.path}, which the revision leaves alone,`;
    findings.push(
      ...writeFindings(rule, what, write, outcome).map((finding) => ({
        ...finding,
        message: `${finding.message} (the old revision accepts it)`,
      })),
    );
  }
  return findings;
}

function writeFindings(
  rule: 'unchangedWriteRefused' | 'labelWriteRefused' | 'recreateRefused' | 'statusWriteRefused' | 'specWriteRefused',
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
