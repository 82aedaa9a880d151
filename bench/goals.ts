import { deploymentMemoryRequestMiB } from './deployment-resources.ts';

/** crdgate's performance goals (bench/README.md, The goals, last measured), as numbers the report checks. */
export const goals = {
  /** crdgate's requests per server-CPU-second over the bare node:https server's, per payload and endpoint. */
  throughputRatioToBare: 0.6,
  /** The same over the controller-runtime peer's, on /validate (the peer serves nothing else). */
  throughputRatioToPeer: 1.5,
  /** crdgate's p99 over the bare server's, both at half of crdgate's own saturation rate. */
  latencyP99RatioToBare: 1.5,
  /**
   * "Well under the API server's budget": a tenth of the typical 10 s webhook timeout (the maximum is 30 s) for a
   * 500-object review, leaving the API server the rest for etcd, admission and the list itself.
   */
  conversionReviewMs: 1_000,
  startupMs: 1_000,
  /** Peak RSS under admission load, with the Deployment's heap flags: within what the Deployment requests. */
  rssMiB: deploymentMemoryRequestMiB(),
} as const;
