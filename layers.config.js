// The layers of src/, lowest first: each folder (a subfolder is a folder of its own; each file of src/ itself stands
// alone) with what it may import besides its own files. docs/development.md#layers says why; eslint.config.js turns
// every entry into a rule on the folder's files, so that an import up the layers fails `npm run lint`;
// test/repo/layering.test.ts holds the whole graph (dynamic imports too) to this list and to no loop, and
// `npm run --silent layers` prints the graph.
//
// contract/ is several layers: values/ (the words every layer uses: objects, field paths and errors, quantities) at
// the bottom; schema/ and fsa/ on it; defaults/ and the FSA's evaluate/ above; the root (the contract's types,
// defineContract, the registry) on top of them all.
export const layers = [
  ['errors.ts', []],
  ['log.ts', []],
  ['config.ts', []],
  ['abort', []],
  ['contract/values', []],
  ['contract/schema/structural', ['contract/values']],
  ['contract/schema', ['contract/values', 'contract/schema/structural']],
  ['contract/defaults', ['contract/values', 'contract/schema']],
  ['contract/fsa', ['contract/values', 'contract/schema']],
  ['contract/fsa/evaluate', ['contract/values', 'contract/fsa']],
  ['contract/fsa/render', ['contract/fsa']],
  [
    'contract',
    ['errors.ts', 'contract/values', 'contract/schema', 'contract/defaults', 'contract/fsa', 'contract/fsa/evaluate'],
  ],
  ['protocol', ['contract/values']],
  ['conversion', ['errors.ts', 'contract/values', 'contract', 'protocol']],
  ['kube', ['log.ts', 'abort', 'contract/values']],
  [
    'admission',
    [
      'errors.ts',
      'contract/values',
      'contract/schema',
      'contract/defaults',
      'contract/fsa',
      'contract/fsa/evaluate',
      'contract',
      'protocol',
      'conversion',
      'kube',
    ],
  ],
  ['migrate', ['errors.ts', 'abort', 'contract/values', 'kube']],
  [
    'policy',
    ['contract/values', 'contract/schema', 'contract/defaults', 'contract/fsa', 'contract/fsa/evaluate', 'contract'],
  ],
  ['render', ['config.ts', 'contract/values', 'contract/schema', 'contract', 'admission', 'migrate', 'policy']],
  ['render/helm', ['contract', 'render']],
  ['render/olm', ['config.ts', 'contract', 'render']],
  ['certs', ['contract/values']],
  ['certs/self-managed', ['log.ts', 'kube', 'certs']],
  ['control-plane', ['certs']],
  // How the engine runs (a native process, or WebAssembly in Node), below what it is asked.
  ['api-server-engine/backend', []],
  [
    'api-server-engine',
    ['contract/values', 'contract/schema', 'contract', 'render', 'control-plane', 'api-server-engine/backend'],
  ],
  ['crd-revision', ['contract/values']],
  ['crd-revision/schema', ['contract/values', 'crd-revision']],
  ['crd-revision/compare', ['contract/values', 'crd-revision', 'crd-revision/schema']],
  [
    'crd-revision/objects',
    [
      'contract/values',
      'contract',
      'conversion',
      'api-server-engine',
      'crd-revision',
      'crd-revision/schema',
      'crd-revision/compare',
    ],
  ],
  [
    'check',
    [
      'errors.ts',
      'contract/values',
      'contract/fsa',
      'contract/fsa/evaluate',
      'contract',
      'conversion',
      'kube',
      'admission',
      'render',
      'api-server-engine',
      'crd-revision',
      'crd-revision/compare',
      'crd-revision/objects',
    ],
  ],
  [
    'crd-gate',
    [
      'abort',
      'contract/values',
      'contract/fsa/evaluate',
      'kube',
      'admission',
      'crd-revision',
      'crd-revision/compare',
      'crd-revision/objects',
      'check',
    ],
  ],
  [
    'server',
    [
      'errors.ts',
      'log.ts',
      'config.ts',
      'contract/values',
      'contract/schema',
      'contract',
      'conversion',
      'kube',
      'admission',
      'certs',
      'certs/self-managed',
      'crd-revision',
      'crd-gate',
    ],
  ],
  [
    'local-loop',
    ['log.ts', 'config.ts', 'contract/values', 'contract', 'kube', 'render', 'certs', 'control-plane', 'server'],
  ],
  [
    'scaffold',
    ['contract/values', 'contract/schema/structural', 'contract/schema', 'contract', 'conversion', 'render'],
  ],
  ['index.ts', ['contract/values', 'contract/schema', 'contract/defaults', 'contract/fsa', 'contract', 'conversion']],
  ['contracts/geodatabase', ['index.ts']],
  [
    'testing.ts',
    [
      'contract/values',
      'contract/fsa',
      'contract/fsa/evaluate',
      'contract/fsa/render',
      'contract',
      'conversion',
      'admission',
      'api-server-engine',
      'check',
      'local-loop',
    ],
  ],
  [
    'commands',
    [
      'errors.ts',
      'config.ts',
      'contract/values',
      'contract/fsa/render',
      'contract',
      'conversion',
      'kube',
      'migrate',
      'policy',
      'render',
      'render/helm',
      'render/olm',
      'certs',
      'control-plane',
      'api-server-engine',
      'crd-revision',
      'check',
      'local-loop',
      'scaffold',
      'contracts/geodatabase',
    ],
  ],
  [
    'commands/serve',
    [
      'log.ts',
      'config.ts',
      'contract/values',
      'contract',
      'kube',
      'render',
      'certs',
      'certs/self-managed',
      'api-server-engine',
      'crd-gate',
      'server',
      'commands',
    ],
  ],
  ['cli.ts', ['errors.ts', 'commands', 'commands/serve']],
  ['bin.ts', ['cli.ts']],
];

