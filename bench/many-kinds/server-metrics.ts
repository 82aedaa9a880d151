import { get } from 'node:https';
import { parsePrometheusText, sumSamples, type MetricSample } from '../support/prometheus-text.ts';

// What a --many-kinds server says of itself on /metrics: whether its followers of the owners' CRDs have read them,
// and how many versions' schemas it compiled into validators (what the RSS after the load is made of).

const requestTimeoutMs = 10_000;
const pollEveryMs = 100;

export function scrapeMetrics(port: number, ca: Buffer): Promise<MetricSample[]> {
  return new Promise((resolve, reject) => {
    const req = get({ host: '127.0.0.1', port, path: '/metrics', ca, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        if (res.statusCode !== 200) reject(new Error(`GET /metrics: HTTP ${res.statusCode}`));
        else {
          try {
            resolve(parsePrometheusText(Buffer.concat(chunks).toString('utf8')));
          } catch (error) {
            reject(error as Error);
          }
        }
      });
      res.on('error', reject);
    });
    req.setTimeout(requestTimeoutMs, () =>
      req.destroy(new Error(`no answer to GET /metrics within ${requestTimeoutMs} ms`)),
    );
    req.on('error', reject);
  });
}

/** Versions of every contract whose schema is compiled into a validator (crdgate_schema_validators_compiled). */
export function validatorsCompiled(samples: readonly MetricSample[]): number {
  return sumSamples(samples, 'crdgate_schema_validators_compiled');
}

export interface OwnerCrdsRead {
  /** Versions of the CRDs whose live schema differs from the contract's copy: the webhook validates those itself. */
  driftedVersions: number;
  /** Versions in step: the API server's to validate. */
  inStepVersions: number;
}

/**
 * Polls /metrics until the follower of each CRD named is following it (crdgate_owner_crd_watch_up 1) and has
 * compared it with the contract's copy (crdgate_owner_crd_drift set for its versions: the tracker sets it when it
 * reads the CRD, and only then hands the versions in step to the API server). A CRD the API server does not have
 * never gets that series: the deadline says which were not read.
 */
export async function untilOwnerCrdsRead(
  port: number,
  ca: Buffer,
  crds: readonly string[],
  withinMs: number,
): Promise<OwnerCrdsRead> {
  const deadline = performance.now() + withinMs;
  let unread: string[] = [...crds];
  for (;;) {
    const samples = await scrapeMetrics(port, ca);
    const compared = new Set(
      samples.filter((sample) => sample.name === 'crdgate_owner_crd_drift').map((sample) => sample.labels['crd']),
    );
    unread = crds.filter(
      (crd) => !compared.has(crd) || sumSamples(samples, 'crdgate_owner_crd_watch_up', { crd }) !== 1,
    );
    if (unread.length === 0) {
      const drift = samples.filter((sample) => sample.name === 'crdgate_owner_crd_drift');
      return {
        driftedVersions: drift.filter((sample) => sample.value === 1).length,
        inStepVersions: drift.filter((sample) => sample.value === 0).length,
      };
    }
    if (performance.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, pollEveryMs));
  }
  throw new Error(
    `the followers of the owners' CRDs had not read ${unread.length} of ${crds.length} within ${withinMs / 1000} s: ${unread.join(', ')}`,
  );
}
