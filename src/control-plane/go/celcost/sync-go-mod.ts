// Rewrites go.mod/go.sum of celcost from ../kube's, after ../kube has been regenerated for another release:
//   node src/control-plane/go/celcost/sync-go-mod.ts
//
// celcost must judge expressions with exactly the CEL libraries kube-apiserver runs, so every module it shares with
// ../kube gets ../kube's version: the module starts from all of ../kube's requirements (its staging modules at
// their published twins) and `go mod tidy` drops what celcost does not import. The script fails if tidy had to
// move any shared module to another version.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const moduleDir = fileURLToPath(new URL('.', import.meta.url));
const kubeDir = fileURLToPath(new URL('../kube/', import.meta.url));

const header = `// The static CEL cost estimate of a ValidatingAdmissionPolicy (main.go), built from the same published
// k8s.io/apiserver and k8s.io/apiextensions-apiserver releases as ../kube's kube-apiserver, so it judges an
// expression with the API server's own CEL libraries. The versions are ../kube's; after regenerating ../kube,
// run: node src/control-plane/go/celcost/sync-go-mod.ts
module crdgate.test/control-plane/celcost
`;

/** module path -> the version the build uses: a replace's target when there is one, else the required version. */
export function effectiveVersions(goMod: string): Map<string, string> {
  const versions = new Map<string, string>();
  const replaced = new Map<string, string>();
  for (const [, path, version] of goMod.matchAll(/^\s*(?:require\s+)?([\w.\-/~]+)\s+(v[^\s/]+)(?:\s*\/\/.*)?$/gm)) versions.set(path!, version!);
  for (const [, path, version] of goMod.matchAll(/^\s*(?:replace\s+)?([\w.\-/~]+)\s+=>\s+[\w.\-/~]+\s+(v\S+)\s*$/gm)) replaced.set(path!, version!);
  for (const [path, version] of replaced) if (versions.has(path)) versions.set(path, version);
  return versions;
}

function main(): void {
  const kubeGoMod = readFileSync(`${kubeDir}go.mod`, 'utf8');
  const goDirective = /^go\s+(\S+)$/m.exec(kubeGoMod)?.[1];
  if (!goDirective) throw new Error('no go directive in ../kube/go.mod');
  const kubeVersions = effectiveVersions(kubeGoMod);
  const requires = [...kubeVersions].filter(([path]) => path !== 'k8s.io/kubernetes').map(([path, version]) => `\t${path} ${version}`);
  writeFileSync(`${moduleDir}go.mod`, `${header}\ngo ${goDirective}\n\nrequire (\n${requires.join('\n')}\n)\n`);
  // ../kube's checksums cover every shared version, so tidy has (almost) nothing to fetch.
  copyFileSync(`${kubeDir}go.sum`, `${moduleDir}go.sum`);
  execFileSync('go', ['mod', 'tidy'], { cwd: moduleDir, env: { ...process.env, GOWORK: 'off', CGO_ENABLED: '0' }, stdio: ['ignore', 'inherit', 'inherit'] });

  const moved = [...effectiveVersions(readFileSync(`${moduleDir}go.mod`, 'utf8'))].filter(([path, version]) => kubeVersions.get(path) !== version);
  if (moved.length > 0) throw new Error(`go mod tidy moved modules off ../kube's versions: ${moved.map(([path, version]) => `${path} ${version} (kube: ${kubeVersions.get(path)})`).join(', ')}`);
  process.stderr.write(`celcost's go.mod follows ../kube (k8s.io/apiserver ${kubeVersions.get('k8s.io/apiserver')})\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
