// A `--contract` module for `crdgate serve`: the DbPooler contract, whose state is read from its conditions.
import { dbPoolerContract } from '../db-operator-contracts.ts';

export default dbPoolerContract;
