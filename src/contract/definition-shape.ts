import { defaultsShape } from './defaults/default-shape.ts';
import { machineShapeProblems } from './fsa/machine-shape.ts';
import {
  aFunction,
  anObject,
  flag,
  json,
  listOf,
  maybe,
  integer,
  oneOf,
  recordOf,
  shapeProblems,
  text,
  either,
  withFields,
  type OptionShape,
  type ShapeFields,
} from './values/option-shape.ts';

// The shape of defineContract's options (define-contract.ts), checked before any of its rules reads them. The
// FSA has a shape of its own (fsa/machine-shape.ts); a version's schema is held to the API server's
// rules by the structural check, which reads anything.

const names = (what: string) => listOf(text(), `a list of ${what}`);

const identity = withFields('an object: { group, kind, plural, singular, scope }', {
  group: text('an API group such as example.com'),
  kind: text('a kind such as Bucket'),
  plural: text('a lowercase resource name'),
  singular: text('a lowercase resource name'),
  listKind: maybe(text()),
  shortNames: maybe(names('short names')),
  categories: maybe(names('categories')),
  scope: oneOf(['Namespaced', 'Cluster']),
});

const printerColumn = withFields(
  'a printer column: { name, type, jsonPath }',
  {
    name: text(),
    type: oneOf(['integer', 'number', 'string', 'boolean', 'date']),
    jsonPath: text('a JSON path such as .spec.size'),
    description: maybe(text()),
    format: maybe(text()),
    priority: maybe(integer()),
  },
  'none',
);

const subresources = withFields(
  'an object: { status?, scale? }',
  {
    status: maybe(either('{} (an empty object)', withFields('{} (an empty object)', {}, 'none'), oneOf([null]))),
    scale: maybe(
      withFields(
        'an object: { specReplicasPath, statusReplicasPath, labelSelectorPath? }',
        {
          specReplicasPath: text('a JSON path such as .spec.replicas'),
          statusReplicasPath: text('a JSON path such as .status.replicas'),
          labelSelectorPath: maybe(text('a JSON path such as .status.selector')),
        },
        'none',
      ),
    ),
  },
  'none',
);

const version = withFields('a version: { name, served, storage, schema }', {
  name: text('a version name such as v1'),
  served: flag,
  storage: flag,
  deprecated: maybe(flag),
  deprecationWarning: maybe(text()),
  schema: anObject("the version's openAPIV3Schema, an object"),
  printerColumns: maybe(listOf(printerColumn, 'a list of printer columns')),
  subresources: maybe(subresources),
  selectableFields: maybe(
    listOf(
      withFields('an object: { jsonPath }', { jsonPath: text('a JSON path such as .spec.color') }, 'none'),
      'a list of selectable fields',
    ),
  ),
});

const conversion = withFields('a conversion: { toHub, fromHub }', {
  toHub: aFunction('a function of the spoke object returning the hub object'),
  fromHub: aFunction('a function of the hub object returning the spoke object'),
  usesStash: maybe(flag),
  hubToSpokePaths: maybe(
    recordOf(
      either('a field path, or null', text(), oneOf([null])),
      'an object of hub field paths to spoke field paths',
    ),
  ),
});

const deletionRule = aFunction('a function of the stored object', {
  readsMetadataOnly: maybe(flag),
  // Which of the two forms, and its value's type, is deletionRuleProblems' (define-contract.ts) to say.
  form: maybe(
    withFields(
      'an object: { annotation, equals } or { field, equals }',
      {
        annotation: maybe(text('an annotation key')),
        field: maybe(text('a field path such as spec.deletionProtection')),
        equals: either('a string, a boolean or an integer', text(), flag, integer()),
      },
      'none',
    ),
  ),
});

/** defineContract's options, less the machine (whose shape and problems its own check gives). */
const definitionFields: ShapeFields = {
  identity,
  versions: listOf(version, 'a list of versions'),
  hub: text('the name of one of the versions'),
  conversions: recordOf(conversion, 'an object of version names to conversions ({} when the hub is the only version)'),
  conversionAnnotation: maybe(text('an annotation key such as example.com/conversion-data')),
  hiddenFieldChanges: maybe(oneOf(['refuse', 'warn'])),
  defaults: maybe(defaultsShape),
  invariants: maybe(listOf(aFunction('a function of the hub object'), 'a list of functions of the hub object')),
  deletionRules: maybe(listOf(deletionRule, 'a list of deletion rules')),
  updateRules: maybe(
    listOf(aFunction('a function of the old and new object'), 'a list of functions of the old and new object'),
  ),
  crdAnnotations: maybe(recordOf(text(), 'an object of annotation keys to strings')),
  crdOwner: maybe(oneOf(['crdgate', 'external'])),
  reads: maybe(
    withFields(
      'an object: { labels?, annotations?, status? }',
      { labels: maybe(names('label keys')), annotations: maybe(names('annotation keys')), status: maybe(flag) },
      'none',
    ),
  ),
  ownerCrd: maybe(recordOf(json, "the owner's CustomResourceDefinition, an object")),
};

const definitionShape: OptionShape = withFields(
  'an object of contract options (identity, versions, hub, conversions, ...)',
  definitionFields,
);

const contractShape: OptionShape = withFields('a contract made with defineContract', {
  ...definitionFields,
  storageVersion: text('the name of the storage version (defineContract sets it)'),
});

/**
 * What is wrong with the shape of a contract's options, one sentence per option naming its path
 * (`versions[1].schema must be ...`); empty when every option has its type. `made` holds a contract crdgate is
 * handed (which defineContract made, so it has a storageVersion) rather than a definition.
 */
export function definitionShapeProblems(value: unknown, made: boolean): string[] {
  const whole = made ? 'the contract' : "defineContract's argument";
  const problems = shapeProblems(value, made ? contractShape : definitionShape, { path: [], whole });
  const transitions =
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['transitions'] : undefined;
  if (transitions !== undefined) problems.push(...machineShapeProblems(transitions, { path: ['transitions'], whole }));
  return problems;
}
