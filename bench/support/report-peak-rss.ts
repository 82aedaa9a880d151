import { writeFileSync } from 'node:fs';

// Loaded with `node --import` into a process whose memory the bench measures: as it exits, it writes its peak
// resident set in bytes (getrusage's maxrss, which is /proc's VmHWM) to the file CRDGATE_BENCH_PEAK_RSS_FILE names.
// From inside, because /proc/PID is gone by the time the parent learns the process ended.
const file = process.env['CRDGATE_BENCH_PEAK_RSS_FILE'];
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)));
