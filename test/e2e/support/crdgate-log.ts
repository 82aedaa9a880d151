import type { TestServer } from '../../integration/support/test-server.ts';

/** What crdgate's request log says about one call the API server made to it. */
export interface WebhookCall {
  path: string;
  uid: string;
  operation: string;
  decision: string;
  code: string;
  dryRun?: boolean;
  patched?: boolean;
}

/** crdgate's log lines about one object, in the order the API server called: the evidence of who decided. */
export function webhookCallsAbout(server: TestServer, namespace: string, name: string): WebhookCall[] {
  return server
    .logLines()
    .filter((line) => line['object'] === `${namespace}/${name}`)
    .map((line) => ({
      path: String(line['path']),
      uid: String(line['uid']),
      operation: String(line['operation']),
      decision: String(line['decision']),
      code: String(line['code']),
      ...(line['dryRun'] === true ? { dryRun: true } : {}),
      ...(line['patched'] === true ? { patched: true } : {}),
    }));
}
