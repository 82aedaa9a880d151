import { writeFileSync } from 'node:fs';
import { cpuSecondsOf, descendants, statusBytes } from './process-tree.ts';

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
        selfBytes: statusBytes('self', 'VmHWM'),
        childrenBytes: sum(children.map((child) => statusBytes(child, 'VmHWM'))),
        childrenCpuSeconds: sum(children.map(cpuSecondsOf)),
      }),
    );
  });
}
