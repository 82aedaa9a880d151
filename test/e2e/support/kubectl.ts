import { execFile } from 'node:child_process';
import type { ProvidedControlPlane } from '../provided-context.ts';

export interface KubectlResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the control plane's kubectl as the admin user. A failing command resolves too: tests assert its output. */
export function kubectl(controlPlane: ProvidedControlPlane, args: string[]): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    execFile(controlPlane.kubectlPath, ['--kubeconfig', controlPlane.kubeconfigPath, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ exitCode: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

/** The `Warning: ...` lines the API server sent back, as kubectl prints them. */
export function warningLines(result: KubectlResult): string[] {
  return result.stderr.split('\n').filter((line) => line.startsWith('Warning: '));
}
