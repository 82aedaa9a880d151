import { modes, sizeField, spokeSizeField } from './placeholder-fields.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import { spokeVersions, versionKey, type ScaffoldShape } from './scaffold-shape.ts';

// src/conversion.test.ts of a scaffolded project with several versions: one example of the renamed field, and the
// property every conversion must have, checked on generated objects: any object of any version, converted to any
// other version and back, comes back exactly, and is valid in the version it was converted to.

export function conversionTestSource(n: ScaffoldNames, shape: ScaffoldShape): string {
  const spokes = spokeVersions(shape);
  const firstSpoke = spokes[0]!;
  const namespace = shape.scope === 'Namespaced' ? ", namespace: 'default'" : '';
  const generators = shape.versions.map(
    (version) =>
      `  ${versionKey(version)}: objectIn('${version}', '${version === shape.hub ? sizeField : spokeSizeField}'),\n`,
  );
  return `import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { contractTester } from 'crdgate/testing';
import ${n.camel}Contract, { group, hub } from './contract.ts';

const tester = contractTester(${n.camel}Contract());

test('${firstSpoke} shows the hub\\'s ${sizeField} as ${spokeSizeField}', () => {
  const object = { apiVersion: \`\${group}/\${hub}\`, kind: '${n.kind}', metadata: { name: 'example'${namespace} }, spec: { ${sizeField}: '10Gi', replicas: 2 } };
  const converted = tester.convert(object, \`\${group}/${firstSpoke}\`);
  assert.deepEqual(converted.spec, { ${spokeSizeField}: '10Gi', replicas: 2 });
  assert.deepEqual(tester.convert(converted, \`\${group}/\${hub}\`), object);
});

/** Valid ${n.kind} objects of one version, whose quantity field is called \`sizeField\` there. */
function objectIn(version: string, sizeField: string) {
  const quantity = fc
    .tuple(fc.integer({ min: 1, max: 4096 }), fc.constantFrom('', 'k', 'M', 'G', 'Mi', 'Gi', 'Ti'))
    .map(([amount, suffix]) => \`\${amount}\${suffix}\`);
  // A Standalone ${n.singular} runs one replica (the invariant), so its replicas are 1 or left out.
  const spec = fc.oneof(
    fc.record({ replicas: fc.integer({ min: 1, max: 10 }), quantity, mode: fc.constant('${modes[0]}') }, { requiredKeys: ['quantity'] }),
    fc.record({ replicas: fc.constant(1), quantity, mode: fc.constant('Standalone') }, { requiredKeys: ['quantity', 'mode'] }),
  );
  return fc
    .record({
      name: fc.stringMatching(/^[a-z][a-z0-9]{0,20}$/),
      spec,
      phase: fc.option(fc.constantFrom('Pending', 'Ready', 'Updating', 'Failed')),
    })
    .map(({ name, spec: { quantity: amount, ...others }, phase }) => ({
      apiVersion: \`\${group}/\${version}\`,
      kind: '${n.kind}',
      metadata: { name${namespace} },
      spec: { ...others, [sizeField]: amount },
      ...(phase === null ? {} : { status: { phase } }),
    }));
}

const objects = {
${generators.join('')}};

for (const [from, generator] of Object.entries(objects)) {
  for (const to of Object.keys(objects).filter((version) => version !== from)) {
    test(\`\${from} -> \${to} -> \${from} is exact, and valid in \${to}\`, () => {
      fc.assert(
        fc.property(generator, (object) => {
          const there = tester.convert(object, \`\${group}/\${to}\`);
          assert.equal(there.apiVersion, \`\${group}/\${to}\`);
          const checked = tester.check(there);
          assert.equal(checked.allowed, true, checked.message);
          assert.deepEqual(tester.convert(there, \`\${group}/\${from}\`), object);
        }),
        { numRuns: 1000 },
      );
    });
  }
}
`;
}
