/**
 * What a CRD revision did (observed on kube-apiserver) or will do (crdgate's prediction) to stored objects, as
 * counts of objects: the one shape both sides of the comparison are counted in.
 */
export interface ObjectEffects {
  /** Objects a read in the storage version answers without data they held (pruning on read). */
  dropped: number;
  /** Objects a read answers with a value they did not hold, or another one (defaults). */
  defaulted: number;
  /** Objects a read in some version the old or the new revision serves refuses. */
  readRefused: number;
  unchangedWriteRefused: number;
  labelWriteRefused: number;
  recreateRefused: number;
}
