import { contractSource, contractTestSource, exampleObject } from './contract-files.ts';
import { dockerfile, dockerignore, gitignore, packageJson, tsconfigJson, type PinnedVersions } from './project-files.ts';
import { readme } from './readme.ts';
import type { ScaffoldNames } from './scaffold-names.ts';

export interface ScaffoldFile {
  /** Relative to the project's folder, with forward slashes. */
  path: string;
  content: string;
}

/** Every file of a new contract project, as data: the command writes them, tests read them. */
export function scaffoldProject(names: ScaffoldNames, versions: PinnedVersions): ScaffoldFile[] {
  return [
    { path: 'package.json', content: packageJson(names, versions) },
    { path: 'tsconfig.json', content: tsconfigJson },
    { path: '.gitignore', content: gitignore },
    { path: '.dockerignore', content: dockerignore },
    { path: 'Dockerfile', content: dockerfile(names, versions) },
    { path: 'README.md', content: readme(names) },
    { path: 'src/contract.ts', content: contractSource(names) },
    { path: 'src/contract.test.ts', content: contractTestSource(names) },
    { path: `examples/${names.singular}.yaml`, content: exampleObject(names) },
  ];
}
