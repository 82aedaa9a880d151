import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

// Loaded with `node --import` into a process whose memory the bench measures: as it exits, it writes its peak
// resident set in bytes to the file CRDGATE_BENCH_PEAK_RSS_FILE names, with that of its child processes still
// running (the native API server engine, which a container's memory limit counts with it). From inside, because
// /proc/PID is gone by the time the parent learns the process ended; the engine's process outlives crdgate's exit
// handlers (it ends when its standard input closes). /proc's VmHWM, not getrusage's maxrss: the kernel carries maxrss
// over from before exec, so a child of a big parent (the bench holds every object it read from etcd) reports the
// parent's size at fork. The sum of the peaks is at least the peak of the sum, which /proc does not keep. Linux only.
// Beside it, FILE.json holds each process's peak apart: [{ pid, command, peakRssBytes }], crdgate's first.
const file = process.env['CRDGATE_BENCH_PEAK_RSS_FILE'];
if (file) {
  process.on('exit', () => {
    const processes = [process.pid, ...childPids()].flatMap((pid) => {
      const peak = peakRssBytes(pid);
      return peak === undefined ? [] : [{ pid, command: commandOf(pid), peakRssBytes: peak }];
    });
    const own = processes.find((each) => each.pid === process.pid);
    writeFileSync(file, own ? String(processes.reduce((total, each) => total + each.peakRssBytes, 0)) : '');
    writeFileSync(`${file}.json`, JSON.stringify(processes));
  });
}

/** Children of every thread (the engine is started from a worker thread). */
function childPids(): number[] {
  try {
    return readdirSync('/proc/self/task').flatMap((task) =>
      readFileSync(`/proc/self/task/${task}/children`, 'utf8')
        .split(' ')
        .filter((word) => word !== '')
        .map(Number),
    );
  } catch {
    return [];
  }
}

function peakRssBytes(pid: number): number | undefined {
  try {
    const kib = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
}
