import { jsonEqual } from '../contract/values/json-equal.ts';
import type { RuleSettings } from '../crd-revision/rule-config.ts';
import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import { isPlainObject, splitApiVersion, type KubeObject } from '../contract/values/kube-object.ts';
import { contractConverter, conversionRoundTripFindings } from '../crd-revision/objects/contract-conversion.ts';
import {
  ConversionUnknownError,
  predictStoredObject,
  StoredObjectUnreadableError,
} from '../crd-revision/objects/predict-stored-object.ts';
import { storedObjectRevisionFindings } from '../crd-revision/objects/revision-findings.ts';
import {
  prepareCrdRevision,
  releaseCrdRevision,
  type CrdRevisionUnderTest,
} from '../crd-revision/objects/revision-under-test.ts';
import { storedObjectFinding, type StoredObjectFinding } from '../crd-revision/objects/stored-object-finding.ts';
import { storedObjectFindings } from '../crd-revision/objects/stored-object-findings.ts';
import { createStoredObjectTally, type TallyEntry } from '../crd-revision/objects/stored-object-tally.ts';
import { createEvidenceCollector, type EvidenceCollector } from '../crd-revision/objects/object-evidence.ts';
import type { ObjectEvidence } from '../crd-revision/objects/evidence.ts';
import type { ManifestLocation } from './manifest-documents.ts';

/** A CRD whose stored objects are judged: its new revision, and the old one (the same, when there is none). */
export interface StoredObjectsCrd {
  /** metadata.name: `plural.group` */
  name: string;
  old: unknown;
  new: unknown;
  location?: ManifestLocation;
  oldLocation?: ManifestLocation;
  /** A contract that owns the CRD: its conversion is the webhook's, and each object's round trips are checked. */
  contract?: Contract;
}

/** The stored objects of one CRD under its new revision: how many were judged, and the tallied findings. */
export interface StoredObjectsCrdReport {
  name: string;
  /** Where the objects came from: the old tree (--old), the cluster (--from-cluster), or --stored. */
  source?: StoredObjectsSource;
  location?: ManifestLocation;
  oldLocation?: ManifestLocation;
  objects: number;
  findings: TallyEntry[];
  /**
   * What the objects showed, for weighing the revision's rule findings; absent where the objects were judged against
   * the CRD itself (no previous revision).
   */
  evidence?: ObjectEvidence;
}

export type StoredObjectsSource = 'old-tree' | 'cluster' | 'stored';

/** How a report names where stored objects came from. */
export const storedObjectsSources: Record<StoredObjectsSource, string> = {
  'old-tree': 'the old tree',
  cluster: 'the cluster',
  stored: '--stored',
};

export interface StoredObjectsReport {
  crds: StoredObjectsCrdReport[];
  /** Objects of a kind no CRD of the run declares, by `Kind.group`: not judged. */
  unmatched: Record<string, number>;
}

export interface StoredObjectsJudge {
  /** Judges one object as the cluster stores it (or as the old tree held it), and keeps only the tally. */
  judge(object: KubeObject): void;
  /** Says whether every object of the CRD was judged (a listing that ended within its bounds), even none. */
  listed(crd: StoredObjectsCrd, complete: boolean): void;
  report(): StoredObjectsReport;
  /** Drops the revisions compiled so far from the engine; the judge may still be used (they compile again). */
  release(): void;
}

export interface StoredObjectsOptions {
  /** The namespace of a namespaced object that names none (check's --namespace; default `default`). */
  namespace?: string;
  /** What rules are set to (check's --crd-rules): another severity, or off (no finding). */
  settings?: RuleSettings;
  /** Examples kept per CRD and finding. */
  examples?: number;
}

/**
 * Puts objects, one at a time, through the new revision of their CRD (predictStoredObject), and tallies what that
 * means (storedObjectFindings; for a contract-owned kind, conversion round trips too). Each CRD's two revisions
 * are compiled on its first object, with the findings about the revision as a whole: a CRD none of whose objects
 * is judged reports nothing (its revision's own rules do). Memory holds the tally, not the objects or outcomes.
 */
