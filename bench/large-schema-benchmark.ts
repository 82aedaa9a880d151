import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { deploymentMemoryLimitMiB, deploymentNodeOptions } from './deployment-resources.ts';
import { textTable } from './report/text-table.ts';
import { percentile } from './support/percentile.ts';
import type { BenchSchemaName, SchemaLayoutName, SchemaValidationFigures } from './schema-validation-child.ts';

// `npm run bench -- --large-schema`: what a very large schema costs (large-schema.fixture.ts, the size of the
// Prometheus Operator's Prometheus CRD) and GeoDatabase's, each run as crdgate ran validators before (`whole`: one
// function per schema, optimised by Maglev) and as `crdgate serve` runs them now (`served`: in parts, kept from
// Maglev); and a pattern-heavy schema (pattern-schema.ts) with its patterns compiled as Go's regexp, as crdgate
// serves it (`served`), against ECMAScript's RegExp, as crdgate did before (`regexp`). Each figure is one process of
// its own (schema-validation-child.ts) with the Deployment's NODE_OPTIONS; rounds alternate the layouts, medians are
// kept, and each layout is compared with its schema's first (the baseline): ratios within one run.

export interface LargeSchemaPlan {
  rounds: number;
  /** Validations before and during the timed window, per schema: enough for V8 to optimise the validator. */
  counts: Record<BenchSchemaName, { warmup: number; measure: number }>;
}

export interface LargeSchemaRow {
  schema: BenchSchemaName;
  layout: SchemaLayoutName;
  runs: SchemaValidationFigures[];
  medianPerCpuSecond: number;
  medianPeakRssMiB: number;
  medianCompileCpuMs: number;
  /** medianPerCpuSecond over that of the schema's first layout (its baseline). */
  throughputVsBaseline: number;
}

export interface LargeSchemaResult {
  nodeOptions: string;
  memoryLimitMiB: number;
  rows: LargeSchemaRow[];
}

/** The layouts measured of each schema, its baseline first. */
const layoutsBySchema: Record<BenchSchemaName, SchemaLayoutName[]> = {
  large: ['whole', 'served'],
  geodatabase: ['whole', 'served', 'regexp'],
  patterns: ['regexp', 'served'],
};
const childPath = fileURLToPath(new URL('./schema-validation-child.ts', import.meta.url));
const run = promisify(execFile);

export async function runLargeSchemaBenchmark(
  plan: LargeSchemaPlan,
  progress: (line: string) => void,
): Promise<LargeSchemaResult> {
  const nodeOptions = deploymentNodeOptions();
  const figures = new Map<string, SchemaValidationFigures[]>();
  for (let round = 1; round <= plan.rounds; round++) {
    for (const [schema, layouts] of Object.entries(layoutsBySchema) as [BenchSchemaName, SchemaLayoutName[]][]) {
      for (const layout of layouts) {
        progress(`round ${round}/${plan.rounds}: ${schema}, ${layout}`);
        const { warmup, measure } = plan.counts[schema];
        const { stdout } = await run(process.execPath, [childPath, schema, layout, String(warmup), String(measure)], {
          env: { ...process.env, NODE_OPTIONS: nodeOptions },
          timeout: 300_000,
        });
        const key = `${schema}/${layout}`;
        figures.set(key, [...(figures.get(key) ?? []), JSON.parse(stdout) as SchemaValidationFigures]);
      }
    }
  }
  const median = (values: number[]): number =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  const rows: LargeSchemaRow[] = [];
  for (const [schema, layouts] of Object.entries(layoutsBySchema) as [BenchSchemaName, SchemaLayoutName[]][]) {
    const baselineRate = median(
      figures.get(`${schema}/${layouts[0]!}`)!.map((figure) => figure.validationsPerCpuSecond),
    );
    for (const layout of layouts) {
      const runs = figures.get(`${schema}/${layout}`)!;
      const medianPerCpuSecond = median(runs.map((figure) => figure.validationsPerCpuSecond));
      rows.push({
        schema,
        layout,
        runs,
        medianPerCpuSecond,
        medianPeakRssMiB: median(runs.map((figure) => figure.peakRssMiB)),
        medianCompileCpuMs: median(runs.map((figure) => figure.compileCpuMs)),
        throughputVsBaseline: medianPerCpuSecond / baselineRate,
      });
    }
  }
  return { nodeOptions, memoryLimitMiB: deploymentMemoryLimitMiB(), rows };
}

export function renderLargeSchemaReport(result: LargeSchemaResult): string {
  const rounds = result.rows[0]?.runs.length ?? 0;
  return [
    `Schema validation in a process of its own, NODE_OPTIONS=${result.nodeOptions} (median of ${rounds} rounds, alternated)`,
    textTable(
      [
        'schema',
        'layout',
        'compile CPU ms',
        'validations/CPU-s',
        'vs baseline',
        'peak RSS MiB',
        `vs limit ${result.memoryLimitMiB} MiB`,
        'peak RSS per round',
      ],
      result.rows.map((row) => [
        row.schema,
        row.layout,
        row.medianCompileCpuMs.toFixed(0),
        row.medianPerCpuSecond.toFixed(0),
        `${row.throughputVsBaseline.toFixed(2)}x`,
        row.medianPeakRssMiB.toFixed(0),
        `${(row.medianPeakRssMiB / result.memoryLimitMiB).toFixed(2)}x`,
        row.runs.map((figure) => figure.peakRssMiB.toFixed(0)).join(', '),
      ]),
    ),
    '',
  ].join('\n');
}
