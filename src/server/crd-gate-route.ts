import type { RequestHandler } from 'express';
import { answerReview, type AdmissionOutcome } from '../admission/handler.ts';
import { parseAdmissionReview } from '../admission/review.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import type { EvidencePolicy, RuleSettings } from '../crd-revision/rule-config.ts';
import { ProtocolError } from '../errors.ts';
import { sendJson } from './json-response.ts';
import type { ServerMetrics } from './metrics.ts';
import { crdRevisionPair, decideCrdRevision } from '../crd-gate/decide-crd-revision.ts';
import type { LiveObjectsReading } from '../crd-gate/live-objects-reading.ts';

/** What `crdgate serve --crd-gate` gives the gate: the rule settings, and the read of live objects (bounded). */
export interface CrdGate {
  rules?: RuleSettings;
  evidence?: EvidencePolicy;
  readLive: (oldCrd: KubeObject, newCrd: KubeObject) => Promise<LiveObjectsReading>;
}

/**
 * The express shell of the CRD gate: for an update of a CRD, read its live objects (the one wait, bounded), then
 * decide (decide-crd-revision.ts) and answer as every crdgate webhook answers (answerReview). A read that fails in
 * a way readLive did not foresee is a reading too: the decision is then made on the revision's own rules.
 */
export function crdGateRoute(gate: CrdGate, metrics: ServerMetrics): RequestHandler {
  return async function gateCrdRevision(req, res) {
    const pair = revisionToJudge(req.body);
    let live: LiveObjectsReading | undefined;
    if (pair)
      live = await gate.readLive(pair.oldCrd, pair.newCrd).catch((error: unknown) => ({
        read: 'not-judged' as const,
        why: `the read failed: ${(error as Error)?.message ?? String(error)}`,
      }));
    const outcome: AdmissionOutcome = answerReview(req.body, true, (request) => {
      const judged = crdRevisionPair(request);
      if ('allowed' in judged) return judged;
      return decideCrdRevision(judged.name, judged.oldCrd, judged.newCrd, {
        ...(gate.rules ? { rules: gate.rules } : {}),
        ...(gate.evidence ? { evidence: gate.evidence } : {}),
        ...(live ? { live } : {}),
      });
    });
    metrics.decisions.inc({ webhook: 'crd-gate', decision: outcome.summary.decision, code: outcome.summary.code });
    res.locals.summary = outcome.summary;
    res.locals.failure = outcome.failure;
    sendJson(res, outcome.httpStatus, outcome.body);
  };
}

/** The two revisions whose live objects must be read first, or undefined: a malformed review, or one not an update of a CRD. */
function revisionToJudge(body: unknown): { oldCrd: KubeObject; newCrd: KubeObject } | undefined {
  try {
    const judged = crdRevisionPair(parseAdmissionReview(body));
    return 'allowed' in judged ? undefined : judged;
  } catch (error) {
    if (error instanceof ProtocolError) return undefined;
    throw error;
  }
}
