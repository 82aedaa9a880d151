import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type CollectGarbage = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * Gives the system back the heap that loading the contracts grew and no longer uses. Parsing an operator's CRD (YAML
 * of megabytes) and checking its schemas allocate hundreds of MiB, which V8 keeps committed once they are garbage:
 * 14 real operators' CRDs left 47 MiB live in a 335 MiB heap, 425 MiB RSS, and it stayed there, since V8's memory
 * reducer waits for an idleness a server does not show it. One last-resort collection (it compacts and releases
 * free pages; 100-150 ms) took that process to 136 MiB. The collector is reached through a context of its own
 * (`--expose-gc` set now exposes `gc` to new contexts only): no contract's code sees a global `gc`.
 */
export function releaseStartUpGarbage(): void {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc') as CollectGarbage;
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
