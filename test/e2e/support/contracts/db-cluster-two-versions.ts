// A `--contract` module for `crdgate serve`: the DbCluster contract on the operator's two-version release.
import { dbClusterTwoVersionContract } from '../db-operator-contracts.ts';

export default dbClusterTwoVersionContract;
