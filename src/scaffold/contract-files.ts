import type { ScaffoldNames } from './scaffold-names.ts';

// The contract a scaffolded project starts from: one version, a schema, an invariant, defaults and a small
// transition machine, each small enough to read in a minute and replace with the user's own.

/** The error the invariant reports; the scaffold's tests (and crdgate's test of the scaffold) look for it. */
export const invariantMessage = 'an archive tier keeps exactly one replica';

export function contractSource(n: ScaffoldNames): string {
  return `import {
  byDirection,
  defineContract,
  fieldClassifier,
  fieldError,
  readInteger,
  whenDifferent,
  type Contract,
  type Defaulter,
  type Invariant,
  type JSONSchemaProps,
  type TransitionMachine,
} from 'crdgate';

/** The spec of a ${n.kind}, as the schema below describes it. */
export interface ${n.kind}Spec {
  sizeGi: number;
  replicas?: number;
  tier?: 'standard' | 'archive';
}

export const group = '${n.group}';

const schema: JSONSchemaProps = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['sizeGi'],
      properties: {
        sizeGi: { type: 'integer', minimum: 1, maximum: 1024, description: 'Size in GiB; it can grow but never shrink.' },
        replicas: { type: 'integer', minimum: 1, maximum: 5, description: 'Copies of the data; default 1.' },
        tier: { type: 'string', enum: ['standard', 'archive'], description: 'Default standard.' },
      },
    },
    status: {
      type: 'object',
      properties: { phase: { type: 'string', description: 'Set by the operator: Pending, Ready, Resizing or Failed.' } },
    },
  },
};

/**
 * A rule across fields, which a schema cannot say. It runs even when the schema found errors (all of them are
 * reported at once), so it reads the spec defensively.
 */
export const archiveKeepsOneReplica: Invariant<${n.kind}Spec> = (object) => {
  const spec = object.spec;
  if (spec?.tier === 'archive' && typeof spec.replicas === 'number' && spec.replicas !== 1) {
    return [fieldError('spec.replicas', 'FieldValueInvalid', '${invariantMessage}')];
  }
  return [];
};

/** Fills absent fields only, and returns a copy: the object it is given is never changed. */
export const default${n.kind}: Defaulter<${n.kind}Spec> = (object) => {
  const spec = object.spec;
  if (spec === undefined || (spec.replicas !== undefined && spec.tier !== undefined)) return object;
  return { ...object, spec: { ...spec, replicas: spec.replicas ?? 1, tier: spec.tier ?? 'standard' } };
};

type ${n.kind}State = 'Pending' | 'Ready' | 'Resizing' | 'Failed' | 'Deleting';
type ${n.kind}Change = 'size.grow' | 'size.shrink' | 'scale';

/** Which spec changes the operator can carry out in which phase (\`crdgate fsa\` draws it). */
export const ${n.camel}Machine: TransitionMachine<${n.kind}State, ${n.kind}Change> = {
  name: '${n.kind}',
  subject: '${n.singular}',
  states: ['Pending', 'Ready', 'Resizing', 'Failed', 'Deleting'],
  initialState: 'Pending',
  steadyState: 'Ready',
  deletingState: 'Deleting',
  terminalStates: ['Deleting'],
  humanInterventionStates: ['Failed'],
  phasePath: 'status.phase',
  changeKinds: {
    'size.grow': { description: 'growing from {from} to {to} GiB', exclusive: true },
    'size.shrink': { description: 'shrinking from {from} to {to} GiB', unsupported: 'a volume cannot shrink' },
    scale: { description: 'changing replicas from {from} to {to}' },
  },
  rules: {
    Pending: { anyChange: true, operatorMoves: ['Ready', 'Failed'] },
    Ready: { allow: [{ changes: ['scale'] }, { changes: ['size.grow'], next: 'Resizing' }], operatorMoves: ['Failed'] },
    Resizing: { allow: [{ changes: ['scale'] }], operatorMoves: ['Ready', 'Failed'] },
    Failed: {},
    Deleting: {},
  },
  overrideAnnotation: \`\${group}/override-transitions\`,
  classifiers: [
    fieldClassifier({
      path: 'sizeGi',
      read: readInteger,
      compare: byDirection({ compare: (a: number, b: number) => a - b, increase: 'size.grow', decrease: 'size.shrink' }),
    }),
    fieldClassifier({ path: 'replicas', absentMeans: 1, read: readInteger, compare: whenDifferent('scale') }),
  ],
};

/** crdgate loads this module with \`--contract\`; a function, so that importing the module does no work. */
export default function ${n.camel}Contract(): Contract<${n.kind}Spec> {
  return defineContract<${n.kind}Spec>({
    identity: { group, kind: '${n.kind}', plural: '${n.plural}', singular: '${n.singular}', scope: 'Namespaced' },
    hub: 'v1',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema,
        subresources: { status: {} },
        printerColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.sizeGi' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
        ],
      },
    ],
    conversions: {},
    invariants: [archiveKeepsOneReplica],
    defaults: default${n.kind},
    transitions: ${n.camel}Machine,
  });
}
`;
}

