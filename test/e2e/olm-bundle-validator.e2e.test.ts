import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { validateOlmBundle, type OlmValidationReport } from '../../src/control-plane/olm-validator.ts';
import { builtOlmValidator } from '../tools/suite-tools.ts';
import { crdgate } from './support/crdgate-cli.ts';
import { validGeoDatabase } from './support/geodatabases.ts';

/**
 * olm-validate (src/control-plane/go/olm-validate) runs operator-framework/api's own bundle validators, the module
 * operator-sdk's `bundle validate` runs, for the tests of the bundle `crdgate manifests --format olm` writes. Here it
 * judges a hand-written registry+v1 bundle (test/fixtures/olm-bundle: a CSV owning one CRD, a deployment install
 * strategy, the OperatorHub metadata) and the same bundle broken in known ways, so that a test relying on "no errors"
 * relies on a tool that does find them. No cluster is touched.
 */

const fixture = fileURLToPath(new URL('../fixtures/olm-bundle/', import.meta.url));
const csvFile = 'manifests/widget-operator.clusterserviceversion.yaml';
const crdFile = 'manifests/widgets.example.com.crd.yaml';

// The manifests as YAML gives them: the edits below reach into them freely.
type Yaml = Record<string, any>;
/** What an edit returns to remove the file. */
const REMOVE: Yaml = {};

describe("olm-validate: operator-framework/api's bundle validators", () => {
  let binary: string;
  let workDir: string;
  let copies = 0;

  beforeAll(async () => {
    binary = await builtOlmValidator();
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-olm-validate-'));
  });
  afterAll(() => rm(workDir, { recursive: true, force: true }));

  /** A copy of the fixture with its CSV (and CRD) edited. */
  async function bundle(edit: { csv?: (csv: Yaml) => void; crd?: (crd: Yaml) => Yaml | undefined }): Promise<string> {
    const dir = join(workDir, `bundle-${++copies}`);
    await cp(fixture, dir, { recursive: true });
    for (const [file, change] of [
      [csvFile, edit.csv],
      [crdFile, edit.crd],
    ] as const) {
      if (!change) continue;
      const document = parse(await readFile(join(dir, file), 'utf8')) as Yaml;
      const changed = change(document) ?? document;
      if (changed === REMOVE) await rm(join(dir, file));
      else await writeFile(join(dir, file), stringify(changed));
    }
    return dir;
  }

  const finding = (validator: string, detail: RegExp) =>
    expect.objectContaining({ validator, detail: expect.stringMatching(detail) });

  it('finds nothing wrong, not even a warning, in the hand-written bundle', async () => {
    expect(await validateOlmBundle(binary, fixture)).toEqual({ errors: [], warnings: [] });
  });

  it('names a CSV without installModes, an owned CRD the bundle lacks and a CRD the CSV does not own', async () => {
    const dir = await bundle({
      csv: (csv) => {
        delete csv['spec'].installModes;
        csv['spec'].customresourcedefinitions.owned[0].kind = 'Gadget';
      },
    });
    const report = await validateOlmBundle(binary, dir);
    expect(report.errors).toEqual(
      expect.arrayContaining([
        finding('ClusterServiceVersion', /install modes not found/),
        finding('Bundle', /^owned CRD "example\.com\/v1, Kind=Gadget" not found in bundle/),
        finding('Bundle', /^CRD "example\.com\/v1, Kind=Widget" is present in bundle .* but not defined in CSV/),
      ]),
    );
  });

  it('refuses a conversion webhook in a CSV that can be installed other than in AllNamespaces', async () => {
    // OLM serves a CRD's conversion webhook cluster-wide, so a CSV that declares one installs only in AllNamespaces.
    const conversionWebhook = {
      type: 'ConversionWebhook',
      generateName: 'cwidgets.example.com',
      deploymentName: 'widget-operator',
      containerPort: 443,
      targetPort: 9443,
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      webhookPath: '/convert',
      conversionCRDs: ['widgets.example.com'],
    };
    const dir = await bundle({ csv: (csv) => void (csv['spec'].webhookdefinitions = [conversionWebhook]) });
    expect((await validateOlmBundle(binary, dir)).errors).toEqual([
      finding(
        'ClusterServiceVersion',
        /only AllNamespaces InstallModeType is supported when conversionCRDs is present/,
      ),
    ]);

    const allNamespacesOnly = await bundle({
      csv: (csv) => {
        csv['spec'].webhookdefinitions = [conversionWebhook];
        for (const mode of csv['spec'].installModes) mode.supported = mode.type === 'AllNamespaces';
      },
    });
    expect(await validateOlmBundle(binary, allNamespacesOnly)).toEqual({ errors: [], warnings: [] });
  });

  it('warns, without an error, about a container with no resource requests and a CRD with no description', async () => {
    const dir = await bundle({
      csv: (csv) => {
        delete csv['spec'].install.spec.deployments[0].spec.template.spec.containers[0].resources;
        delete csv['spec'].customresourcedefinitions.owned[0].description;
      },
    });
    const report = await validateOlmBundle(binary, dir);
    expect(report.errors).toEqual([]);
    expect(report.warnings).toEqual([
      finding('GoodPractices', /^unable to find the resource requests for the container: \(manager\)/),
      finding('GoodPractices', /^owned CRD "widgets\.example\.com" has an empty description/),
    ]);
  });

  it('holds a removed API to the Kubernetes release it is given: an error under the control plane’s', async () => {
    // apiextensions.k8s.io/v1beta1 went in 1.22; the CSV's minKubeVersion is put below that, so the release decides.
    const dir = await bundle({
      csv: (csv) => void (csv['spec'].minKubeVersion = '1.20.0'),
      crd: (crd) => ({
        apiVersion: 'apiextensions.k8s.io/v1beta1',
        kind: 'CustomResourceDefinition',
        metadata: crd['metadata'],
        spec: {
          group: crd['spec'].group,
          names: crd['spec'].names,
          scope: crd['spec'].scope,
          version: 'v1',
          versions: [{ name: 'v1', served: true, storage: true }],
          // v1beta1 keeps unknown fields unless told otherwise, which the v1 validation the module runs refuses.
          preserveUnknownFields: false,
          validation: crd['spec'].versions[0].schema,
        },
      }),
    });
    const removed =
      /^this bundle is using APIs which were deprecated and removed in v1\.22\..*CRD: \(\["widgets\.example\.com"\]\)$/;
    const under121 = await validateOlmBundle(binary, dir, { k8sVersion: 'v1.21.0' });
    expect(under121.errors).toEqual([]);
    expect(under121.warnings).toEqual(expect.arrayContaining([finding('AlphaDeprecatedAPIs', removed)]));
    const underControlPlane = await validateOlmBundle(binary, dir);
    expect(underControlPlane.errors).toEqual(expect.arrayContaining([finding('AlphaDeprecatedAPIs', removed)]));
  });

  it('loads a bundle with no CRD: the CSV owns none, and only the missing example is a warning', async () => {
    const dir = await bundle({
      csv: (csv) => {
        delete csv['spec'].customresourcedefinitions;
        delete csv['metadata'].annotations['alm-examples'];
      },
      crd: () => REMOVE,
    });
    const report: OlmValidationReport = await validateOlmBundle(binary, dir);
    expect(report).toEqual({
      errors: [],
      warnings: [finding('ClusterServiceVersion', /example annotations not found/)],
    });
  });

  it('reports a bundle whose CSV the loader cannot find, and fails only when there is no folder', async () => {
    const dir = await bundle({ csv: () => REMOVE });
    expect(await validateOlmBundle(binary, dir)).toEqual({
      errors: [finding('loader', /^unable to find a csv in bundle directory /)],
      warnings: [],
    });
    await expect(validateOlmBundle(binary, join(workDir, 'nowhere'))).rejects.toThrow(/nowhere is not a directory/);
  });
});

