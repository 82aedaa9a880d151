import { judgeAsItStands } from '../../api-server-engine/engine.ts';
import type { FieldErrorType } from '../../contract/values/field-error.ts';
import { valueAtPath } from '../../contract/values/field-path.ts';
import type { KubeObject } from '../../contract/values/kube-object.ts';
import type { StoredObjectOutcome } from './outcome.ts';
import { asStoredUnderOld } from './predict-stored-object.ts';
import { fieldOfUnnamedFault, keywordOf, ratchetUnit } from './ratchet-unit.ts';
import { readInVersion, type ObjectConverter } from './read-stored-object.ts';
import type { CrdRevisionUnderTest, RevisionSide } from './revision-under-test.ts';

/** One value of a stored object that the new revision refuses as it stands, and the old one did not. */
export interface InvalidField {
  /** As the API server names it (`status.conditions[0].type`), in the first version it was found in. */
  field: string;
  type: FieldErrorType;
  /** The API server's own words for the fault (`Unsupported value: "Pending": supported values: ...`). */
  message: string;
  /** The keyword or rule that refuses it (keywordOf). */
  keyword: string;
  /** What the object holds there; absent for a missing required field. */
  value?: unknown;
  /** Every version it is read in where the new revision refuses it. */
  versions: string[];
  /** What a write must change for the fault to count (ratchetUnit): every write that leaves it is accepted. */
  unit: string;
  /** A field of the status, and the CRD gives the version a status subresource: only status writes change it. */
  underStatus: boolean;
  statusSubresource: boolean;
}

/**
 * Every value of the object that the new revision's schema and rules refuse as it stands, in every version the
 * object is read in (the outcome's reads), and that the old revision did not refuse in that version (a fault it
 * already had is not the revision's doing; a version the old revision lacks has none). Each fault once, with the
 * versions it is found in. Nothing when the API server refuses the revision itself: the old one goes on serving.
 */
export function invalidFields(
  revision: CrdRevisionUnderTest,
  object: KubeObject,
  outcome: StoredObjectOutcome,
  convert?: ObjectConverter,
): InvalidField[] {
  if (revision.updateRefusal) return [];
  const found = new Map<string, InvalidField>();
  for (const version of revision.new.served) {
    const read = outcome.reads[version];
    if (read === undefined || !('object' in read)) continue;
    const before = new Set(
      faultsUnderOld(revision, object, version, convert).map((fault) => `${fault.field}\0${fault.type}`),
    );
    for (const fault of faults(revision.new, read.object)) {
      const key = `${fault.field}\0${fault.type}`;
      if (before.has(key)) continue;
      const known = found.get(key);
      if (known) {
        known.versions.push(version);
        continue;
      }
      const schema = revision.new.crd.versions.find((candidate) => candidate.name === version);
      const value = fault.type === 'FieldValueRequired' ? undefined : valueAtPath(read.object, fault.field);
      const underStatus =
        fault.field === 'status' || fault.field.startsWith('status.') || fault.field.startsWith('status[');
      found.set(key, {
        ...fault,
        keyword: keywordOf(fault.type, fault.message, value),
        ...(value === undefined ? {} : { value }),
        versions: [version],
        unit: ratchetUnit(schema?.schema, fault.field, fault.type),
        underStatus,
        statusSubresource: schema?.subresources.status !== undefined,
      });
    }
  }
  return [...found.values()];
}

type Fault = { field: string; type: FieldErrorType; message: string };

/** What the engine refuses of the object as it stands, each fault with the field it is about. */
function faults(side: RevisionSide, object: KubeObject): Fault[] {
  const judgement = judgeAsItStands(side.reading, object);
  if (judgement.allowed) return [];
  return judgement.causes
    .map(({ field, type, message }) => ({ field: field === '' ? fieldOfUnnamedFault(message) : field, type, message }))
    .filter((fault) => fault.field !== '');
}

/** The faults the old revision finds in the object read in `version`; none when it lacks the version. */
function faultsUnderOld(
  revision: CrdRevisionUnderTest,
  object: KubeObject,
  version: string,
  convert: ObjectConverter | undefined,
): Fault[] {
  if (!revision.old.versions.includes(version)) return [];
  const read = readInVersion(revision.old, asStoredUnderOld(revision.old, object, convert), version, convert);
  return 'object' in read ? faults(revision.old, read.object) : [];
}
