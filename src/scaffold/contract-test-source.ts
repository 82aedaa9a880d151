import { invariantMessage, modeChangeReason, modes, sizeField } from './placeholder-fields.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import type { ScaffoldShape } from './scaffold-shape.ts';

// src/contract.test.ts of a scaffolded project: each part of the contract decided as the server decides it, with
// crdgate/testing, without a server.

export function contractTestSource(n: ScaffoldNames, shape: ScaffoldShape): string {
  const helper = `${n.camel}With`;
  const namespace = shape.scope === 'Namespaced' ? ", namespace: 'default'" : '';
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contractTester, renderMachine } from 'crdgate/testing';
import ${n.camel}Contract, { group, hub, type ${n.typeName}Spec } from './contract.ts';

const contract = ${n.camel}Contract();
const tester = contractTester(contract);

/** A ${n.kind} in the hub version, in a phase when one is given. */
function ${helper}(spec: Partial<${n.typeName}Spec>, phase?: string) {
  return {
    apiVersion: \`\${group}/\${hub}\`,
    kind: '${n.kind}',
    metadata: { name: 'example'${namespace} },
    spec,
    ...(phase === undefined ? {} : { status: { phase } }),
  };
}

test('a valid ${n.kind} is allowed, and the defaults fill what it leaves out', () => {
  const result = tester.check(${helper}({ ${sizeField}: '10Gi' }));
  assert.equal(result.allowed, true, result.message);
  assert.deepEqual(result.object.spec, { ${sizeField}: '10Gi', replicas: 1, mode: '${modes[0]}' });
  assert.deepEqual(result.defaults.map((d) => d.field).sort(), ['spec.mode', 'spec.replicas']);
});

test('the API server refuses a bad size first, and the invariant is what the client meets next', () => {
  const result = tester.check(${helper}({ ${sizeField}: 'ten gigabytes', mode: 'Standalone', replicas: 3 }));
  assert.equal(result.allowed, false);
  assert.equal(result.code, 'OBJECT_INVALID');
  // The CRD's own rules (its formats among them) run before the validating webhook is called.
  assert.deepEqual(result.causes.map((c) => c.field), ['spec.${sizeField}']);
  assert.deepEqual((result.next ?? []).map((c) => c.field), ['spec.replicas']);
  assert.match(result.next?.[0]?.message ?? '', /${invariantMessage(n)}/);
});

test('once Ready, a ${n.singular} can be scaled, but its mode never changes', () => {
  const ready = ${helper}({ ${sizeField}: '10Gi', replicas: 1, mode: '${modes[0]}' }, 'Ready');
  assert.equal(tester.check(${helper}({ ...ready.spec, replicas: 3 }), { oldObject: ready }).allowed, true);
  const modeChange = tester.check(${helper}({ ...ready.spec, mode: 'Standalone' }), { oldObject: ready });
  assert.equal(modeChange.code, 'CHANGE_FORBIDDEN');
  assert.match(modeChange.message ?? '', /spec\\.mode: changing the mode from ${modes[0]} to Standalone is unsupported: ${modeChangeReason(n)}/);
});

test('while Pending, nothing exists yet: any change is allowed', () => {
  const pending = ${helper}({ ${sizeField}: '10Gi', replicas: 1, mode: '${modes[0]}' }, 'Pending');
  assert.equal(tester.check(${helper}({ ...pending.spec, mode: 'Standalone' }), { oldObject: pending }).allowed, true);
});

test('the machine renders as a diagram', () => {
  assert.match(renderMachine(contract.transitions!, 'mermaid'), /Ready --> Updating: scale/);
});
`;
}
