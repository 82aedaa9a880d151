import type { Halt } from './halt.ts';

/**
 * A chunk's objects, handed to the workers one at a time. The first worker to halt (or crash) ends it: the others
 * take nothing more, and the halt it ended with is the chunk's.
 */
export class ChunkQueue<Item> {
  private next = 0;
  private ended = false;
  private endedWith: Halt | undefined;
  private readonly items: readonly Item[];

  constructor(items: readonly Item[]) {
    this.items = items;
  }

  get halt(): Halt | undefined {
    return this.endedWith;
  }

  /** The next object, or undefined once the chunk is done, ended, or the run is asked to stop. */
  take(stop: AbortSignal): Item | undefined {
    if (this.ended || stop.aborted) return undefined;
    return this.items[this.next++];
  }

  end(halt?: Halt): void {
    if (!this.ended) this.endedWith = halt;
    this.ended = true;
  }
}
