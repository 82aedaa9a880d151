import type { CheckResult } from '../../../../src/check/check-object.ts';
import type { KubeObject } from '../../../../src/contract/values/kube-object.ts';
import type { Judgement } from '../differential/api-server-judge.ts';

/**
 * Both answers with the name generated from the object's generateName (its prefix and five random characters, which
 * kube-apiserver and crdgate each draw on their own) written `PREFIX<generated>`, so that a refusal naming it
 * compares. Answers of an object without generateName, or with a name, are given back as they are.
 */
export function withGeneratedNamesAlike(
  object: KubeObject,
  apiServer: Judgement,
  check: CheckResult,
): { apiServer: Judgement; check: CheckResult } {
  const metadata = object.metadata as { name?: unknown; generateName?: unknown } | undefined;
  const prefix = metadata?.generateName;
  if (typeof prefix !== 'string' || prefix === '' || (metadata?.name !== undefined && metadata.name !== ''))
    return { apiServer, check };
  const generated = new RegExp(`${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[a-z0-9]{5}\\b`, 'g');
  const alike = (text: string) => text.replace(generated, `${prefix}<generated>`);
  const causesAlike = <T extends { message: string }>(causes: T[]) =>
    causes.map((cause) => ({ ...cause, message: alike(cause.message) }));
  return {
    apiServer: apiServer.allowed
      ? apiServer
      : {
          ...apiServer,
          messages: apiServer.messages.map(alike),
          ...(apiServer.causes === undefined ? {} : { causes: causesAlike(apiServer.causes) }),
        },
    check: {
      ...check,
      ...(check.message === undefined ? {} : { message: alike(check.message) }),
      causes: causesAlike(check.causes),
    },
  };
}
