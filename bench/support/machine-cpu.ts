import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

export interface MachineCpu {
  busyTicks: number;
  totalTicks: number;
}

/**
 * The whole machine's CPU counters (Linux /proc/stat), so a run can say how much CPU processes other than the
 * bench took meanwhile: on a shared machine that is what makes two runs disagree. Undefined elsewhere.
 */
export function readMachineCpu(): MachineCpu | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = text
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busyTicks = user + nice + system + irq + softirq + steal;
  return { busyTicks, totalTicks: busyTicks + idle + iowait };
}

/** Cores kept busy between two readings (0 .. number of CPUs). */
export function busyCores(from: MachineCpu | undefined, to: MachineCpu | undefined): number {
  if (!from || !to || to.totalTicks === from.totalTicks) return Number.NaN;
  return ((to.busyTicks - from.busyTicks) / (to.totalTicks - from.totalTicks)) * availableParallelism();
}
