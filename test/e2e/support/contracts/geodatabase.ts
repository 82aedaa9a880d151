// A `--contract` module of the built-in GeoDatabase, for runs that name several contracts (naming any drops the built-in).
import { geoDatabaseContract } from '../../../../src/contracts/geodatabase/index.ts';

export default geoDatabaseContract;
