/**
 * The total the progress display shows, estimated from the list's pages: the objects listed before the current page
 * in this pass of the list, the page itself, and what the server says remains (remainingItemCount, unless the list
 * is filtered). A list started again from the beginning after a 410 is a new pass: counting its pages on top of the
 * first pass's would count every object twice.
 */
export interface ListProgress {
  /** The estimate so far; undefined until the server says how many remain, or the last page is read. */
  readonly total: number | undefined;
  /** A page of the current pass; `more` when it has a continue token. */
  page(items: number, remaining: number | undefined, more: boolean): void;
  /** The list starts again from the beginning. Carrying on from a token the server offers is the same pass. */
  restart(): void;
}

export function createListProgress(): ListProgress {
  let before = 0;
  let total: number | undefined;
  return {
    get total() {
      return total;
    },
    page(items, remaining, more) {
      if (remaining !== undefined) total = before + items + remaining;
      else if (!more) total = before + items;
      before += items;
    },
    restart() {
      before = 0;
    },
  };
}
