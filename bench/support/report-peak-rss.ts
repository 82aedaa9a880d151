import { readFileSync, writeFileSync } from 'node:fs';

// Loaded with `node --import` into a process whose memory the bench measures: as it exits, it writes its peak
// resident set in bytes to the file CRDGATE_BENCH_PEAK_RSS_FILE names. From inside, because /proc/PID is gone by the
// time the parent learns the process ended. /proc's VmHWM, not getrusage's maxrss: the kernel carries maxrss over
// from before exec, so a child of a big parent (the bench holds every object it read from etcd) reports the
// parent's size at fork. Linux only.
const file = process.env['CRDGATE_BENCH_PEAK_RSS_FILE'];
if (file) {
  process.on('exit', () => {
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    writeFileSync(file, kib === undefined ? '' : String(Number(kib) * 1024));
  });
}
