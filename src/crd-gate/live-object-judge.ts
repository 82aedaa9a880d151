import { namespacedName, type KubeObject } from '../contract/kube-object.ts';
import { ConversionUnknownError, predictStoredObject, StoredObjectUnreadableError } from '../crd-revision/objects/predict-stored-object.ts';
import { prepareCrdRevision } from '../crd-revision/objects/revision-under-test.ts';
import { storedObjectFinding, type StoredObjectFinding } from '../crd-revision/objects/stored-object-finding.ts';
import { storedObjectFindings } from '../crd-revision/objects/stored-object-findings.ts';
import { storedObjectRules } from '../crd-revision/objects/stored-object-rules.ts';
import { createStoredObjectTally } from '../crd-revision/objects/stored-object-tally.ts';
import type { LiveObjectJudge } from './read-live-objects.ts';

/**
 * Each live object put through the new revision as `crdgate check` puts a stored object (the engine's prediction,
 * crd-revision/objects/), counted per finding with the first example: memory flat in the objects. The revision's
 * own findings are item 1's, which the gate weighs apart; here only what happens to objects counts. A read that
 * needs the CRD's conversion webhook, which crdgate cannot call for a kind no contract owns, stops the judging:
 * the gate then decides on the revision's own rules.
 */
export function liveObjectJudge(oldCrd: KubeObject, newCrd: KubeObject): LiveObjectJudge | { none: string } {
  let revision: ReturnType<typeof prepareCrdRevision>;
  try {
    revision = prepareCrdRevision(oldCrd, newCrd);
  } catch (error) {
    return { none: `the revisions cannot be compiled as kube-apiserver compiles them: ${(error as Error).message}` };
  }
  const tally = createStoredObjectTally({ examples: 1 });
  let problem: string | undefined;
  return {
    judge(objects) {
      for (const object of objects) {
        if (problem !== undefined) return;
        tally.addObject(revision.name, judgeOne(object));
      }
    },
    findings: () => tally.entries().map(({ rule, severity, count, examples: [first] }) => ({ id: rule, severity, count, summary: storedObjectRules[rule].finds, ...(first ? { example: describeExample(first) } : {}) })),
    problem: () => problem,
  };

  function judgeOne(object: KubeObject): StoredObjectFinding[] {
    try {
      return storedObjectFindings(revision, object, predictStoredObject(revision, object));
    } catch (error) {
      if (error instanceof StoredObjectUnreadableError) return [storedObjectFinding('objectUnreadable', error.message, { object: refOf(object) })];
      if (error instanceof ConversionUnknownError) {
        problem = `reading the objects needs the CRD's conversion webhook, which crdgate does not call: ${error.message}`;
        return [];
      }
      throw error;
    }
  }
}

function refOf(object: KubeObject): StoredObjectFinding['object'] {
  const { name, namespace } = object.metadata ?? {};
  return { apiVersion: String(object.apiVersion), kind: String(object.kind), ...(namespace ? { namespace } : {}), name: String(name) };
}

function describeExample(finding: StoredObjectFinding): string {
  const where = finding.object ? namespacedName(finding.object) : 'the revision';
  return [where, finding.version, finding.path].filter((part) => part !== undefined && part !== '').join(' ');
}


/**
 * Starts the engine and compiles a CRD once, so that the first CRD update the gate judges does not pay seconds for
 * it out of its bound. Why live objects cannot be judged by this process (no engine in it), or undefined.
 */
export function warmLiveObjectJudge(): string | undefined {
  const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } };
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'warmups.crdgate.io' },
    spec: { group: 'crdgate.io', scope: 'Namespaced', names: { plural: 'warmups', singular: 'warmup', kind: 'Warmup', listKind: 'WarmupList' }, versions: [{ name: 'v1', served: true, storage: true, schema }] },
  };
  const judge = liveObjectJudge(crd, crd);
  return 'none' in judge ? judge.none : undefined;
}
