import { type CaBundleTarget, targetTrusts } from './ca-bundle-targets.ts';
import type { MaterialReading } from './secret-material.ts';

// A replica whose certificate's CA some caBundle lacks would fail the API server's handshake: every webhook call it
// got would be a refused write. So it stays out of the Service until each caBundle trusts it, and says which step it
// is waiting for (in /readyz's answer and a log line when that changes): the kubelet's probe event gives only the
// status code.

export interface ReadinessView {
  /** `namespace/name` of the certificate Secret. */
  secret: string;
  /** The Secret as last read: undefined before its first list, null when it does not exist. */
  secretReading: MaterialReading | null | undefined;
  /** The certificate the server presents, when it is one from the Secret; undefined while it presents a placeholder. */
  servedCertPem: string | undefined;
  /** The CA certificate that issued it, when the Secret's bundle holds it. */
  servingCaPem: string | undefined;
  targets: readonly CaBundleTarget[];
  /** Each target as last read; a target with no entry has not been listed yet, one mapped to undefined does not exist. */
  targetObjects: ReadonlyMap<CaBundleTarget, unknown>;
}

/** Why the replica is not ready, in one line naming the object to look at; undefined when it is. */
export function notReadyBecause(view: ReadinessView): string | undefined {
  const unread = [
    ...(view.secretReading === undefined ? [`secrets/${view.secret}`] : []),
    ...view.targets.filter((target) => !view.targetObjects.has(target)).map(describeTarget),
  ];
  if (unread.length > 0) return `not read yet: ${unread.join(', ')}`;
  const reading = view.secretReading;
  if (reading === null || reading?.state === 'empty') return `secrets/${view.secret} holds no certificate yet: the replica holding the Lease issues one`;
  if (reading?.state === 'unusable') return `secrets/${view.secret} cannot be used: ${reading.problem}`;
  if (view.servedCertPem === undefined) return `the server has not taken the certificate of secrets/${view.secret}`;
  const caPem = view.servingCaPem;
  if (caPem === undefined) return `the CA of the served certificate is not in ca.crt of secrets/${view.secret}`;
  const lacking = view.targets.filter((target) => !targetTrusts(target, view.targetObjects.get(target), caPem));
  if (lacking.length > 0) return `the caBundle of ${lacking.map(describeTarget).join(', ')} lacks the CA of the served certificate`;
  return undefined;
}

function describeTarget(target: CaBundleTarget): string {
  return `${target.resource}/${target.name}`;
}
