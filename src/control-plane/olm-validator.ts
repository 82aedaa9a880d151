import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { BuildRecipe } from './build-binaries.ts';
import { goSourceHash } from './build-binaries.ts';
import { crdgateCacheDir, ensureBuilt, type CachedBinary } from './cached-build.ts';
import { OLM_VALIDATE_MODULE_DIR, readControlPlaneVersions, readOperatorFrameworkApiVersion } from './go-modules.ts';
import type { ResolveKubeAssetsOptions } from './kube-assets.ts';

// olm-validate (src/control-plane/go/olm-validate/main.go): operator-framework/api's own validators on a registry+v1
// bundle, for the tests of the bundle `crdgate manifests --format olm` writes. A tool for crdgate's tests.

const OLM_VALIDATE = 'olm-validate';

/** One finding of one of the module's validators (its errors.Error), or of its bundle loader. */
export interface OlmFinding {
  /** The validator's name in main.go ('ClusterServiceVersion', 'Bundle', 'OperatorHubV2', ...) or 'loader'. */
  validator: string;
  /** The module's ErrorType: 'CSVFileNotValid', 'BundleNotValid', 'FieldNotFound', ... */
  type: string;
  field?: string;
  /** The bad value, when the validator gave a string. */
  value?: string;
  detail: string;
  /** The name of the object (or bundle) the validator judged. */
  object?: string;
}

export interface OlmValidationReport {
  errors: OlmFinding[];
  warnings: OlmFinding[];
}

function olmValidateRecipe(): BuildRecipe {
  return {
    name: OLM_VALIDATE,
    moduleDir: OLM_VALIDATE_MODULE_DIR,
    goPackage: 'crdgate.test/control-plane/olm-validate',
    tags: [],
    ldflags: ['-s', '-w'],
    versionArgs: ['-version'],
  };
}

/**
 * Finds olm-validate, building it with Go if needed and allowed, in a cache folder named by the operator-framework/api
 * release its go.mod pins; the file name carries a hash of its sources, so an edited main.go is built afresh.
 */
export async function resolveOlmValidator(opts: ResolveKubeAssetsOptions): Promise<CachedBinary> {
  const env = opts.env ?? process.env;
  return ensureBuilt(
    olmValidateRecipe(),
    {
      dir: join(crdgateCacheDir(env), OLM_VALIDATE, `api-${readOperatorFrameworkApiVersion()}`),
      fileName: `${OLM_VALIDATE}-${await goSourceHash(OLM_VALIDATE_MODULE_DIR)}`,
      stale: new RegExp(`^${OLM_VALIDATE}-[0-9a-f]{12}$`),
    },
    {
      build: opts.build,
      log: opts.log ?? ((line: string) => process.stderr.write(`${OLM_VALIDATE}: ${line}\n`)),
      env,
      buildStep: opts.buildStep ?? 'the test run builds it in its setup',
    },
  );
}

export interface ValidateOlmBundleOptions {
  /**
   * The Kubernetes release the bundle is for: an API it uses that this release removed is an error, not a warning.
   * The control plane's (src/control-plane/go/kube) by default.
   */
  k8sVersion?: string;
}

/**
 * Runs olm-validate on a bundle folder (the one holding manifests/ and metadata/) and returns what the validators
 * found, errors or not. Throws when olm-validate could not run (no such folder) or gave no report.
 */
export function validateOlmBundle(
  binary: string,
  bundleDir: string,
  opts: ValidateOlmBundleOptions = {},
): Promise<OlmValidationReport> {
  const k8sVersion = opts.k8sVersion ?? readControlPlaneVersions().kubernetes;
  return new Promise((resolve, reject) => {
    execFile(
      binary,
      ['-k8s-version', k8sVersion, bundleDir],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`${binary} failed on ${bundleDir} (${error.code ?? error.signal}): ${stderr.trim()}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout) as OlmValidationReport);
        } catch (parseError) {
          reject(new Error(`${binary} gave no JSON report: ${(parseError as Error).message}\n${stderr.trim()}`));
        }
      },
    );
  });
}
