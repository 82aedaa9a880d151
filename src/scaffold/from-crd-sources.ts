import { stringify } from 'yaml';
import { environmentPreamble, requireE2eVariable } from './e2e-test-source.ts';
import { contractPath, imageName, type PinnedVersions } from './project-files.ts';
import type { CrdOwner } from '../contract/contract-definition.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import { spokeVersions, versionKey, type ScaffoldShape } from './scaffold-shape.ts';

// The sources of a project made with `crdgate init --from-crd`: the contract reads the project's copy of the CRD
// when it is made (fromCrd), so names, versions and schemas stay the CRD's, and adds only crdgate's own rules.

export interface CrdScaffold {
  names: ScaffoldNames;
  shape: ScaffoldShape;
  /** The CRD's file in the project, from its root: `crds/queues.example.com.yaml`. */
  crdFile: string;
  /**
   * Who owns the CRD: crdgate (it renders the CRD, its conversion and migration), or an operator whose chart installs
   * it (`external`: crdgate renders its webhooks only, and the project's copy of the CRD is for the local loop).
   */
  crdOwner: CrdOwner;
  /** The CRD's name, given to readCrdFile when the file holds other CRDs too. */
  crdName?: string;
  /**
   * An object of the kind in the hub version (`examples/SINGULAR.yaml`, and the tests' copy): one the API server and
   * crdgate take, made from the schema or given with --example; else the closest init made, with exampleRefusal.
   */
  example: Record<string, unknown>;
  /** What the API server (or crdgate) refuses in `example`, one line per cause; absent when it takes it. */
  exampleRefusal?: readonly string[];
  /** The hub's spec is pruned: a field its schema does not declare is an error. */
  specPruned: boolean;
  /** The names of the hub version's printer columns, of every priority (kubectl get -o wide shows them all). */
  printerColumns: string[];
}

export function contractSourceFromCrd(s: CrdScaffold): string {
  return s.crdOwner === 'external' ? operatorContractSource(s) : ownedContractSource(s);
}

function ownedContractSource(s: CrdScaffold): string {
  const { names: n, shape } = s;
  const spokes = spokeVersions(shape);
  const imports = [
    'defineContract',
    'fromCrd',
    'readCrdFile',
    ...(spokes.length > 0 ? ['specMappingConversion'] : []),
    'type Contract',
    'type Invariant',
  ];
  const nameOption = s.crdName === undefined ? '' : `, { name: '${s.crdName}' }`;
  const conversions =
    spokes.length === 0
      ? ''
      : `
    // TODO: one conversion per version other than the hub. These take every version's spec to be the same; make
    // each say how its version differs (docs: "Conversions: hub and spoke, and the stash").
    conversions: {
${spokes.map((version) => `      ${versionKey(version)}: specMappingConversion({ mapping: { down: (spec) => ({ spec, lost: {} }), up: (spec) => spec } }),\n`).join('')}    },
    conversionAnnotation: '${n.group}/conversion-data',`;
  return `import {
${imports.map((name) => `  ${name},\n`).join('')}} from 'crdgate';

// The CRD is the source of truth for the names, versions and schemas: ${s.crdFile},
// as it was given to \`crdgate init --from-crd\`. Regenerate or edit it there, and this contract follows.
// What crdgate adds to it is below: rules across fields (invariants), computed defaults, the machine of allowed
// spec changes (transitions), deletion rules, and conversions between versions
// (node_modules/crdgate/docs/contracts.md describes each part).

/** The CRD, read when the contract is made (so the image must carry ${s.crdFile.split('/')[0]}/, and does). */
export const crd = readCrdFile(new URL('../${s.crdFile}', import.meta.url)${nameOption});

/**
 * The spec of a ${n.kind} in the hub version, ${shape.hub}. TODO: give it the fields your rules read (a rule sees
 * objects that failed the schema too, so it checks each value before using it).
 */
export type ${n.typeName}Spec = Record<string, unknown>;

/** TODO: rules across fields, which a schema cannot say; each returns the field errors it finds. */
export const invariants: Invariant<${n.typeName}Spec>[] = [];

/** crdgate loads this module with \`--contract\`; a function, so that importing the module does no work. */
export default function ${n.camel}Contract(): Contract<${n.typeName}Spec> {
  return defineContract<${n.typeName}Spec>({
    ...fromCrd(crd),${conversions}
    invariants,
    // What the invariants, defaults and rules read besides the spec: declare each label or annotation they read, and
    // status: true if they read it. A write that changes nothing of it never reaches crdgate, so never waits on it
    // (node_modules/crdgate/docs/contracts.md, "What reaches crdgate").
    reads: { labels: [], annotations: [], status: false },
    // TODO: defaults, transitions, deletionRules, updateRules: see node_modules/crdgate/docs/contracts.md.
  });
}
`;
}

