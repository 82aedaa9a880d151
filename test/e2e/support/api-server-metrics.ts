import { execFile } from 'node:child_process';
import { parsePrometheusText, sumSamples } from '../../../bench/support/prometheus-text.ts';
import type { ProvidedControlPlane } from '../provided-context.ts';

/**
 * One scrape of kube-apiserver's own /metrics, as an operator would read it: `kubectl get --raw /metrics`. Several
 * megabytes, more than execFile buffers by default.
 */
export function scrapeApiServer(controlPlane: ProvidedControlPlane): Promise<string> {
  const args = ['--kubeconfig', controlPlane.kubeconfigPath, 'get', '--raw', '/metrics'];
  return new Promise((resolve, reject) => {
    execFile(
      controlPlane.kubectlPath,
      args,
      { timeout: 60_000, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`kubectl get --raw /metrics failed: ${error.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/**
 * The sum of a metric's samples whose labels include `labels`, from a scrape in the text exposition format; 0 when
 * there are none (a labelled counter has no sample until its first increment). The bench reads /metrics with the
 * same parser.
 */
export function metricSum(exposition: string, name: string, labels: Record<string, string> = {}): number {
  return sumSamples(parsePrometheusText(exposition), name, labels);
}
