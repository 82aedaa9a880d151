import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { CommandError } from '../errors.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { checkContractRules, registryOfExports } from './contracts.ts';

// Through crdgate's own process: vitest's module loader transforms what it imports, so the errors a module load
// gives in it are not Node's.
const bin = fileURLToPath(new URL('../bin.ts', import.meta.url));

describe('a --contract module that does not load', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crdgate-contract-module-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  async function failureOf(source: string): Promise<{ message: string }> {
    await writeFile(join(dir, 'contract.ts'), source);
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(process.execPath, [bin, 'fsa', '--contract', './contract.ts'], { cwd: dir }, (error, _stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stderr }),
      ),
    );
    expect(code).toBe(2);
    return { message: stderr };
  }

  it('names the file and line of a syntax error, which the message alone does not', async () => {
    const error = await failureOf('export default 1;\n}}}\n');
    expect(error.message).toContain(`${join(dir, 'contract.ts')}:2: `);
  });

  it('names where an error thrown while the module runs came from', async () => {
    const error = await failureOf('const x: any = undefined;\nx.boom();\nexport default 1;\n');
    expect(error.message).toContain(`(at file://${join(dir, 'contract.ts')}:2:`);
  });
});

// Issue 40: a contract module whose contract is wrong stopped `crdgate` with a TypeError and its stack (exit 1).
describe('a --contract module whose contract is wrong', () => {
  const index = fileURLToPath(new URL('../index.ts', import.meta.url));
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crdgate-contract-wrong-'));
    await writeFile(
      join(dir, 'bucket.yaml'),
      'apiVersion: storage.example.com/v1\nkind: Bucket\nmetadata: { name: b }\nspec: {}\n',
    );
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  // A bucket whose machine reads its state with readState; `machine` replaces its options.
  const moduleSource = (machine: string, exported = 'contract') => `
import { defineContract } from ${JSON.stringify(index)};
const machine = {
  name: 'Bucket', subject: 'bucket', states: ['Pending', 'Ready', 'Deleting'], initialState: 'Pending', deletingState: 'Deleting',
  terminalStates: ['Deleting'], humanInterventionStates: [], readState: (object) => object.status?.ready ? 'Ready' : undefined,
  changeKinds: { resize: { description: 'resizing from {from} to {to}' } },
  rules: { Pending: { anyChange: true, operatorMoves: ['Ready'] }, Ready: { allow: [{ changes: ['resize'] }], operatorMoves: ['Pending'] }, Deleting: {} },
  overrideAnnotation: 'storage.example.com/override-transitions',
  classifiers: [{ kinds: ['resize'], classify: () => [] }],
  ${machine}
};
const definition = {
  identity: { group: 'storage.example.com', kind: 'Bucket', plural: 'buckets', singular: 'bucket', scope: 'Namespaced' },
  versions: [{ name: 'v1', served: true, storage: true, schema: { type: 'object', properties: { spec: { type: 'object' } } } }],
  hub: 'v1',
  conversions: {},
  transitions: machine,
};
const contract = () => defineContract(definition);
export default ${exported};
`;

  async function run(source: string, ...command: string[]): Promise<{ code: number; stderr: string }> {
    await writeFile(join(dir, 'contract.ts'), source);
    return new Promise((resolve) =>
      execFile(
        process.execPath,
        [bin, ...command, '--contract', './contract.ts'],
        { cwd: dir },
        (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
      ),
    );
  }

  it.each([
    [
      'fsa',
      'humanInterventionStates: undefined,',
      ['fsa'],
      'transitions.humanInterventionStates must be a list of state names, got undefined',
    ],
    [
      'check',
      'readState: undefined,',
      ['check', '-f', 'bucket.yaml'],
      'transitions.phasePath must be a field path such as status.phase (or read the state with conditionStates or readState), got undefined',
    ],
    [
      'manifests',
      "phasePath: 'status.phase',",
      ['manifests', '--image', 'buckets:1'],
      'transitions: phasePath and readState both read the state: give one',
    ],
  ])(
    '`crdgate %s` says what is wrong in one line, naming the option, and exits 2',
    async (_name, machine, command, named) => {
      const { code, stderr } = await run(moduleSource(machine), ...command);
      expect(code).toBe(2);
      expect(stderr).toBe(
        `crdgate ${command[0]}: --contract ./contract.ts: contract buckets.storage.example.com is invalid: ${named}\n`,
      );
    },
  );

  it('holds a plain object exported in place of a contract to the same rules', async () => {
    const plain = "{ ...definition, identity: { ...definition.identity, plural: 7 }, storageVersion: 'v1' }";
    const { code, stderr } = await run(moduleSource('', plain), 'fsa');
    expect(code).toBe(2);
    expect(stderr).toBe(
      'crdgate fsa: --contract ./contract.ts: the contract is invalid: identity.plural must be a lowercase resource name, got 7\n',
    );
  });

  it('names the module when its default export fails with an error of its own', async () => {
    const { code, stderr } = await run(
      moduleSource('', "() => { throw new TypeError('no bucket today'); }"),
      'manifests',
      '--image',
      'buckets:1',
    );
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^crdgate manifests: --contract \.\/contract\.ts: the default export failed: no bucket today \(at file:\/\/.*contract\.ts:\d+:\d+\)\n$/,
    );
  });

  it('loads a machine that reads its state with readState and has no phasePath', async () => {
    const { code, stderr } = await run(moduleSource(''), 'fsa');
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('a contract whose CRD kube-apiserver would refuse', () => {
  it('is CONTRACT_INVALID in one line, though a CEL compile error quotes the expression with a caret under the fault', () => {
    const contract = geoDatabaseContract();
    // A messageExpression that is prose, not CEL.
    const prose = (schema: unknown) =>
      JSON.parse(
        JSON.stringify(schema).replace(
          /"messageExpression":"[^"]*"/,
          '"messageExpression":"PostgreSQL MAJOR.MINOR; majors 13 to 17 are supported."',
        ),
      );
    const registry = registryOfExports([
      {
        module: './contract.ts',
        exported: { ...contract, versions: contract.versions.map((v) => ({ ...v, schema: prose(v.schema) })) },
      },
    ]);
    let refusal: unknown;
    try {
      checkContractRules(registry);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(CommandError);
    expect((refusal as CommandError).code).toBe('CONTRACT_INVALID');
    expect((refusal as Error).message).toMatch(
      /messageExpression compilation failed: ERROR: <input>:1:\d+: Syntax error/,
    );
    expect((refusal as Error).message).not.toContain('\n');
  });
});
