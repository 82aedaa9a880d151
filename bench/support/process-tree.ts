import { readdirSync, readFileSync } from 'node:fs';

// A process and those below it, read from /proc (Linux only): what the bench counts as one server's memory and CPU,
// since crdgate may run the native API server engine as a child process.

/** A size of /proc/PID/status in bytes (VmRSS: resident now; VmHWM: the peak since start); 0 once it is gone. */
export function statusBytes(pid: number | string, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const kib = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? 0 : Number(kib) * 1024;
  } catch {
    return 0;
  }
}

/** User and system time (utime, stime of /proc/PID/stat, in ticks of 1/100 s on Linux); 0 once it is gone. */
export function cpuSecondsOf(pid: number | string): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    // After "pid (comm) ", the fields count from 3 (state): utime is field 14, stime 15.
    return (Number(fields[14 - 3]) + Number(fields[15 - 3])) / 100;
  } catch {
    return 0;
  }
}

/** Every process below pid, through each of its threads' children (any thread may have started one). */
export function descendants(pid: number | string): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children = tasks.flatMap((task) => {
    try {
      return readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return children.flatMap((child) => [child, ...descendants(child)]);
}
