import { invariantMessage, modeChangeReason, modes, sizeField, spokeSizeField } from './placeholder-fields.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import { spokeVersions, versionIdentifier, versionKey, versionVariable, type ScaffoldShape } from './scaffold-shape.ts';

// src/contract.ts of a scaffolded project: the hub's schema, a default, an invariant, an FSA and,
// with several versions, one conversion per other version (whose schema and mapping are in src/versions/).

export function contractSource(n: ScaffoldNames, shape: ScaffoldShape): string {
  const spokes = spokeVersions(shape);
  const crdgateImports = [
    'defineContract',
    'fieldClassifier',
    'fieldError',
    'readInteger',
    'readString',
    ...(spokes.length > 0 ? ['specMappingConversion'] : []),
    'whenDifferent',
    'type Contract',
    'type Defaulter',
    'type Invariant',
    'type JSONSchemaProps',
    'type PrinterColumn',
    'type Fsa',
  ];
  const spokeImports = spokes.map(
    (version) =>
      `import { ${versionVariable(version)}Mapping, ${versionVariable(version)}Schema } from './versions/${version}.ts';\n`,
  );
  const modeType = modes.map((mode) => `'${mode}'`).join(' | ');
  const versionEntries = shape.versions.map((version) => {
    const isHub = version === shape.hub;
    return `      { name: '${version}', served: true, storage: ${version === shape.storage}, schema: ${isHub ? 'schema' : `${versionVariable(version)}Schema`}, subresources: { status: {} }, printerColumns },\n`;
  });
  const conversionEntries = spokes.map(
    (version) => `      ${versionKey(version)}: specMappingConversion({
        mapping: ${versionVariable(version)}Mapping,
        // So that a ${version} client reads denials in its own field names (rules run on ${shape.hub}).
        hubToSpokePaths: { 'spec.${sizeField}': 'spec.${spokeSizeField}' },
      }),\n`,
  );
  return `import {
${crdgateImports.map((name) => `  ${name},\n`).join('')}} from 'crdgate';
${spokeImports.join('')}
// TODO: replicas, ${sizeField} and mode are placeholders, there to show every part of a contract working. Replace
// them with the fields of your ${n.kind} in the interface, the schema and the rules below
// (node_modules/crdgate/docs/contracts.md describes each part).

export type ${n.typeName}Mode = ${modeType};

/** The spec of a ${n.kind} in the hub version, ${shape.hub}, as the schema below describes it. */
export interface ${n.typeName}Spec {
  /** TODO (placeholder): how many copies of the ${n.singular} the operator runs. Default 1. */
  replicas?: number;
  /** TODO (placeholder): how much storage the ${n.singular} gets, a Kubernetes quantity such as 10Gi. */
  ${sizeField}: string;
  /** TODO (placeholder): how the copies work together. Default ${modes[0]}. */
  mode?: ${n.typeName}Mode;
}

export const group = '${n.group}';
/** The version validation, defaults and rules are written against, and the one stored. */
export const hub = '${shape.hub}';
${
  spokes.length > 0
    ? `/** Where a conversion keeps what an older version cannot show (nothing yet: see src/versions/). */
export const conversionAnnotation = \`\${group}/conversion-data\`;
`
    : ''
}
const schema: JSONSchemaProps = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['${sizeField}'],
      properties: {
        replicas: { type: 'integer', minimum: 1, maximum: 10, description: 'TODO (placeholder): copies to run; default 1.' },
        ${sizeField}: { type: 'string', format: 'quantity', description: 'TODO (placeholder): storage, such as 10Gi.' },
        mode: { type: 'string', enum: [${modes.map((mode) => `'${mode}'`).join(', ')}], description: 'TODO (placeholder): default ${modes[0]}.' },
      },
    },
    status: {
      type: 'object',
      properties: { phase: { type: 'string', maxLength: 63, description: 'Set by the operator: Pending, Ready, Updating or Failed.' } },
    },
  },
};

