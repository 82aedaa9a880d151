import { readFile } from 'node:fs/promises';
import type { ProvidedControlPlane } from '../provided-context.ts';

/** The parts of an audit.k8s.io/v1 Event the tests read. */
export interface AuditEvent {
  auditID: string;
  stage: string;
  verb: string;
  objectRef?: { resource?: string; namespace?: string; name?: string; apiGroup?: string; subresource?: string };
  responseStatus?: { code?: number };
  annotations?: Record<string, string>;
}

/** The ResponseComplete events of writes to one object (cluster-scoped: no namespace), oldest first, as kube-apiserver logged them. */
export async function auditedWrites(
  cp: ProvidedControlPlane,
  ref: { apiGroup: string; resource: string; namespace?: string; name: string },
): Promise<AuditEvent[]> {
  const text = await readFile(cp.auditLogPath, 'utf8');
  return text
    .split('\n')
    .filter((line) => line.includes(`"name":"${ref.name}"`))
    .map((line) => JSON.parse(line) as AuditEvent)
    .filter(
      (event) =>
        event.stage === 'ResponseComplete' &&
        event.objectRef?.apiGroup === ref.apiGroup &&
        event.objectRef.resource === ref.resource &&
        event.objectRef.namespace === ref.namespace &&
        event.objectRef.name === ref.name,
    );
}
