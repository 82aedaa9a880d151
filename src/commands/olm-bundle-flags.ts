import { extname } from 'node:path';
import { ownsCrd, type Contract } from '../contract/contract-definition.ts';
import { dnsNameRules, isDns1123Label } from '../contract/values/dns-names.ts';
import { writeManifestDirectory } from '../render/manifest-directory.ts';
import { manifestDefaults, type ManifestOptions } from '../render/manifest-options.ts';
import { renderOlmBundle, type BundleIdentity, type CsvPresentation } from '../render/olm/olm-bundle.ts';
import { stringList, stringOption, UsageError, type ParsedValues } from './command.ts';
import { readInputFile, readObjectFile } from './object-file.ts';

// `crdgate manifests --format olm`: the bundle's name and version, what its CSV shows (examples, icon), and the
// folder written with what the bundle cannot say.

const semver =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

export function bundleIdentity(values: ParsedValues): BundleIdentity {
  const packageName = stringOption(values, 'package') ?? stringOption(values, 'name') ?? manifestDefaults.name;
  if (!isDns1123Label(packageName))
    throw new UsageError(`--package "${packageName}" must be ${dnsNameRules.dns1123Label}`);
  const channel = stringOption(values, 'channel') ?? 'stable';
  if (!isDns1123Label(channel)) throw new UsageError(`--channel "${channel}" must be ${dnsNameRules.dns1123Label}`);
  const version = stringOption(values, 'version');
  if (version === undefined)
    throw new UsageError(
      '--format olm needs --version SEMVER: the version of the bundle (its CSV is PACKAGE.vVERSION)',
    );
  const replaces = stringOption(values, 'replaces');
  for (const [flag, given] of [
    ['version', version],
    ['replaces', replaces],
  ] as const)
    if (given !== undefined && !semver.test(given))
      throw new UsageError(`--${flag} "${given}" must be a semantic version (1.2.3, 1.2.3-rc.1)`);
  if (replaces === version) throw new UsageError(`--replaces ${replaces} is the bundle's own --version`);
  return { packageName, channel, version, ...(replaces !== undefined ? { replaces } : {}) };
}

const iconTypes: Record<string, string> = {
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpeg': 'image/jpeg',
  '.jpg': 'image/jpeg',
  '.gif': 'image/gif',
};

/**
 * The examples and icon given for the CSV. An example must be of a kind the bundle's CRDs define, in a version they
 * serve: OLM's validators refuse alm-examples of any other.
 */
export async function csvPresentation(
  values: ParsedValues,
  cwd: string,
  contracts: readonly Contract[],
): Promise<CsvPresentation> {
  const examples = [];
  for (const file of stringList(values, 'example')) {
    const { object } = await readObjectFile(file, cwd);
    const owner = contracts.find(
      (contract) =>
        ownsCrd(contract) &&
        contract.identity.kind === object.kind &&
        contract.versions.some(
          (version) => version.served && `${contract.identity.group}/${version.name}` === object.apiVersion,
        ),
    );
    if (owner === undefined)
      throw new UsageError(
        `--example ${file}: a ${object.kind} of ${object.apiVersion} is not of a kind and served version the bundle's CRDs define (${
          contracts
            .filter(ownsCrd)
            .map((contract) => `${contract.identity.kind}.${contract.identity.group}`)
            .join(', ') || 'it defines none'
        })`,
      );
    examples.push(object);
  }
  const iconFile = stringOption(values, 'icon');
  let icon: CsvPresentation['icon'];
  if (iconFile !== undefined) {
    const mediatype = iconTypes[extname(iconFile).toLowerCase()];
    if (mediatype === undefined) throw new UsageError(`--icon ${iconFile}: give an .svg, .png, .jpeg or .gif file`);
    const data = await readInputFile(iconFile, cwd, `--icon ${iconFile}`);
    icon = { base64data: data.toString('base64'), mediatype };
  }
  return { ...(examples.length > 0 ? { examples } : {}), ...(icon !== undefined ? { icon } : {}) };
}

export async function writeOlmBundle(
  contracts: readonly Contract[],
  options: ManifestOptions,
  identity: BundleIdentity,
  presentation: CsvPresentation,
  dir: string,
  io: { stdout: (text: string) => void; stderr: (text: string) => void },
  crdgateVersion: string,
): Promise<number> {
  const bundle = renderOlmBundle(contracts, options, identity, crdgateVersion, presentation);
  const { written, removed } = await writeManifestDirectory(dir, bundle.files);
  io.stderr(
    `crdgate: what the bundle cannot say, against the kustomize install (docs/deploying.md, Through OLM):\n${bundle.losses
      .map((loss) => `  - ${loss}\n`)
      .join('')}`,
  );
  io.stdout(
    `wrote the OLM bundle ${identity.packageName}.v${identity.version} (${written.length} files) to ${dir}: docker build -f ${dir}/bundle.Dockerfile ${dir}\n`,
  );
  if (removed.length > 0) io.stdout(`removed files no longer generated: ${removed.join(', ')}\n`);
  return 0;
}