/** The rule id and what a refused import reads, naming the folder's list. */
const message = (place, allowed) =>
  `src/${place} may import only ${allowed.length === 0 ? 'nothing of src/' : allowed.join(', ')} ` +
  '(the layers of docs/development.md#layers, listed in layers.config.js)';

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The path from the folder of `place` to `other` (both under src/), as a relative import starts. */
function relativePath(place, other) {
  const from = place.endsWith('.ts') ? [] : place.split('/');
  const to = other.split('/');
  let shared = 0;
  while (shared < from.length && shared < to.length && from[shared] === to[shared]) shared += 1;
  const up = from.length - shared;
  return [...(up === 0 ? ['.'] : Array(up).fill('..')), ...to.slice(shared)].join('/');
}

/**
 * One config per place: no-restricted-imports refuses an import of any other place of src/ it does not list (a
 * file directly in that folder, or that file of src/ itself), and no-restricted-syntax the same through import().
 * Tests and fixtures may reach up (a test of admission/ runs the built-in example). The built-in example keeps its
 * own stricter rule (only the public API), given in eslint.config.js.
 */
export function layerRules() {
  const places = layers.map(([place]) => place);
  return layers
    .filter(([place]) => place !== 'contracts/geodatabase')
    .map(([place, allowed]) => {
      const refused = places.filter((other) => other !== place && !allowed.includes(other));
      // A folder's own files, not its subfolders' (each has a place of its own); a file of src/ itself, as named.
      const targets = refused.map(
        (other) => escape(relativePath(place, other)) + (other.endsWith('.ts') ? '' : '/[^/]+'),
      );
      const regex = `^(?:${targets.join('|')})$`;
      const refusal = message(place, allowed);
      return {
        files: [place.endsWith('.ts') ? `src/${place}` : `src/${place}/*.ts`],
        ignores: ['**/*.test.ts', '**/*.fixture.ts'],
        rules: {
          'no-restricted-imports': ['error', { patterns: [{ regex, message: refusal }] }],
          // esquery reads a regular expression between slashes: the ones in it are escaped.
          'no-restricted-syntax': [
            'error',
            { selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`, message: refusal },
          ],
        },
      };
    });
}