export function contractTestSource(n: ScaffoldNames): string {
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contractTester, renderMachine } from 'crdgate/testing';
import ${n.camel}Contract, { group, type ${n.kind}Spec } from './contract.ts';

const contract = ${n.camel}Contract();
const tester = contractTester(contract);

function ${n.camel}(spec: Partial<${n.kind}Spec>, phase?: string) {
  return {
    apiVersion: \`\${group}/v1\`,
    kind: '${n.kind}',
    metadata: { name: 'example', namespace: 'default' },
    spec,
    ...(phase === undefined ? {} : { status: { phase } }),
  };
}

test('a valid ${n.kind} is allowed, and the defaults fill what it leaves out', () => {
  const result = tester.check(${n.camel}({ sizeGi: 10 }));
  assert.equal(result.allowed, true, result.message);
  assert.deepEqual(result.object.spec, { sizeGi: 10, replicas: 1, tier: 'standard' });
  assert.deepEqual(result.defaults.map((d) => d.field), ['spec.replicas', 'spec.tier']);
});

test('the schema and the invariant report every problem at once', () => {
  const result = tester.check(${n.camel}({ sizeGi: 0, tier: 'archive', replicas: 3 }));
  assert.equal(result.allowed, false);
  assert.equal(result.code, 'OBJECT_INVALID');
  assert.deepEqual(result.causes.map((c) => c.field).sort(), ['spec.replicas', 'spec.sizeGi']);
  assert.match(result.message ?? '', /${invariantMessage}/);
});

test('once Ready, the size grows but never shrinks', () => {
  const ready = ${n.camel}({ sizeGi: 10, replicas: 1, tier: 'standard' }, 'Ready');
  assert.equal(tester.check(${n.camel}({ ...ready.spec, sizeGi: 20 }), { oldObject: ready }).allowed, true);
  const shrink = tester.check(${n.camel}({ ...ready.spec, sizeGi: 5 }), { oldObject: ready });
  assert.equal(shrink.code, 'CHANGE_FORBIDDEN');
  assert.match(shrink.message ?? '', /a volume cannot shrink/);
});

test('while Pending, nothing exists yet: any change is allowed', () => {
  const pending = ${n.camel}({ sizeGi: 10, replicas: 1, tier: 'standard' }, 'Pending');
  assert.equal(tester.check(${n.camel}({ ...pending.spec, sizeGi: 5 }), { oldObject: pending }).allowed, true);
});

test('the machine renders as a diagram', () => {
  assert.match(renderMachine(contract.transitions!, 'mermaid'), /Ready --> Resizing: size\\.grow/);
});
`;
}

/** An object to try the contract on, with `crdgate check` or `kubectl apply`. */
export function exampleObject(n: ScaffoldNames): string {
  return `apiVersion: ${n.group}/v1
kind: ${n.kind}
metadata:
  name: example
spec:
  sizeGi: 10
`;
}
