import fc from 'fast-check';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { scalableGeoDatabaseContract } from '../../src/admission/scalable-geodatabase.fixture.ts';
import type { Contract } from '../../src/contract/contract-definition.ts';
import { parseFieldPath, valueAtSegments } from '../../src/contract/values/field-path.ts';
import type { ClassifierForm, ValueReading } from '../../src/contract/fsa/classifier-form.ts';
import { schemaAtPath } from '../../src/contract/fsa/classifier-reach.ts';
import type { Classifier } from '../../src/contract/fsa/machine.ts';
import { nodePoolContract } from '../../src/contract/fsa/node-pool.fixture.ts';
import {
  isCannotRead,
  readInteger,
  readQuantity,
  readRelease,
  readString,
} from '../../src/contract/fsa/value-readers.ts';
import { jsonEqual } from '../../src/contract/values/json-equal.ts';
import { compareQuantities, type Quantity } from '../../src/contract/values/quantity.ts';
import { compareVersions } from '../../src/contract/values/release-version.ts';
import type { JSONSchemaProps } from '../../src/contract/schema/json-schema-props.ts';
import { schemaValues } from '../../src/contract/schema/schema-values.fixture.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { messageBrokerContract } from '../../src/policy/message-broker.fixture.ts';
import {
  dbClusterContract,
  dbClusterTwoVersionContract,
  dbPoolerContract,
} from '../e2e/support/db-operator-contracts.ts';
import { guideExamples, guideUrl, guideYamlFiles, importingSource, publicModules } from './guide-examples.ts';

// Issue 40: a classifier blind to its field (a list keyed by an integer, a quantity written as an integer) reported
// no change for any update, and every change there went through. For every classifier of the built-in contract, the
// test fixtures and the guides' examples, generated pairs of schema-valid values at its path (the hub schema there):
// whenever the classifier's own reading tells the two apart (different integers, strings, quantities or releases;
// one absent, the other not; a value the reader cannot read; lists whose keys or items differ so), it reports a
// change. A classifier with a reader or comparison of its own cannot be held to a reading here and is listed apart;
// so is a field below x-kubernetes-preserve-unknown-fields, which may hold anything.

const runs = Number(process.env['CRDGATE_FUZZ_RUNS'] ?? 150);

/** Every contract the guides' examples define, through a crdgate whose defineContract keeps what it returns. */
async function guideContracts(dir: string): Promise<[string, Contract][]> {
  const recorder = join(dir, 'crdgate-recorder.ts');
  await writeFile(
    recorder,
    [
      `import { defineContract as define } from '${publicModules.crdgate}';`,
      `export * from '${publicModules.crdgate}';`,
      'export const defined: unknown[] = [];',
      'export const defineContract: typeof define = (definition) => { const contract = define(definition); defined.push(contract); return contract; };',
      '',
    ].join('\n'),
  );
  const { defined } = (await import(recorder)) as { defined: Contract[] };
  const modules = { ...publicModules, crdgate: pathToFileURL(recorder).href };
  const found: [string, Contract][] = [];
  for (const [index, guide] of [guideUrl, new URL('../../docs/guarding-an-operator.md', import.meta.url)].entries()) {
    const project = join(dir, `guide-${index}`);
    const examples = await guideExamples(guide);
    for (const { file, code } of [
      ...(await guideYamlFiles(guide)),
      ...examples.map((example) => ({ ...example, code: importingSource(example.code, modules) })),
    ]) {
      await mkdir(dirname(join(project, file)), { recursive: true });
      await writeFile(join(project, file), code);
    }
    const before = defined.length;
    for (const { file } of examples) await import(join(project, file));
    found.push(
      ...defined
        .slice(before)
        .map((contract): [string, Contract] => [`docs/${guide.pathname.split('/').at(-1)}`, contract]),
    );
  }
  return found;
}

const dir = await mkdtemp(join(tmpdir(), 'crdgate-classifier-reach-'));
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Each contract, with where it comes from. */
const contracts: [string, Contract][] = [
  ['built-in', geoDatabaseContract()],
  ['scalable-geodatabase.fixture', scalableGeoDatabaseContract()],
  ['message-broker.fixture', messageBrokerContract()],
  ['db-operator-contracts', dbClusterContract()],
  ['db-operator-contracts', dbPoolerContract()],
  ['db-operator-contracts (two versions)', dbClusterTwoVersionContract()],
  ['node-pool.fixture', nodePoolContract()],
  ...(await guideContracts(dir)),
];

interface Site {
  name: string;
  classifier: Classifier<string>;
  form: ClassifierForm<string>;
  /** The hub schema at the classifier's path. */
  schema: JSONSchemaProps;
  /** Whether the field may be absent from a valid spec: not required at some step, and not defaulted. */
  mayBeAbsent: boolean;
}

const sites: Site[] = [];
const unchecked: string[] = [];
for (const [source, contract] of contracts) {
  const hub = contract.versions.find((version) => version.name === contract.hub)!.schema;
  for (const classifier of contract.transitions?.classifiers ?? []) {
    const path = classifier.target?.path ?? '(no target)';
    const name = `${source}: ${contract.identity.kind} spec.${path}`;
    const segments = ['spec', ...parseFieldPath(path)];
    const reach = schemaAtPath(hub, segments, '');
    if (classifier.form === undefined) unchecked.push(`${name}: a reader or comparison of its own`);
    else if (!('schema' in reach))
      unchecked.push(`${name}: ${'anything' in reach ? 'may hold anything' : reach.missing}`);
    else
      sites.push({
        name,
        classifier,
        form: classifier.form,
        schema: reach.schema,
        mayBeAbsent: mayBeAbsent(hub, segments),
      });
  }
}

