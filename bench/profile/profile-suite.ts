import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { admissionPaths, loadAdmissionPayloads } from '../admission-payloads.ts';
import type { BenchEnvironment } from '../bench-environment.ts';
import { summarizeCpuProfile, type CodeRoot, type ProfileSummary } from './cpu-profile-summary.ts';
import { profileUnderLoad } from './profile-under-load.ts';

export interface ProfiledRun {
  label: string;
  requests: number;
  requestsPerSecond: number;
  /** The server's CPU time over the window: compare with the profile's busy share, which counts wall time. */
  serverCpuShare: number;
  measureMs: number;
  /** Where the .cpuprofile was written (open it in Chrome DevTools > Performance, or speedscope). */
  profilePath: string;
  summary: ProfileSummary;
}

export interface ProfilePlan {
  warmupMs: number;
  measureMs: number;
  concurrency: number;
  sockets: number;
  top: number;
}

/**
 * Where each server spends its CPU per request, bare and crdgate side by side on the same payloads: what both pay
 * (TLS, HTTP) shows up alike, so the difference is what crdgate adds.
 */
export async function runProfileSuite(
  env: BenchEnvironment,
  plan: ProfilePlan,
  profileDir: string,
  progress: (line: string) => void,
): Promise<ProfiledRun[]> {
  const codeRoots: CodeRoot[] = [
    { directory: `${env.build.srcDir}/`, label: 'crdgate' },
    { directory: `${env.build.benchDir}/`, label: 'bench' },
    { directory: fileURLToPath(new URL('../../src/', import.meta.url)), label: 'crdgate' },
    { directory: fileURLToPath(new URL('../', import.meta.url)), label: 'bench' },
  ];
  const payloads = await loadAdmissionPayloads();
  const bare = await env.startBare();
  const crdgate = await env.startCrdgate();
  const runs: ProfiledRun[] = [];
  for (const payload of payloads) {
    for (const [server, path] of [[bare, '/validate'], ...admissionPaths.map((p) => [crdgate, p] as const)] as const) {
      const label = `${server === bare ? 'bare' : 'crdgate'} ${path} ${payload.name}`;
      progress(`profiling ${label}`);
      const profilePath = join(profileDir, `${label.replace(/\W+/g, '-')}.cpuprofile`);
      const { load, profile } = await env.withAgent(server, plan.sockets, (target) =>
        profileUnderLoad({
          server,
          target,
          path,
          body: payload.body,
          concurrency: plan.concurrency,
          warmupMs: plan.warmupMs,
          measureMs: plan.measureMs,
          profilePath,
        }),
      );
      runs.push({
        label,
        requests: load.completedInWindow,
        requestsPerSecond: load.requestsPerSecond,
        serverCpuShare: load.serverCpuShare,
        measureMs: plan.measureMs,
        profilePath,
        summary: summarizeCpuProfile(profile, codeRoots, plan.top),
      });
    }
  }
  return runs;
}
