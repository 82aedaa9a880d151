import type { Contract } from '../contract/contract-definition.ts';
import { readKeysOf } from '../contract/contract-reads.ts';

/**
 * Why a contract that leaves its label or annotation reads undeclared sends crdgate more than it needs, in one
 * sentence; undefined when it declares both. Left out, `reads.labels` and `reads.annotations` mean every key: the
 * webhook's match conditions then send every label and annotation edit of the kind (an operator's, a GitOps tool's)
 * to crdgate, where it waits on crdgate, and under failurePolicy Fail is refused while crdgate is down.
 */
export function undeclaredReads(contract: Contract): string | undefined {
  const reads = readKeysOf(contract);
  const undeclared = [
    ...(reads.labels === 'all' ? ['labels'] : []),
    ...(reads.annotations === 'all' ? ['annotations'] : []),
  ];
  if (undeclared.length === 0) return undefined;
  const what = undeclared.join(' and ');
  const edits = undeclared.map((keys) => keys.slice(0, -1)).join(' and ');
  return (
    `the contract declares no reads of ${what}, so every ${edits} edit of its objects reaches crdgate and waits on ` +
    `it, and is refused while crdgate is down (failurePolicy Fail): declare reads: { labels: [...], annotations: ` +
    `[...] } with the keys its invariants, defaults and update rules read ([] for none)`
  );
}
