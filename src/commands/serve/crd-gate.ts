import { crdGateDefaults } from '../../config.ts';
import type { KubeObject } from '../../contract/values/kube-object.ts';
import type { CrdGate } from '../../server/crd-gate-route.ts';
import type { Logger } from '../../log.ts';
import type { ApiServerClient } from './api-client.ts';
import type { CrdGateFlags } from './flags.ts';

/**
 * The CRD gate of `serve --crd-gate`: the revision rules of --crd-rules, and the live objects read with the API
 * client within the flags' bounds. A gate that cannot judge live objects says so now, and decides on the rules alone.
 */
export async function crdGateFrom(
  flags: CrdGateFlags,
  api: ApiServerClient,
  cwd: string,
  logger: Logger,
): Promise<CrdGate> {
  const { maxObjects, readTimeoutMs: timeoutMs, rulesFile } = flags;
  const config =
    rulesFile === undefined ? undefined : await (await import('../crd-rules-file.ts')).readCrdRules(rulesFile, cwd);
  const rules = config?.rules;
  const { readLiveObjects } = await import('../../crd-gate/read-live-objects.ts');
  const { liveObjectJudge, warmLiveObjectJudge } = await import('../../crd-gate/live-object-judge.ts');
  // Before the engine's first use: which engine runs (native or WebAssembly, and why) goes into the server's log
  // once, and what goes wrong around it with the server's other warnings.
  const { setEngineLog } = await import('../../api-server-engine/engine.ts');
  setEngineLog({ info: (line) => logger.info(line), warn: (line) => logger.warn(line) });
  const cannotJudge = warmLiveObjectJudge();
  if (cannotJudge !== undefined)
    logger.warn(
      { reason: cannotJudge },
      'the CRD gate cannot judge live objects: it decides CRD revisions on their own rules, with a warning saying so',
    );
  const reads = {
    api,
    bounds: { maxObjects, timeoutMs, pageSize: Math.min(crdGateDefaults.pageSize, maxObjects) },
    judgeFor: (oldCrd: KubeObject, newCrd: KubeObject) => liveObjectJudge(oldCrd, newCrd, rules),
  };
  return {
    ...(rules ? { rules } : {}),
    ...(config ? { evidence: config.evidence } : {}),
    readLive: (oldCrd: KubeObject, newCrd: KubeObject) => readLiveObjects(reads, oldCrd, newCrd),
  };
}
