import { execFile } from 'node:child_process';
import type { ProvidedControlPlane } from '../provided-context.ts';

/**
 * One scrape of kube-apiserver's own /metrics, as an operator would read it: `kubectl get --raw /metrics`. Several
 * megabytes, more than execFile buffers by default.
 */
export function scrapeApiServer(controlPlane: ProvidedControlPlane): Promise<string> {
  const args = ['--kubeconfig', controlPlane.kubeconfigPath, 'get', '--raw', '/metrics'];
  return new Promise((resolve, reject) => {
    execFile(controlPlane.kubectlPath, args, { timeout: 60_000, maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`kubectl get --raw /metrics failed: ${error.message}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/**
 * The sum of a metric's samples whose labels include `labels`, from a scrape in the text exposition format; 0 when
 * there are none (a labelled counter has no sample until its first increment).
 */
export function metricSum(exposition: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [, sampleName, labelText = '', value] of exposition.matchAll(/^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)$/gm)) {
    if (sampleName !== name) continue;
    const sampleLabels = new Map([...labelText.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map(([, key, text]) => [key, text]));
    if (Object.entries(labels).every(([key, wanted]) => sampleLabels.get(key) === wanted)) sum += Number(value);
  }
  return sum;
}