export function createStoredObjectsJudge(
  crds: readonly StoredObjectsCrd[],
  options: StoredObjectsOptions = {},
): StoredObjectsJudge {
  const byKind = new Map<string, StoredObjectsCrd>();
  for (const crd of crds) {
    const spec = isPlainObject(crd.new) && isPlainObject(crd.new.spec) ? crd.new.spec : {};
    const kind = isPlainObject(spec.names) ? spec.names.kind : undefined;
    byKind.set(`${String(spec.group)}\0${String(kind)}`, crd);
  }
  const prepared = new Map<StoredObjectsCrd, CrdRevisionUnderTest>();
  const evidence = new Map<string, EvidenceCollector>();
  const evidenceOf = (crd: StoredObjectsCrd) => {
    let collector = evidence.get(crd.name);
    if (collector === undefined) {
      collector = createEvidenceCollector();
      evidence.set(crd.name, collector);
    }
    return collector;
  };
  const tally = createStoredObjectTally(options.examples === undefined ? {} : { examples: options.examples });
  const unmatched: Record<string, number> = {};
  const revisionOf = (crd: StoredObjectsCrd) => {
    let revision = prepared.get(crd);
    if (revision === undefined) {
      revision = prepareCrdRevision(crd.old, crd.new);
      prepared.set(crd, revision);
      tally.addRevision(
        crd.name,
        asSet(
          storedObjectRevisionFindings(revision, { conversionKnown: crd.contract !== undefined }),
          options.settings,
        ),
      );
    }
    return revision;
  };
  return {
    judge(object) {
      const { group } = splitApiVersion(String(object.apiVersion));
      const crd = byKind.get(`${group}\0${String(object.kind)}`);
      if (crd === undefined) {
        const key = group === '' ? String(object.kind) : `${String(object.kind)}.${group}`;
        unmatched[key] = (unmatched[key] ?? 0) + 1;
        return;
      }
      const revision = revisionOf(crd);
      const findings = judgeOne(
        revision,
        crd.contract,
        withNamespace(revision, object, options.namespace ?? 'default'),
      );
      evidenceOf(crd).addObject(findings);
      tally.addObject(crd.name, asSet(findings, options.settings));
    },
    listed(crd, complete) {
      revisionOf(crd);
      evidenceOf(crd).listed(complete);
    },
    release() {
      for (const revision of prepared.values()) releaseCrdRevision(revision);
    },
    report() {
      // Errors first, then warnings, then what depends on what crdgate cannot see; each in the order first found.
      const rank = (entry: TallyEntry) => (entry.severity === 'error' ? 0 : entry.unseen ? 2 : 1);
      const entries = tally.entries().sort((a, b) => rank(a) - rank(b));
      return {
        crds: tally.objects().map(({ crd: name, count }) => {
          const crd = crds.find((candidate) => candidate.name === name);
          return {
            name,
            ...(crd?.location ? { location: crd.location } : {}),
            ...(crd?.oldLocation ? { oldLocation: crd.oldLocation } : {}),
            objects: count,
            findings: entries.filter((entry) => entry.crd === name),
            ...(crd !== undefined && crdSpecChanged(crd.old, crd.new) && evidence.has(name)
              ? { evidence: evidence.get(name)!.evidence() }
              : {}),
          };
        }),
        unmatched,
      };
    },
  };
}

function judgeOne(
  revision: CrdRevisionUnderTest,
  contract: Contract | undefined,
  object: KubeObject,
): StoredObjectFinding[] {
  const ref = {
    apiVersion: String(object.apiVersion),
    kind: String(object.kind),
    ...namespaceOf(object),
    name: String(object.metadata?.name ?? ''),
  };
  try {
    const convert = contract === undefined ? undefined : contractConverter(contract);
    const outcome = predictStoredObject(revision, object, convert === undefined ? {} : { convert });
    return [
      ...storedObjectFindings(revision, object, outcome, convert === undefined ? {} : { convert }),
      ...(contract === undefined ? [] : conversionRoundTripFindings(revision, contract, outcome)),
    ];
  } catch (error) {
    if (error instanceof StoredObjectUnreadableError)
      return [storedObjectFinding('objectUnreadable', error.message, { object: ref })];
    if (error instanceof ConversionUnknownError)
      return [storedObjectFinding('conversionUnseen', error.message, { object: ref })];
    throw error;
  }
}

/** The findings with the severity their rule is set to; a rule set to off has none. */
function asSet(findings: StoredObjectFinding[], settings: RuleSettings = {}): StoredObjectFinding[] {
  return findings.flatMap((finding) => {
    const setting = settings[finding.rule];
    if (setting === undefined) return [finding];
    return setting === 'off' ? [] : [{ ...finding, severity: setting }];
  });
}

function namespaceOf(object: KubeObject): { namespace?: string } {
  return typeof object.metadata?.namespace === 'string' ? { namespace: object.metadata.namespace } : {};
}

/** A manifest of a namespaced kind that names no namespace goes where kubectl apply -n would put it. */
function withNamespace(revision: CrdRevisionUnderTest, object: KubeObject, namespace: string): KubeObject {
  if (revision.new.crd.scope === 'Cluster' || typeof object.metadata?.namespace === 'string') return object;
  return { ...object, metadata: { ...(isPlainObject(object.metadata) ? object.metadata : {}), namespace } };
}

/** Whether two revisions of a CRD differ in what the API server does with objects (its spec). */
export function crdSpecChanged(old: unknown, now: unknown): boolean {
  const spec = (crd: unknown) => (isPlainObject(crd) ? crd.spec : undefined);
  return !jsonEqual(spec(old), spec(now));
}

/** A contract's kind counts as crdgate's own (converted by its webhook) unless the contract says its CRD is someone else's. */
export function owningContract(contract: Contract | undefined): Contract | undefined {
  return contract !== undefined && ownsCrd(contract) ? contract : undefined;
}
