// A `--contract` module: the CacheCluster of issue 56, v1alpha1 and v1 served, v1 the hub and the storage version.
import { cacheClusterContract } from '../../../../src/admission/cache-cluster.fixture.ts';

export default cacheClusterContract;
