import { spokeSpecType } from './contract-source.ts';
import { modes, sizeField, spokeSizeField } from './placeholder-fields.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import { versionVariable, type ScaffoldShape } from './scaffold-shape.ts';

// src/versions/VERSION.ts of a scaffolded project, one per version other than the hub: the version's schema and
// how its spec maps to the hub's. The placeholder difference is one renamed field.

export function spokeVersionSource(n: ScaffoldNames, shape: ScaffoldShape, version: string): string {
  const spec = spokeSpecType(n, version);
  const variable = versionVariable(version);
  return `import type { JSONSchemaProps, SpecMapping } from 'crdgate';
import type { ${n.typeName}Spec } from '../contract.ts';

// ${version}: a version other than the hub (${shape.hub}). crdgate converts every object between the two through
// the mapping below, in both directions, losslessly. TODO (placeholder): here the versions differ in one name only,
// ${shape.hub}'s \`${sizeField}\` being \`${spokeSizeField}\` in ${version}; make it say how your versions differ.

/** The spec of a ${n.kind} in ${version}, as the schema below describes it. */
export type ${spec} = Omit<${n.typeName}Spec, '${sizeField}'> & { ${spokeSizeField}: string };

// A version is a published API: its schema is written out, not shared with the hub's, so that a change to the hub
// cannot change the schema the API server checks ${version} objects against. crdgate's own checks (the hub's schema,
// invariants, the machine) run on every object converted to ${shape.hub}, in the cluster as in \`npm run check\` and
// contractTester, so tightening the hub tightens ${version} too (a denial names ${version}'s fields).
export const ${variable}Schema: JSONSchemaProps = {
  type: 'object',
  required: ['spec'],
  properties: {
    spec: {
      type: 'object',
      required: ['${spokeSizeField}'],
      properties: {
        replicas: { type: 'integer', minimum: 1, maximum: 10 },
        ${spokeSizeField}: { type: 'string', format: 'quantity', description: 'Called ${sizeField} in ${shape.hub}.' },
        mode: { type: 'string', enum: [${modes.map((mode) => `'${mode}'`).join(', ')}] },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string', maxLength: 63 } } },
  },
};

/**
 * ${shape.hub} -> ${version} and back. Conversion runs before validation, so either direction may see a spec without the
 * field: it is left out then, never invented. What ${version} cannot show would go in \`lost\` (kept in an annotation
 * and put back on the way up); nothing is lost yet.
 */
export const ${variable}Mapping: SpecMapping<${n.typeName}Spec, ${spec}> = {
  down: ({ ${sizeField}, ...rest }) => ({ spec: { ...rest, ...(${sizeField} === undefined ? {} : { ${spokeSizeField}: ${sizeField} }) } as ${spec}, lost: {} }),
  up: ({ ${spokeSizeField}, ...rest }) => ({ ...rest, ...(${spokeSizeField} === undefined ? {} : { ${sizeField}: ${spokeSizeField} }) }) as ${n.typeName}Spec,
};
`;
}
