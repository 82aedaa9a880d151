import { readAsStored } from '../../api-server-engine/engine.ts';
import { apiVersionOf, type Contract } from '../../contract/contract-definition.ts';
import { jsonEqual } from '../../contract/values/json-equal.ts';
import type { KubeObject } from '../../contract/values/kube-object.ts';
import { convertObject } from '../../conversion/convert-object.ts';
import type { StoredObjectOutcome } from './outcome.ts';
import { readDifferences } from './read-differences.ts';
import type { ObjectConverter } from './read-stored-object.ts';
import type { CrdRevisionUnderTest } from './revision-under-test.ts';
import { storedObjectFinding, type StoredObjectFinding } from './stored-object-finding.ts';

/** The conversion crdgate's webhook does for a contract's kind, for predictStoredObject's `convert`. */
export function contractConverter(contract: Contract): ObjectConverter {
  return (object, toVersion) => convertObject(contract, object, apiVersionOf(contract, toVersion));
}

/**
 * The object as the new revision stores it (its read in the storage version) converted to every other version the
 * revision serves and back, as crdgate's webhook converts it and as the API server takes each step (a client
 * reads it in that version, writes it back: decoded, pruned and defaulted there, converted to the storage version,
 * pruned and defaulted there): a conversion that fails, and a round trip that does not give the object back.
 */
export function conversionRoundTripFindings(
  revision: CrdRevisionUnderTest,
  contract: Contract,
  outcome: StoredObjectOutcome,
): StoredObjectFinding[] {
  const storage = revision.new.storage;
  const read = storage === undefined ? undefined : outcome.reads[storage];
  if (storage === undefined || read === undefined || !('object' in read)) return [];
  const findings: StoredObjectFinding[] = [];
  for (const version of revision.new.served.filter((served) => served !== storage)) {
    const back = roundTrip(revision, contract, read.object, version, storage);
    if (typeof back === 'string') {
      findings.push(storedObjectFinding('conversionFailed', back, { object: outcome.object, version }));
      continue;
    }
    const differences = readDifferences(read.object, back);
    const metadataKept =
      jsonEqual(read.object.metadata?.labels, back.metadata?.labels) &&
      jsonEqual(read.object.metadata?.annotations, back.metadata?.annotations);
    if (differences.length === 0 && metadataKept) continue;
    const first = differences[0];
    findings.push(
      storedObjectFinding(
        'conversionRoundTripLoss',
        `${storage} → ${version} → ${storage} does not give the object back: ${first ? `${first.path} differs` : 'its labels or annotations differ'}`,
        {
          object: outcome.object,
          version,
          ...(first ? { path: first.path, old: first.old, new: first.new } : {}),
        },
      ),
    );
  }
  return findings;
}

/** The object back in `storage` after a trip through `version`, or why a step failed. */
function roundTrip(
  revision: CrdRevisionUnderTest,
  contract: Contract,
  object: KubeObject,
  version: string,
  storage: string,
): KubeObject | string {
  try {
    const there = readBack(revision, convertObject(contract, object, apiVersionOf(contract, version)));
    if (typeof there === 'string') return `converted to ${version}, ${there}`;
    const back = readBack(revision, convertObject(contract, there, apiVersionOf(contract, storage)));
    return typeof back === 'string' ? `converted back to ${storage}, ${back}` : back;
  } catch (error) {
    return (error as Error).message;
  }
}

function readBack(revision: CrdRevisionUnderTest, object: KubeObject): KubeObject | string {
  const read = readAsStored(revision.new.reading, object);
  return read.allowed && read.object ? read.object : `the API server cannot read it: ${read.message ?? 'refused'}`;
}
