import { contractSource } from './contract-source.ts';
import { contractTestSource } from './contract-test-source.ts';
import { conversionTestSource } from './conversion-test-source.ts';
import { e2eTestSource } from './e2e-test-source.ts';
import { exampleObject } from './example-object.ts';
import {
  contractSourceFromCrd,
  contractTestSourceFromCrd,
  e2eTestSourceFromCrd,
  exampleObjectFromCrd,
  readmeFromCrd,
  type CrdScaffold,
} from './from-crd-sources.ts';
import { operatorReadme } from './operator-readme.ts';
import {
  dockerfile,
  dockerignore,
  gitignore,
  packageJson,
  tsconfigJson,
  type PinnedVersions,
} from './project-files.ts';
import { readme } from './readme.ts';
import type { ScaffoldNames } from './scaffold-names.ts';
import { spokeVersions, type ScaffoldShape } from './scaffold-shape.ts';
import { spokeVersionSource } from './spoke-version-source.ts';

export interface ScaffoldFile {
  /** Relative to the project's folder, with forward slashes. */
  path: string;
  content: string;
}

/** Every file of a new contract project, as data: the command writes them, tests read them. */
export function scaffoldProject(names: ScaffoldNames, shape: ScaffoldShape, versions: PinnedVersions): ScaffoldFile[] {
  const spokes = spokeVersions(shape);
  return [
    { path: 'package.json', content: packageJson(names, shape, versions) },
    { path: 'tsconfig.json', content: tsconfigJson },
    { path: '.gitignore', content: gitignore },
    { path: '.dockerignore', content: dockerignore },
    { path: 'Dockerfile', content: dockerfile(names, versions) },
    { path: 'README.md', content: readme(names, shape, versions) },
    { path: 'src/contract.ts', content: contractSource(names, shape) },
    ...spokes.map((version) => ({
      path: `src/versions/${version}.ts`,
      content: spokeVersionSource(names, shape, version),
    })),
    { path: 'src/contract.test.ts', content: contractTestSource(names, shape) },
    ...(spokes.length > 0 ? [{ path: 'src/conversion.test.ts', content: conversionTestSource(names, shape) }] : []),
    { path: 'src/contract.e2e.test.ts', content: e2eTestSource(names, shape) },
    { path: `examples/${names.singular}.yaml`, content: exampleObject(names, shape) },
  ];
}

/**
 * Every file of a project made from a CRD (`init --from-crd`): its contract reads `crdText`, copied as it was given
 * to `scaffold.crdFile`, and adds crdgate's rules to it.
 */
export function scaffoldProjectFromCrd(
  scaffold: CrdScaffold,
  crdText: string,
  versions: PinnedVersions,
): ScaffoldFile[] {
  const { names, shape } = scaffold;
  const layout = { crdFolder: scaffold.crdFile.split('/')[0]! };
  return [
    {
      path: 'package.json',
      content: packageJson(names, shape, versions, { ownsCrd: scaffold.crdOwner !== 'external' }),
    },
    { path: 'tsconfig.json', content: tsconfigJson },
    { path: '.gitignore', content: gitignore },
    { path: '.dockerignore', content: dockerignore },
    { path: 'Dockerfile', content: dockerfile(names, versions, layout) },
    {
      path: 'README.md',
      content:
        scaffold.crdOwner === 'external' ? operatorReadme(scaffold, versions) : readmeFromCrd(scaffold, versions),
    },
    { path: scaffold.crdFile, content: crdText },
    { path: 'src/contract.ts', content: contractSourceFromCrd(scaffold) },
    { path: 'src/contract.test.ts', content: contractTestSourceFromCrd(scaffold) },
    { path: 'src/contract.e2e.test.ts', content: e2eTestSourceFromCrd(scaffold) },
    { path: `examples/${names.singular}.yaml`, content: exampleObjectFromCrd(scaffold) },
  ];
}
