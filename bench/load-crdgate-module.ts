import { pathToFileURL } from 'node:url';

/**
 * Imports one of crdgate's modules (path relative to src/, without extension) from a compiled build when given
 * one, else from src/*.ts. The caller names the module's type: `as typeof import-type-of-that-module`.
 */
export function loadCrdgateModule(compiledSrcDir: string | undefined, path: string): Promise<unknown> {
  return import(compiledSrcDir ? pathToFileURL(`${compiledSrcDir}/${path}.js`).href : `../src/${path}.ts`);
}
