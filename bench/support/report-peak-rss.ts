import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

// Loaded with `node --import` into a process whose memory the bench measures: as it exits, it writes to the file
// CRDGATE_BENCH_PEAK_RSS_FILE names the peak resident set in bytes of itself and of each process below it still
// running (the native API server engine is a child process that ends only once crdgate has exited, so it is still
// there), as JSON: { selfBytes, childrenBytes, childrenCpuSeconds }: a process that outlives its parent is never
// waited for by it, so its CPU time is not in the parent's cutime either. From inside, because /proc/PID is gone by the time the parent learns
// the process ended. /proc's VmHWM, not getrusage's maxrss: the kernel carries maxrss over from before exec, so a
// child of a big parent (the bench holds every object it read from etcd) reports the parent's size at fork. Each
// process's peak is its own, whenever it came: their sum bounds the tree's peak from above. Linux only.
const file = process.env['CRDGATE_BENCH_PEAK_RSS_FILE'];
if (file) {
  process.on('exit', () => {
    const children = descendants('self').map(String);
    const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
    writeFileSync(
      file,
      JSON.stringify({
        selfBytes: peakOf('self'),
        childrenBytes: sum(children.map(peakOf)),
        childrenCpuSeconds: sum(children.map(cpuSecondsOf)),
      }),
    );
  });
}

function peakOf(pid: string): number {
  try {
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? 0 : Number(kib) * 1024;
  } catch {
    return 0;
  }
}

/** User and system time (utime, stime of /proc/PID/stat, in ticks of 1/100 s on Linux). */
function cpuSecondsOf(pid: string): number {
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
function descendants(pid: string): number[] {
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
  return children.flatMap((child) => [child, ...descendants(String(child))]);
}
