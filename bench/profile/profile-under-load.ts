import { readFile } from 'node:fs/promises';
import { measureThroughput, type ThroughputOptions, type ThroughputResult } from '../closed-loop-throughput.ts';
import type { CpuProfile } from './cpu-profile-summary.ts';

export interface ProfileUnderLoadOptions extends Omit<ThroughputOptions, 'maxRequests'> {
  /** Where the child writes the .cpuprofile (kept, so it can be opened in Chrome DevTools). */
  profilePath: string;
}

/** A closed-loop run whose measurement window is also the server's CPU profile window. */
export async function profileUnderLoad(
  options: ProfileUnderLoadOptions,
): Promise<{ load: ThroughputResult; profile: CpuProfile }> {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const profiling = (async () => {
    await sleep(options.warmupMs);
    await options.server.startProfile();
    await sleep(options.measureMs);
    await options.server.stopProfile(options.profilePath);
  })();
  const [load] = await Promise.all([measureThroughput({ ...options, maxRequests: 5_000_000 }), profiling]);
  return { load, profile: JSON.parse(await readFile(options.profilePath, 'utf8')) as CpuProfile };
}
