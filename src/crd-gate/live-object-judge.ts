import { isPlainObject, namespacedName, type KubeObject } from '../contract/values/kube-object.ts';
import { createStoredObjectsJudge } from '../check/stored-objects.ts';
import type { StoredObjectFinding } from '../crd-revision/objects/stored-object-finding.ts';
import {
  prepareCrdRevision,
  releaseCrdRevision,
  type CrdRevisionUnderTest,
} from '../crd-revision/objects/revision-under-test.ts';
import { storedObjectRules } from '../crd-revision/stored-object-rules.ts';
import type { RuleSettings } from '../crd-revision/rule-config.ts';
import type { LiveObjectJudge } from './read-live-objects.ts';

/**
 * Each live object put through the new revision as `crdgate check` puts a stored object (createStoredObjectsJudge:
 * the engine's prediction, crd-revision/objects/), counted per finding with the first example: memory flat in the
 * objects. A read through a conversion webhook crdgate cannot call is a finding of its own (conversionUnseen), a
 * warning: what it cannot see is said, not guessed.
 */
export function liveObjectJudge(
  oldCrd: KubeObject,
  newCrd: KubeObject,
  settings?: RuleSettings,
): LiveObjectJudge | { none: string } {
  let compiled: CrdRevisionUnderTest;
  try {
    // Compiled here, once, so that a revision the engine cannot take is said before any object is listed.
    compiled = prepareCrdRevision(oldCrd, newCrd);
  } catch (error) {
    return { none: `the revisions cannot be compiled as kube-apiserver compiles them: ${(error as Error).message}` };
  }
  const name = isPlainObject(newCrd.metadata) && typeof newCrd.metadata.name === 'string' ? newCrd.metadata.name : '';
  const crd = { name, old: oldCrd, new: newCrd };
  const judge = createStoredObjectsJudge([crd], {
    examples: 1,
    ...(settings ? { settings } : {}),
  });
  return {
    judge: (objects) => objects.forEach((object) => judge.judge(object)),
    evidence: () => {
      // Asked once the listing ended within the gate's bounds: every live object was judged, even none.
      judge.listed(crd, true);
      return judge.report().crds[0]?.evidence;
    },
    release: () => {
      judge.release();
      releaseCrdRevision(compiled);
    },
    findings: () =>
      (judge.report().crds[0]?.findings ?? []).map(({ rule, severity, count, examples: [first] }) => ({
        id: rule,
        severity,
        count,
        summary: storedObjectRules[rule].finds,
        ...(first?.object ? { example: describeExample(first) } : { revisionWide: true as const }),
      })),
  };
}

function describeExample(finding: StoredObjectFinding): string {
  return [namespacedName(finding.object!), finding.version, finding.path]
    .filter((part) => part !== undefined && part !== '')
    .join(' ');
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
    spec: {
      group: 'crdgate.io',
      scope: 'Namespaced',
      names: { plural: 'warmups', singular: 'warmup', kind: 'Warmup', listKind: 'WarmupList' },
      versions: [{ name: 'v1', served: true, storage: true, schema }],
    },
  };
  const judge = liveObjectJudge(crd, crd);
  if ('none' in judge) return judge.none;
  judge.release();
  return undefined;
}