/** The contract of a project that guards an operator's CRD: the CRD, its conversions and migration stay the operator's. */
function operatorContractSource(s: CrdScaffold): string {
  const { names: n, shape } = s;
  const nameOption = s.crdName === undefined ? '' : `, { name: '${s.crdName}' }`;
  return `import { defineContract, fromCrd, readCrdFile, type Contract, type Invariant } from 'crdgate';

// The operator owns this CRD: its chart (or OLM) installs it, with its own conversions. ${s.crdFile} is a copy, as
// the operator's release you run installs it, given to \`crdgate init --from-crd --crd-owner external\`. crdgate
// renders no CRD, conversion or storage-version migration for the kind: only its webhooks, which the API server
// calls in the hub version (${shape.hub}) after the operator's conversion. \`npm run dev\` and the end-to-end test
// apply the copy in the operator's place. When the operator is upgraded, copy its new release's CRD here first.
// What crdgate adds is below: rules across fields (invariants) and the machine of the spec changes the operator can
// carry out in each of its phases (transitions): node_modules/crdgate/docs/guarding-an-operator.md walks through
// both for a database operator, and node_modules/crdgate/docs/contracts.md describes each part.

/** The operator's CRD, read when the contract is made (so the image must carry ${s.crdFile.split('/')[0]}/, and does). */
export const crd = readCrdFile(new URL('../${s.crdFile}', import.meta.url)${nameOption});

/**
 * The spec of a ${n.kind} in the hub version, ${shape.hub}. TODO: give it the fields your rules read (a rule sees
 * objects that failed the schema too, so it checks each value before using it).
 */
export type ${n.typeName}Spec = Record<string, unknown>;

/** TODO: rules across fields, which the operator's schema cannot say; each returns the field errors it finds. */
export const invariants: Invariant<${n.typeName}Spec>[] = [];

/** crdgate loads this module with \`--contract\`; a function, so that importing the module does no work. */
export default function ${n.camel}Contract(): Contract<${n.typeName}Spec> {
  return defineContract<${n.typeName}Spec>({
    ...fromCrd(crd, { crdOwner: 'external' }),
    invariants,
    // What the invariants, defaults and rules read besides the spec: declare each label or annotation they read, and
    // status: true if they read it. A write that changes nothing of it never reaches crdgate, so never waits on it
    // (node_modules/crdgate/docs/contracts.md, "What reaches crdgate").
    reads: { labels: [], annotations: [], status: false },
    // TODO: transitions: the operator's phases (its phase strings through \`phases\`, or its conditions through
    // \`conditionStates\`) and the spec changes it can carry out in each (node_modules/crdgate/docs/guarding-an-operator.md).
  });
}
`;
}

/**
 * The tests' copy of the example: the object, and what a test that uses it says when it is refused. Where init could
 * not make one the API server takes, the copy is the closest it made, under a TODO, and the message says what to do.
 */
function exampleDeclaration(s: CrdScaffold): { declaration: string; refusedMessage: string } {
  const file = `examples/${s.names.singular}.yaml`;
  const example = JSON.stringify(s.example);
  if (s.exampleRefusal === undefined)
    return {
      declaration: `/** ${file}: the fields the schema requires, each with a value it allows. */
const example = ${example};`,
      refusedMessage: `'the example (${file}) is refused: '`,
    };
  const refused = s.exampleRefusal.map((line) => `//   ${line}`).join('\n');
  return {
    declaration: `// TODO: crdgate init could not make an object the CRD's schema takes; this is the closest it made, which the API
// server refuses:
${refused}
// Write one in ${file} (\`npm run check -- -f ${file}\` decides it), then put it here in place of this one.
const example = ${example};`,
    refusedMessage: `'crdgate init could not make an example the CRD takes: write one in ${file} (npm run check -- -f ${file} decides it) and put it in place of the example in this file: '`,
  };
}

