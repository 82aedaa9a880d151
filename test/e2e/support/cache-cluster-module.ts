import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CacheClusterOptions } from '../../../src/admission/cache-cluster.fixture.ts';

const fixture = pathToFileURL(
  fileURLToPath(new URL('../../../src/admission/cache-cluster.fixture.ts', import.meta.url)),
).href;

/**
 * The source of a `--contract` module, to write anywhere (a temporary folder, a project crdgate dev watches): the
 * CacheCluster of issue 56 with these options, one revision of it as a user's contract file would be.
 */
export function cacheClusterModule(options: CacheClusterOptions): string {
  return (
    `import { cacheClusterContract } from '${fixture}';\n\n` +
    `export default () => cacheClusterContract(${JSON.stringify(options)});\n`
  );
}
