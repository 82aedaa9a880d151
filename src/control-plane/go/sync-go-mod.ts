// Rewrites the go.mod/go.sum of the Go modules crdgate builds from kube-apiserver's own packages (celcost, the
// API server engine, and the bench's cel-timer) from ./kube's, after ./kube has been regenerated for another release:
//   node src/control-plane/go/sync-go-mod.ts            (every module below)
//   node src/control-plane/go/sync-go-mod.ts DIR...     (only these)
//
// Such a module must judge exactly as kube-apiserver does, so every module it shares with ./kube gets ./kube's
// version: the module starts from all of ./kube's requirements (its staging modules at their published twins) and
// `go mod tidy` drops what it does not import. The script fails if tidy had to move any shared module to another
// version. The comment above the `module` line of each go.mod is kept.
import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const kubeDir = fileURLToPath(new URL('./kube/', import.meta.url));

/** The modules that follow ./kube. */
export const KUBE_FOLLOWING_MODULE_DIRS = [
  fileURLToPath(new URL('./celcost/', import.meta.url)),
  fileURLToPath(new URL('../../api-server-engine/go/', import.meta.url)),
  fileURLToPath(new URL('../../../bench/cel-timer/', import.meta.url)),
  fileURLToPath(new URL('../../../bench/crd-tools/olm-preflight/', import.meta.url)),
];

/** module path -> the version the build uses: a replace's target when there is one, else the required version. */
export function effectiveVersions(goMod: string): Map<string, string> {
  const versions = new Map<string, string>();
  const replaced = new Map<string, string>();
  for (const [, path, version] of goMod.matchAll(/^\s*(?:require\s+)?([\w.\-/~]+)\s+(v[^\s/]+)(?:\s*\/\/.*)?$/gm))
    versions.set(path!, version!);
  for (const [, path, version] of goMod.matchAll(/^\s*(?:replace\s+)?([\w.\-/~]+)\s+=>\s+[\w.\-/~]+\s+(v\S+)\s*$/gm))
    replaced.set(path!, version!);
  for (const [path, version] of replaced) if (versions.has(path)) versions.set(path, version);
  return versions;
}

export function syncWithKube(moduleDir: string): void {
  const kubeGoMod = readFileSync(`${kubeDir}go.mod`, 'utf8');
  const goDirective = /^go\s+(\S+)$/m.exec(kubeGoMod)?.[1];
  if (!goDirective) throw new Error('no go directive in ./kube/go.mod');
  const ownGoMod = readFileSync(`${moduleDir}/go.mod`, 'utf8');
  // Everything up to and including the module line: the comment that says what the module is, and its path.
  const header = /^[\s\S]*?^module\s+\S+\s*$/m.exec(ownGoMod)?.[0];
  if (!header) throw new Error(`no module line in ${moduleDir}/go.mod`);
  const kubeVersions = effectiveVersions(kubeGoMod);
  const requires = [...kubeVersions]
    .filter(([path]) => path !== 'k8s.io/kubernetes')
    .map(([path, version]) => `\t${path} ${version}`);
  writeFileSync(`${moduleDir}/go.mod`, `${header}\n\ngo ${goDirective}\n\nrequire (\n${requires.join('\n')}\n)\n`);
  // ./kube's checksums cover every shared version, so tidy has (almost) nothing to fetch.
  copyFileSync(`${kubeDir}go.sum`, `${moduleDir}/go.sum`);
  execFileSync('go', ['mod', 'tidy'], {
    cwd: moduleDir,
    env: { ...process.env, GOWORK: 'off', CGO_ENABLED: '0' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });

  const moved = [...effectiveVersions(readFileSync(`${moduleDir}/go.mod`, 'utf8'))].filter(
    ([path, version]) => kubeVersions.get(path) !== version,
  );
  if (moved.length > 0)
    throw new Error(
      `go mod tidy moved modules of ${moduleDir} off ./kube's versions: ${moved.map(([path, version]) => `${path} ${version} (kube: ${kubeVersions.get(path)})`).join(', ')}`,
    );
  process.stderr.write(
    `${moduleDir}: go.mod follows ./kube (k8s.io/apiserver ${kubeVersions.get('k8s.io/apiserver')})\n`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dirs = process.argv.length > 2 ? process.argv.slice(2).map((dir) => resolve(dir)) : KUBE_FOLLOWING_MODULE_DIRS;
  for (const dir of dirs) syncWithKube(dir);
}
