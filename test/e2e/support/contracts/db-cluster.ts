// A `--contract` module: the DbCluster contract, whose state is read from the operator's phase sentences.
import { dbClusterContract } from '../db-operator-contracts.ts';

export default dbClusterContract;