/** What \`kubectl get ${n.plural}\` shows, the same in every version. */
const printerColumns: PrinterColumn[] = [
  { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
  { name: 'Mode', type: 'string', jsonPath: '.spec.mode' },
  { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
];

/**
 * TODO (placeholder): a rule across fields, which a schema cannot say. It runs even when the schema found errors
 * (all of them are reported at once), so it reads the spec defensively.
 */
export const standaloneRunsOneReplica: Invariant<${n.typeName}Spec> = (object) => {
  const spec = object.spec;
  if (spec?.mode === 'Standalone' && typeof spec.replicas === 'number' && spec.replicas !== 1) {
    return [fieldError('spec.replicas', 'FieldValueInvalid', '${invariantMessage(n)}')];
  }
  return [];
};

/** Fills absent fields only, and returns a copy: the object it is given is never changed. */
export const default${n.typeName}: Defaulter<${n.typeName}Spec> = (object) => {
  const spec = object.spec;
  if (spec === undefined || (spec.replicas !== undefined && spec.mode !== undefined)) return object;
  return { ...object, spec: { ...spec, replicas: spec.replicas ?? 1, mode: spec.mode ?? '${modes[0]}' } };
};

type ${n.typeName}State = 'Pending' | 'Ready' | 'Updating' | 'Failed' | 'Deleting';
type ${n.typeName}Change = 'scale' | 'mode.change';

/**
 * TODO (placeholder): the phases your operator writes to status.phase, and which spec changes it can carry out in
 * each. Here a Ready ${n.singular} may be scaled (the operator then reports Updating), and its mode never changes
 * once it exists. \`npm run fsa\` draws the machine.
 */
export const ${n.camel}Machine: Fsa<${n.typeName}State, ${n.typeName}Change> = {
  name: '${n.kind}',
  subject: '${n.singular}',
  states: ['Pending', 'Ready', 'Updating', 'Failed', 'Deleting'],
  initialState: 'Pending',
  steadyState: 'Ready',
  deletingState: 'Deleting',
  terminalStates: ['Deleting'],
  humanInterventionStates: ['Failed'],
  phasePath: 'status.phase',
  changeKinds: {
    scale: { description: 'changing replicas from {from} to {to}' },
    'mode.change': { description: 'changing the mode from {from} to {to}', unsupported: '${modeChangeReason(n)}' },
  },
  rules: {
    Pending: { anyChange: true, operatorMoves: ['Ready', 'Failed'] },
    Ready: { allow: [{ changes: ['scale'], next: 'Updating' }], operatorMoves: ['Failed'] },
    Updating: { operatorMoves: ['Ready', 'Failed'] },
    Failed: {},
    Deleting: {},
  },
  overrideAnnotation: \`\${group}/override-transitions\`,
  classifiers: [
    fieldClassifier({ path: 'replicas', absentMeans: 1, read: readInteger, compare: whenDifferent('scale') }),
    fieldClassifier({ path: 'mode', absentMeans: '${modes[0]}', read: readString, compare: whenDifferent('mode.change') }),
  ],
};

/** crdgate loads this module with \`--contract\`; a function, so that importing the module does no work. */
export default function ${n.camel}Contract(): Contract<${n.typeName}Spec> {
  return defineContract<${n.typeName}Spec>({
    identity: { group, kind: '${n.kind}', plural: '${n.plural}', singular: '${n.singular}', scope: '${shape.scope}' },
    hub,
    versions: [
${versionEntries.join('')}    ],
    conversions: {${spokes.length > 0 ? `\n${conversionEntries.join('')}    ` : ''}},${spokes.length > 0 ? '\n    conversionAnnotation,' : ''}
    invariants: [standaloneRunsOneReplica],
    defaults: default${n.typeName},
    transitions: ${n.camel}Machine,
    // What the invariants, defaults and rules read besides the spec: declare each label or annotation they read, and
    // status: true if they read it. A write that changes nothing of it never reaches crdgate, so never waits on it
    // (node_modules/crdgate/docs/contracts.md, "What reaches crdgate").
    reads: { labels: [], annotations: [], status: false },
  });
}
`;
}

/** The name the hub spec's type has in a spoke's module: `QueueSpecV1beta1`. */
export function spokeSpecType(n: ScaffoldNames, version: string): string {
  return `${n.typeName}Spec${versionIdentifier(version)}`;
}
