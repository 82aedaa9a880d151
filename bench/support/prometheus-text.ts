/** One sample of the Prometheus text exposition format, as kube-apiserver's /metrics serves it. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const labelPair = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(?:,|$)/y;

/** Every sample line; comments (# HELP, # TYPE) and blank lines are skipped. A line it cannot read is an error, not a zero. */
export function parsePrometheusText(text: string): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = sampleLine.exec(line);
    if (!match) throw new Error(`not a Prometheus sample line: ${line}`);
    const [, name, labelText, valueText] = match;
    samples.push({
      name: name!,
      labels: parseLabels(labelText ?? '', line),
      value: parseSampleValue(valueText!, line),
    });
  }
  return samples;
}

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  labelPair.lastIndex = 0;
  while (labelPair.lastIndex < text.length) {
    const start = labelPair.lastIndex;
    const match = labelPair.exec(text);
    if (!match) throw new Error(`unreadable labels at "${text.slice(start)}" in: ${line}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_escape, char: string) => (char === 'n' ? '\n' : char));
  }
  return labels;
}

function parseSampleValue(text: string, line: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  // prom-client writes "Nan" (a gauge before its first sample); Prometheus reads floats without regard to case.
  if (/^nan$/i.test(text)) return Number.NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`unreadable sample value "${text}" in: ${line}`);
  return value;
}

/**
 * The sum of the samples named `name` whose labels include `labels` (a label the sample lacks counts as ""), e.g.
 * a histogram's _sum or _count over the label values left unnamed. 0 when none matches: a counter not yet
 * incremented is not exported at all.
 */
export function sumSamples(
  samples: readonly MetricSample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  let sum = 0;
  for (const sample of samples) {
    if (sample.name !== name) continue;
    if (Object.entries(labels).every(([key, value]) => (sample.labels[key] ?? '') === value)) sum += sample.value;
  }
  return sum;
}
