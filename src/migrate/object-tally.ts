import type { Halt } from './halt.ts';
import type { MendedManagedFields } from './managed-fields.ts';
import { MAX_FAILURES_LISTED, type ObjectCounts, type ObjectFailure } from './migration-report.ts';

/** What the run decided about one object: how it counts, or that the run must stop (the object is then not counted). */
export type ObjectResult =
  | { counted: 'rewritten' | 'current' | 'gone'; mended?: MendedManagedFields }
  | { counted: 'failed'; failure: ObjectFailure }
  | { halt: Halt };

/** What the objects came to, added up from what each write returned. */
export class Tally {
  readonly counts: ObjectCounts = { seen: 0, rewritten: 0, current: 0, gone: 0, failed: 0 };
  readonly managedFields = { objectsMended: 0, entriesDropped: 0 };
  readonly failures: ObjectFailure[] = [];
  /** Objects the lists returned past what earlier chunks did: this shard's and the others'. */
  listed = 0;

  add(result: ObjectResult): void {
    if ('halt' in result) return;
    this.counts.seen++;
    this.counts[result.counted]++;
    if ('failure' in result && this.failures.length < MAX_FAILURES_LISTED) this.failures.push(result.failure);
    if ('mended' in result && result.mended) {
      this.managedFields.objectsMended++;
      this.managedFields.entriesDropped += result.mended.dropped;
    }
  }
}
