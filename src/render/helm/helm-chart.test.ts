import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { geoDatabaseContract } from '../../contracts/geodatabase/index.ts';
import { manifestDefaults } from '../manifest-options.ts';
import type { GeneratedFile } from '../manifest.ts';
import { imageParts, renderHelmChart } from './helm-chart.ts';

const chart = renderHelmChart([geoDatabaseContract()], manifestDefaults, { version: '0.1.0' });
const text = (files: GeneratedFile[], path: string): string => {
  const file = files.find((each) => each.path === path);
  if (file === undefined) throw new Error(`no ${path}`);
  return 'text' in file ? file.text : 'json' in file ? JSON.stringify(file.json) : '';
};

describe('imageParts', () => {
  it.each([
    ['crdgate:0.1.0', { repository: 'crdgate', tag: '0.1.0', digest: '' }],
    ['registry.example:5000/team/crdgate', { repository: 'registry.example:5000/team/crdgate', tag: '', digest: '' }],
    [
      'registry.example:5000/team/crdgate:1.2',
      { repository: 'registry.example:5000/team/crdgate', tag: '1.2', digest: '' },
    ],
    [
      `ghcr.example/crdgate@sha256:${'b'.repeat(64)}`,
      { repository: 'ghcr.example/crdgate', tag: '', digest: `sha256:${'b'.repeat(64)}` },
    ],
  ])('splits %s into repository, tag and digest', (image, parts) => {
    expect(imageParts(image)).toEqual(parts);
  });
});

describe('the chart values', () => {
  const valuesText = text(chart, 'values.yaml');
  const schema = JSON.parse(text(chart, 'values.schema.json')) as Record<string, unknown>;

  it('comments every key of values.yaml', () => {
    const lines = valuesText.split('\n');
    const uncommented = lines.flatMap((line, index) => {
      const key = /^(\s*)([A-Za-z][\w]*):/.exec(line);
      // A key inside a default value (resources.limits, say) belongs to that value, which carries the comment.
      if (key === null || !schemaHasPath(schema, keyPath(lines, index))) return [];
      return lines[index - 1]?.trim().startsWith('#') ? [] : [keyPath(lines, index).join('.')];
    });
    expect(uncommented).toEqual([]);
    expect(lines.filter((line) => /^\s*#/.test(line)).length).toBeGreaterThan(30);
  });

  it('has a schema for exactly the keys of values.yaml, which its defaults meet', () => {
    const values = parse(valuesText) as Record<string, unknown>;
    const properties = (node: Record<string, unknown>): string[] =>
      Object.keys((node['properties'] as Record<string, unknown>) ?? {});
    expect(properties(schema).sort()).toEqual(Object.keys(values).sort());
    for (const group of [
      'image',
      'webhooks',
      'certificates',
      'crds',
      'migration',
      'policyFloor',
      'podDisruptionBudget',
    ]) {
      const groupSchema = (schema['properties'] as Record<string, Record<string, unknown>>)[group]!;
      expect(properties(groupSchema).sort(), group).toEqual(Object.keys(values[group] as object).sort());
    }
    const { $schema: _, ...body } = schema;
    const validate = new Ajv({ strict: false }).compile(body);
    expect(validate(values), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('the templates', () => {
  it('leave no placeholder and no namespace of their own: every object goes to the release namespace', () => {
    const templates = chart.filter((file) => file.path.startsWith('templates/') && file.path.endsWith('.yaml'));
    expect(templates.length).toBeGreaterThan(5);
    for (const file of templates) {
      const body = text(chart, file.path);
      expect(body, file.path).not.toMatch(/crdgateSlot|crdgate-chart-release-namespace|crdgate-system/);
    }
    expect(text(chart, 'templates/server.yaml')).toContain('namespace: {{ .Release.Namespace }}');
  });

  it('gives a migration Job run with --dry-run the memory of the API server engine it loads to judge the objects', () => {
    const job = text(chart, 'templates/migration.yaml');
    const dryRun =
      /\{\{- if \.Values\.migration\.dryRun \}\}\n {10}resources:\n([\s\S]*?) {10}\{\{- else \}\}\n {10}resources:\n([\s\S]*?) {10}\{\{- end \}\}/.exec(
        job,
      );
    expect(dryRun, job).not.toBeNull();
    expect(parse(dryRun![1]!.replace(/^ {12}/gm, ''))).toEqual({
      limits: { memory: '536Mi' },
      requests: { cpu: '100m', memory: '408Mi' },
    });
    expect(parse(dryRun![2]!.replace(/^ {12}/gm, ''))).toEqual({
      limits: { memory: '256Mi' },
      requests: { cpu: '100m', memory: '128Mi' },
    });
  });

  it('never generates a certificate nor looks anything up in the cluster', () => {
    const actions = chart.flatMap((file) => text(chart, file.path).match(/\{\{[^}]*\}\}/g) ?? []);
    expect(actions.length).toBeGreaterThan(20);
    expect(
      actions.filter((action) =>
        /\b(genCA|genSignedCert|genSelfSignedCert|genPrivateKey|lookup|randAlphaNum|randAlpha|uuidv4|now)\b/.test(
          action,
        ),
      ),
    ).toEqual([]);
  });
});

function keyPath(lines: string[], index: number): string[] {
  const path: string[] = [];
  let indent = Infinity;
  for (let i = index; i >= 0; i--) {
    const match = /^(\s*)([A-Za-z][\w]*):/.exec(lines[i]!);
    if (match === null || match[1]!.length >= indent) continue;
    path.unshift(match[2]!);
    indent = match[1]!.length;
    if (indent === 0) break;
  }
  return path;
}

function schemaHasPath(schema: Record<string, unknown>, path: string[]): boolean {
  let node: Record<string, unknown> | undefined = schema;
  for (const key of path) node = (node?.['properties'] as Record<string, Record<string, unknown>> | undefined)?.[key];
  return node !== undefined;
}
