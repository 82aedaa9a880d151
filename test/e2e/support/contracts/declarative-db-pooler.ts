// A `--contract` module for `crdgate serve` and `crdgate manifests`: the DbPooler contract whose state is read from
// its conditions as data (conditionStates), so that the policy floor reads the state too.
import { declarativeDbPoolerContract } from '../db-operator-contracts.ts';

export default declarativeDbPoolerContract;
