/** crdgate's performance goals (the README's Performance section), as numbers the report checks. */
export const goals = {
  /** crdgate's requests per server-CPU-second over the bare server's, per payload and endpoint. */
  throughputRatio: 0.8,
  /** At half the bare server's measured saturation rate. */
  latencyP99Ms: 5,
  /**
   * "Well under the API server's budget": a tenth of the typical 10 s webhook timeout (the maximum is 30 s) for a
   * 500-object review, leaving the API server the rest for etcd, admission and the list itself.
   */
  conversionReviewMs: 1_000,
  startupMs: 1_000,
  rssMiB: 150,
} as const;
