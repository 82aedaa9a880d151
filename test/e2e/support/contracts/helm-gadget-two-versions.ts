// A `--contract` module: the Gadget of the Helm install test, with a second version (the upgrade's contract).
import { gadgetTwoVersionContract } from '../helm-gadget-contracts.ts';

export default gadgetTwoVersionContract;
