// A `--contract` module: the Gadget of the Helm install test, with one version.
import { gadgetContract } from '../helm-gadget-contracts.ts';

export default gadgetContract;
