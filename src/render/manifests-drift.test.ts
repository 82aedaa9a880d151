import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { generatedFileText, readManifestDirectory } from './manifest-directory.ts';
import { renderManifestTree } from './manifest-files.ts';
import { manifestDefaults } from './manifest-options.ts';
import { generatedMarker } from './manifest-yaml.ts';

const committedDir = fileURLToPath(new URL('../../manifests/', import.meta.url));

describe('manifests/', () => {
  it('is exactly what `crdgate manifests` generates for the built-in contract with the default flags, kustomizations, overlays and dashboard included', async () => {
    const generated = new Map(
      renderManifestTree([geoDatabaseContract()], manifestDefaults).map((f) => [f.path, generatedFileText(f)]),
    );
    const committed = await readManifestDirectory(committedDir);
    const drift = [
      ...[...generated.keys()].filter((path) => !committed.has(path)).map((path) => `${path} is missing`),
      ...[...committed]
        .filter(([path]) => !generated.has(path))
        .map(([path, text]) =>
          text.startsWith(generatedMarker)
            ? `${path} is no longer generated`
            : `${path} is not generated: manifests/ holds generated files only`,
        ),
      ...[...generated]
        .filter(([path, text]) => committed.has(path) && committed.get(path) !== text)
        .map(([path]) => `${path} differs`),
    ];
    expect(
      drift,
      'manifests/ is out of date with the contracts: run `npm run crdgate -- manifests --out manifests` and commit the result',
    ).toEqual([]);
  });
});