export function contractTestSourceFromCrd(s: CrdScaffold): string {
  const { names: n, shape } = s;
  const { declaration, refusedMessage } = exampleDeclaration(s);
  const exampleTests = `
${declaration}

test('the example is allowed', () => {
  const result = tester.check(example);
  assert.equal(result.allowed, true, ${refusedMessage} + result.message);
});
${
  s.specPruned
    ? `
test('a field the schema does not declare is refused, not silently dropped', () => {
  const result = tester.check({ ...example, spec: { ...example.spec, notAField: 1 } });
  assert.equal(result.code, 'OBJECT_INVALID');
  assert.deepEqual(result.causes.map((cause) => cause.field), ['spec.notAField']);
});
`
    : ''
}`;
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contractTester } from 'crdgate/testing';
import ${n.camel}Contract, { crd } from './contract.ts';

// The contract decided as the server decides it, with crdgate/testing, without a server. TODO: a test for each
// rule you add to src/contract.ts.

const contract = ${n.camel}Contract();
const tester = contractTester(contract);

test('the contract is the CRD in ${s.crdFile}', () => {
  assert.equal(contract.identity.kind, '${n.kind}');${
    s.crdOwner === 'external'
      ? "\n  // The operator's: crdgate renders no CRD, conversion or migration for it.\n  assert.equal(contract.crdOwner, 'external');"
      : ''
  }
  assert.equal(\`\${contract.identity.plural}.\${contract.identity.group}\`, (crd as { metadata: { name: string } }).metadata.name);
  assert.deepEqual(contract.versions.map((version) => version.name), ${JSON.stringify(shape.versions)});
  assert.equal(contract.hub, '${shape.hub}');
});
${exampleTests}`;
}

export function e2eTestSourceFromCrd(s: CrdScaffold): string {
  const { names: n, shape } = s;
  const resource = `${n.plural}.${n.group}`;
  const namespaced = shape.scope === 'Namespaced';
  const { declaration, refusedMessage } = exampleDeclaration(s);
  const exampleTest = `
${declaration}

test('the example is created through the API server and crdgate\\'s webhooks, and kubectl shows the CRD\\'s columns', async (t) => {
  const env = environment(t);
  if (!env) return;
  const created = await env.client
    .create({ ...example, metadata: { ...example.metadata${namespaced ? ', namespace: env.namespace' : ''} } })
    .catch((error: Error) => assert.fail(${refusedMessage} + error.message));
  assert.equal(created.metadata?.name, example.metadata.name);
  // -o wide: a column of priority 1 or more (CloudNativePG's SYNCTOPOLOGY, say) shows only there.
  const listed = await env.kubectl(['get', '${resource}', '-o', 'wide'${namespaced ? ", '-n', env.namespace" : ''}]);
  assert.equal(listed.exitCode, 0, listed.stderr);
  const header = listed.stdout.split('\\n')[0]!.split(/\\s{2,}/);
  for (const column of ${JSON.stringify(s.printerColumns.map((column) => column.toUpperCase()))}) assert.ok(header.includes(column), listed.stdout);
});
`;
  return `import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { ControlPlaneUnavailableError, startTestEnvironment, type TestEnvironment } from 'crdgate/testing';
import ${n.camel}Contract, { crd } from './contract.ts';

${environmentPreamble(n)}
test('the API server serves the CRD as ${s.crdFile} has it${s.crdOwner === 'external' ? ", applied in the operator\\'s place" : ''}', async (t) => {
  const env = environment(t);
  if (!env) return;
  const served = await env.kubectl(['get', 'crd', '${resource}', '-o', 'json']);
  assert.equal(served.exitCode, 0, served.stderr);
  const versions = (definition: unknown) =>
    (definition as { spec: { versions: Record<string, unknown>[] } }).spec.versions.map(({ name, schema, additionalPrinterColumns, subresources }) => ({ name, schema, additionalPrinterColumns, subresources }));
  assert.deepEqual(versions(JSON.parse(served.stdout)), versions(crd));
});
${exampleTest}`;
}

export function exampleObjectFromCrd(s: CrdScaffold): string {
  if (s.exampleRefusal === undefined) return stringify(s.example);
  return `# TODO: crdgate init could not make an object the CRD's schema takes (a pattern or a rule asks more than it could
# guess); this is the closest it made, which the API server refuses:
${s.exampleRefusal.map((line) => `#   ${line}`).join('\n')}
# Fix it (\`npm run check -- -f examples/${s.names.singular}.yaml\` decides it), then put it in the tests in place of
# their copy (src/contract.test.ts, src/contract.e2e.test.ts).
${stringify(s.example)}`;
}

export function readmeFromCrd(s: CrdScaffold, versions: PinnedVersions): string {
  const { names: n, shape } = s;
  const resource = `${n.plural}.${n.group}`;
  const image = `REGISTRY/${imageName(n)}`;
  return `# ${n.kind} webhooks

Admission (validation, defaults, allowed changes per phase) and conversion webhooks for \`${n.kind}\`
(\`${resource}\`, ${shape.scope === 'Namespaced' ? 'namespaced' : 'cluster-scoped'}), served by crdgate, made from the CRD in \`${s.crdFile}\`.
The contract, \`${contractPath}\`, reads that file when it is made (\`fromCrd\`): names, versions
(${shape.versions.map((v) => `\`${v}\``).join(', ')}, the hub \`${shape.hub}\`), schemas, subresources and printer columns stay the CRD's, so
regenerate or edit the CRD there and the contract follows. The CRD and the webhook configurations crdgate renders
are that CRD, with crdgate's conversion webhook when there are several versions.

## 1. Add crdgate's rules

\`${contractPath}\` has what crdgate adds to a CRD, marked TODO: invariants (rules across fields), and where to
put computed defaults, the FSA (which spec changes the operator can carry out in which phase),
deletion rules${spokeVersions(shape).length > 0 ? ' and the conversions between versions (they take the versions to be the same until you say how they differ)' : ''}.
crdgate's contract guide, \`node_modules/crdgate/docs/contracts.md\`, describes every part. Once there is a transition
machine, \`npm run fsa\` draws it.

${crdProjectTestSection(s)}
## 3. Try it, build it, deploy it

\`npm run dev\` starts a local kube-apiserver with the CRD and the webhooks and prints the kubectl to use.
\`docker build -t ${image} .\` builds the image (it carries \`src/\` and \`${s.crdFile.split('/')[0]}/\`${
    versions.crdgateTarball === undefined
      ? ''
      : `; crdgate comes from \`${versions.crdgateTarball}\`, so keep \`vendor/\``
  }), and