/**
 * The bundles `crdgate manifests --format olm` writes, judged by the same validators. A scaffolded contract's bundle
 * is judged where a user renders it, in test/e2e/init.e2e.test.ts.
 */
describe("the built-in example's bundle, as crdgate manifests --format olm writes it", () => {
  let binary: string;
  let workDir: string;

  beforeAll(async () => {
    binary = await builtOlmValidator();
    workDir = await mkdtemp(join(tmpdir(), 'crdgate-olm-bundle-'));
    // An example for a console to offer: no namespace, the one the user creates it in.
    const example = validGeoDatabase('any', 'example');
    delete example.metadata!.namespace;
    await writeFile(join(workDir, 'example.yaml'), stringify(example));
    await writeFile(join(workDir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 8 8"/>\n');
  });
  afterAll(() => rm(workDir, { recursive: true, force: true }));

  const render = async (out: string, ...flags: string[]) => {
    const rendered = await crdgate(
      workDir,
      'manifests',
      '--format',
      'olm',
      '--version',
      '0.1.0',
      '--out',
      out,
      ...flags,
    );
    expect(rendered.code, rendered.stderr).toBe(0);
    return join(workDir, out);
  };

  it('finds no error and no warning in it, with an example and an icon given', async () => {
    const dir = await render('complete', '--example', 'example.yaml', '--icon', 'icon.svg');
    expect(await validateOlmBundle(binary, dir)).toEqual({ errors: [], warnings: [] });
  });

  it('warns of the example and the icon only, when none is given (docs/deploying.md says why they stay)', async () => {
    const dir = await render('plain');
    const report = await validateOlmBundle(binary, dir);
    expect(report.errors).toEqual([]);
    expect(report.warnings.map((warning) => warning.detail).sort()).toEqual([
      expect.stringMatching(/csv\.Spec\.Icon not specified/),
      expect.stringMatching(/example annotations not found/),
    ]);
  });
});