function mayBeAbsent(schema: JSONSchemaProps, segments: readonly (string | number)[]): boolean {
  let node: JSONSchemaProps | undefined = schema;
  for (const segment of segments) {
    const child: JSONSchemaProps | undefined = node?.properties?.[segment as string];
    if (child === undefined) return true;
    if (!(node!.required ?? []).includes(segment as string) && child.default === undefined) return true;
    node = child;
  }
  return false;
}

/** A side of a pair with no value at the path. */
const absent = Symbol('absent');

function specWith(path: readonly (string | number)[], value: unknown): unknown {
  if (value === absent) return {};
  return path.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), value);
}

const readers: Record<ValueReading, (raw: unknown) => unknown> = {
  integer: readInteger,
  string: readString,
  quantity: readQuantity,
  release: readRelease,
};

function sameReading(reading: ValueReading, a: unknown, b: unknown): boolean {
  if (reading === 'quantity') return compareQuantities(a as Quantity, b as Quantity) === 0;
  if (reading === 'release') return compareVersions(a as number[], b as number[]) === 0;
  return a === b;
}

/** Whether the classifier's reading tells `a` from `b` (raw values at its path, or `absent`), so a change is due. */
function toldApart(form: ClassifierForm<string>, a: unknown, b: unknown): boolean {
  const resolve = (raw: unknown) =>
    raw === absent || raw === null || raw === undefined ? (form.absentMeans ?? absent) : raw;
  const [x, y] = [resolve(a), resolve(b)];
  if (x === y || (x !== absent && y !== absent && jsonEqual(x, y))) return false;
  if (form.classify === 'keyed-list') return listsApart(form, x, y);
  if (x === absent || y === absent || isCannotRead(x) || isCannotRead(y)) return true;
  const [rx, ry] = [readers[form.reading](x), readers[form.reading](y)];
  if (rx === undefined || ry === undefined)
    throw new Error(`the reader leaves the valid value ${JSON.stringify(rx === undefined ? x : y)} unread`);
  return isCannotRead(rx) || isCannotRead(ry) || !sameReading(form.reading, rx, ry);
}

function listsApart(
  form: Extract<ClassifierForm<string>, { classify: 'keyed-list' }>,
  x: unknown,
  y: unknown,
): boolean {
  if (x === absent || y === absent) return ((x === absent ? y : x) as unknown[]).length > 0;
  const [before, after] = [byKey(form.keys, x as unknown[]), byKey(form.keys, y as unknown[])];
  if (before === undefined || after === undefined) return true; // items it cannot tell apart, in lists that differ
  if (before.size !== after.size || [...before.keys()].some((key) => !after.has(key))) return true;
  return [...before].some(([key, item]) =>
    form.items.some(({ form: itemForm }) => {
      if (itemForm === undefined) return false;
      const segments = parseFieldPath(itemForm.path);
      const at = (value: unknown) => valueAtSegments(value, segments) ?? absent;
      return toldApart(itemForm, at(item), at(after.get(key)));
    }),
  );
}

/** Items by the JSON of their keys; undefined when two share them or a key is an integer past 2^53. */
function byKey(keys: readonly string[], list: unknown[]): Map<string, unknown> | undefined {
  const items = new Map<string, unknown>();
  for (const item of list) {
    const values = keys.map((key) => (item as Record<string, unknown>)[key] ?? null);
    const id = JSON.stringify(values);
    if (items.has(id) || values.some((value) => Number.isInteger(value) && !Number.isSafeInteger(value)))
      return undefined;
    items.set(id, item);
  }
  return items;
}

describe('every classifier of the built-in contract, the fixtures and the guides sees schema-valid changes at its path', () => {
  it('finds classifiers everywhere it looks, and lists those it cannot hold to a reading', () => {
    expect(new Set(contracts.map(([source]) => source)).size).toBe(8);
    expect(sites.length).toBeGreaterThanOrEqual(30);
    expect(sites.filter((site) => site.form.classify === 'keyed-list').map((site) => site.name)).toEqual(
      expect.arrayContaining([
        'built-in: GeoDatabase spec.caches',
        'node-pool.fixture: NodePool spec.storage.volumes',
        'node-pool.fixture: NodePool spec.listeners',
      ]),
    );
    // Readers and comparisons of the guides' and fixtures' own (image tags, a comparison of one's own): code, read as
    // their authors wrote it. Every other classifier is held to its reading.
    expect(
      unchecked.every((entry) => entry.endsWith(': a reader or comparison of its own')),
      unchecked.join('\n'),
    ).toBe(true);
    expect(unchecked.length).toBeLessThanOrEqual(sites.length / 4);
  });

  it.each(sites.map((site) => [site.name, site] as const))('%s', (_name, site) => {
    const segments = parseFieldPath(site.form.path);
    const values = schemaValues(site.schema);
    const side = site.mayBeAbsent
      ? fc.oneof({ weight: 1, arbitrary: fc.constant<unknown>(absent) }, { weight: 4, arbitrary: values })
      : values;
    fc.assert(
      fc.property(side, side, (a, b) => {
        const changes = site.classifier.classify(specWith(segments, a), specWith(segments, b), { field: 'spec' });
        return !toldApart(site.form, a, b) || changes.length > 0;
      }),
      { numRuns: runs },
    );
  });
});
