import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NpmError, runNpm } from './npm.ts';

// Until crdgate is published to a registry, a scaffolded project carries crdgate itself: a tarball in its vendor/
// folder, which package.json names by a relative path. `npm ci` and the image's build then need nothing from
// outside the project to install it.

/** The folder of the crdgate that is running: two levels above this module, from src/ and from dist/ alike. */
export const runningCrdgateRoot = fileURLToPath(new URL('../../', import.meta.url));

export const vendorFolder = 'vendor';

/**
 * Packs the crdgate in `packageRoot` into `projectDir`/vendor/ and returns the tarball's path in the project
 * (`vendor/crdgate-0.1.0.tgz`). A git checkout (`.git` beside package.json) is packed as for publishing, which runs
 * its prepare script, so dist/ is built from the sources as they are. Anything else is an installed package
 * (from a tarball, a git URL or a registry): already built, and without the sources or the build's tools, so it is
 * packed as it is, its scripts not run. Throws an NpmError with what npm said when packing fails.
 */
export async function vendorCrdgate(packageRoot: string, projectDir: string): Promise<string> {
  const destination = join(projectDir, vendorFolder);
  await mkdir(destination, { recursive: true });
  const isCheckout = existsSync(join(packageRoot, '.git'));
  const args = ['pack', packageRoot, '--json', '--pack-destination', destination, '--no-audit', '--no-fund'];
  const { stdout } = await runNpm(isCheckout ? args : [...args, '--ignore-scripts'], projectDir);
  // A prepare script writes to stdout too, before npm's JSON.
  const start = stdout.search(/^\[/m);
  if (start < 0) throw new NpmError(`npm pack printed no list of what it packed:\n${stdout}`);
  const json = stdout.slice(start);
  const [{ filename }] = JSON.parse(json) as [{ filename: string }];
  return `${vendorFolder}/${filename}`;
}
