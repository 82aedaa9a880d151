import { modeChangeReason, modes, sizeField, spokeSizeField } from './placeholder-fields.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import { spokeVersions, type ScaffoldShape } from './scaffold-shape.ts';

/** The variable that turns the end-to-end test's skip into a failure, as in crdgate's own CI. */
export const requireE2eVariable = 'CRDGATE_REQUIRE_E2E';

/**
 * What every scaffolded end-to-end test file starts with: the test environment for the project's contract, started
 * once for the file, and skipped with its reason where no control plane can be had (a failure in CI).
 */
export function environmentPreamble(n: ScaffoldNames): string {
  return `// The contract served by a real crdgate in front of a real kube-apiserver and etcd, started for this file on
// 127.0.0.1. They come from $KUBEBUILDER_ASSETS, or are built with Go the first time (minutes; cached after).
// Without either, the tests are skipped with the reason; ${requireE2eVariable}=1 (for CI) makes that a failure.

let env: TestEnvironment | undefined;
let unavailable = 'the test environment did not start';

before(
  async () => {
    try {
      env = await startTestEnvironment({ contracts: [${n.camel}Contract()], log: (line) => console.log(\`# \${line}\`) });
    } catch (error) {
      if (!(error instanceof ControlPlaneUnavailableError) || process.env['${requireE2eVariable}'] === '1') throw error;
      unavailable = error.message;
      console.log(\`# end-to-end tests skipped: \${unavailable} (${requireE2eVariable}=1 makes this a failure)\`);
    }
  },
  // A first build of kube-apiserver takes about five minutes on two cores.
  { timeout: 30 * 60_000 },
);

after(() => env?.stop());

/** The running environment, or undefined after marking the test skipped with the reason there is none. */
function environment(t: TestContext): TestEnvironment | undefined {
  if (!env) t.skip(unavailable);
  return env;
}
`;
}

// src/contract.e2e.test.ts of a scaffolded project: the contract served by a real crdgate in front of a real
// kube-apiserver (crdgate/testing's startTestEnvironment), driven as users and operators drive it.

export function e2eTestSource(n: ScaffoldNames, shape: ScaffoldShape): string {
  const namespaced = shape.scope === 'Namespaced';
  const spoke = spokeVersions(shape)[0];
  const metadata = (name: string) => (namespaced ? `{ name: ${name}, namespace: env.namespace }` : `{ name: ${name} }`);
  const namespaceArgs = namespaced ? ", '-n', env.namespace" : '';
  const readThroughSpoke =
    spoke === undefined
      ? ''
      : `
test('the API server reads a ${n.singular} through ${spoke}, converted by the webhook', async (t) => {
  const env = environment(t);
  if (!env) return;
  await env.client.create(${n.camel}Named(env, 'converted'));
  const old = await env.client.read<${n.typeName}Object>({ apiVersion: \`\${group}/${spoke}\`, kind: '${n.kind}', metadata: ${metadata("'converted'")} });
  assert.equal(old.apiVersion, \`\${group}/${spoke}\`);
  assert.deepEqual(old.spec, { ${spokeSizeField}: '1Gi', replicas: 1, mode: '${modes[0]}' });
});
`;
  return `import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import type { KubeObject } from 'crdgate';
import { ControlPlaneUnavailableError, KubeApiError, startTestEnvironment, type TestEnvironment } from 'crdgate/testing';
import ${n.camel}Contract, { group, hub } from './contract.ts';

${environmentPreamble(n)}
/** A ${n.kind} as the API server stores it (in the hub version) and the environment's client reads it. */
interface ${n.typeName}Object extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: Record<string, unknown>;
}

function ${n.camel}Named(env: TestEnvironment, name: string): ${n.typeName}Object {
  return { apiVersion: \`\${group}/\${hub}\`, kind: '${n.kind}', metadata: ${metadata('name')}, spec: { ${sizeField}: '1Gi' } };
}

test('a ${n.singular} created through the API server gets its defaults from the mutating webhook', async (t) => {
  const env = environment(t);
  if (!env) return;
  const created = await env.client.create(${n.camel}Named(env, 'defaulted'));
  assert.deepEqual(created.spec, { ${sizeField}: '1Gi', replicas: 1, mode: '${modes[0]}' });
});

test('once the operator reports Ready, changing the mode is refused with the machine\\'s reason', async (t) => {
  const env = environment(t);
  if (!env) return;
  const created = await env.client.create(${n.camel}Named(env, 'ready'));
  // The operator's part: status.phase, written through the status subresource.
  const reported = await env.kubectl(['patch', \`${n.plural}.\${group}\`, 'ready'${namespaceArgs}, '--subresource=status', '--type=merge', '-p', '{"status":{"phase":"Ready"}}']);
  assert.equal(reported.exitCode, 0, reported.stderr);
  const current = await env.client.read<${n.typeName}Object>(created);
  const refusal = await env.client.replace({ ...current, spec: { ...current.spec, mode: 'Standalone' } }).then(
    () => assert.fail('the mode change was allowed'),
    (error: unknown) => error,
  );
  assert.ok(refusal instanceof KubeApiError, String(refusal));
  assert.equal(refusal.code, 403);
  assert.match(refusal.status.message ?? '', /spec\\.mode: changing the mode from ${modes[0]} to Standalone is unsupported: ${modeChangeReason(n)}/);
});
${readThroughSpoke}`;
}
