import { execFile } from 'node:child_process';
import { eventually } from '../../../src/local-loop/eventually.ts';
import type { ProvidedControlPlane } from '../provided-context.ts';

export interface KubectlResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs the control plane's kubectl as the admin user. A failing command resolves too: tests assert its output. */
export function kubectl(controlPlane: ProvidedControlPlane, args: string[]): Promise<KubectlResult> {
  return new Promise((resolve, reject) => {
    execFile(
      controlPlane.kubectlPath,
      ['--kubeconfig', controlPlane.kubeconfigPath, ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') return reject(error);
        resolve({ exitCode: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

/** The `Warning: ...` lines the API server sent back, as kubectl prints them. */
export function warningLines(result: KubectlResult): string[] {
  return result.stderr.split('\n').filter((line) => line.startsWith('Warning: '));
}

/**
 * Waits until the CRD named `crdName` is not being deleted (absent, or there and not deleting): a CRD whose instances
 * another file's cleanup is still deleting cannot be applied again.
 */
export async function crdNotBeingDeleted(controlPlane: ProvidedControlPlane, crdName: string): Promise<void> {
  await eventually(
    `the previous ${crdName} to be gone`,
    async () => {
      const existing = await kubectl(controlPlane, [
        'get',
        'crd',
        crdName,
        '--ignore-not-found',
        '-o',
        'jsonpath={.metadata.deletionTimestamp}',
      ]);
      return existing.exitCode === 0 && existing.stdout === '' ? true : undefined;
    },
    { timeoutMs: 60_000 },
  );
}

/**
 * `kubectl wait` for a CRD to be Established, tried a few times: a CRD applied a moment ago may not be readable
 * yet, and kubectl wait then fails at once. The last try's result.
 */
/**
 * A CRD file applied as written (server-side) once the CRD of that name is not being deleted (a file of this lane that
 * ran before may have left it terminating), then waited for until established. Expects each step to succeed.
 */
export async function applyCrdFile(controlPlane: ProvidedControlPlane, file: string, crdName: string): Promise<void> {
  await crdNotBeingDeleted(controlPlane, crdName);
  const applied = await kubectl(controlPlane, ['apply', '--server-side', '-f', file]);
  if (applied.exitCode !== 0) throw new Error(`kubectl apply -f ${file} failed: ${applied.stderr}`);
  const established = await waitEstablished(controlPlane, crdName);
  if (established.exitCode !== 0) throw new Error(`${crdName} was not established: ${established.stderr}`);
}

export async function waitEstablished(controlPlane: ProvidedControlPlane, crdName: string): Promise<KubectlResult> {
  let established = await kubectl(controlPlane, [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    `crd/${crdName}`,
  ]);
  for (let tries = 1; established.exitCode !== 0 && tries < 5; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    established = await kubectl(controlPlane, [
      'wait',
      '--for=condition=Established',
      '--timeout=60s',
      `crd/${crdName}`,
    ]);
  }
  return established;
}