\`npx crdgate manifests --contract ${contractPath} --image ${image} --out manifests\` renders what to deploy:
crdgate's \`docs/own-contracts.md\` and \`docs/operations.md\` go through it.
`;
}

/** "Test it" of a README of a project made from a CRD: its two test files and its example object. */
export function crdProjectTestSection(s: CrdScaffold): string {
  const n = s.names;
  const applied = s.crdOwner === 'external' ? `, with the operator's CRD applied from \`${s.crdFile}\`` : '';
  return `## 2. Test it

\`\`\`sh
npm ci
npm test
\`\`\`

npm scripts run on the Node 24 this project pins (its \`node\` dev dependency), whatever Node the machine has; to run
one file yourself, \`npx node --test src/contract.test.ts\` (a plain \`node\` older than 22 cannot run TypeScript).
\`npm test\` typechecks, then runs \`src/contract.test.ts\` (each rule decided as the server decides it, without a
server) and \`src/contract.e2e.test.ts\` (the contract served by crdgate in front of a real kube-apiserver and etcd on
127.0.0.1${applied}; they come from \`$KUBEBUILDER_ASSETS\` or are built with Go the first time; skipped, saying why,
where neither is possible, and a failure with \`${requireE2eVariable}=1\`). \`examples/${n.singular}.yaml\` is an object ${
    s.exampleRefusal !== undefined
      ? "to fix: crdgate init could not make one the CRD's schema takes, and the example tests fail until it is fixed there and in the tests' copy"
      : "with the fields the schema requires, which the API server takes; if you edit it, edit the tests' copy too"
  }: \`npm run check -- -f examples/${n.singular}.yaml\` decides it.
`;
}
