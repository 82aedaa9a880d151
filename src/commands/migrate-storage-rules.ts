import {
  CrdUnservableError,
  EngineUnavailableError,
  judgeAsItStands,
  loadCrd,
  type EngineCrd,
} from '../api-server-engine/engine.ts';
import type { StorageRulesJudge } from '../migrate/storage-rules.ts';

/**
 * The storage version's schema and rules as kube-apiserver's own code applies them (the API server engine): each
 * object as it stands, read as stored, validated whole and not ratcheted, which is what an edit of a field it
 * holds meets. Without the engine, or with a CRD it cannot compile, the run goes on and its report says why the
 * rules were not checked. `load` is the engine's loadCrd; a test gives another to show what its failures become.
 */
export function engineStorageRules(load: (crd: unknown) => EngineCrd = loadCrd): StorageRulesJudge {
  return (crd) => {
    let compiled: EngineCrd;
    try {
      compiled = load(crd);
    } catch (error) {
      if (error instanceof EngineUnavailableError || error instanceof CrdUnservableError)
        return { notChecked: error.message };
      throw error;
    }
    return {
      judge: (object) => {
        const judgement = judgeAsItStands(compiled, object);
        return judgement.allowed ? [] : judgement.causes.map(({ field, message }) => ({ field, message }));
      },
    };
  };
}
