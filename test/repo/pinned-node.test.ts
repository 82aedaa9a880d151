import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';

const read = (path: string) => readFile(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('one Node version everywhere', () => {
  it('runs the tests on the pinned Node 24', () => {
    expect(process.versions.node.split('.')[0]).toBe('24');
  });

  it('builds the Docker image on the same Node as the pinned devDependency', async () => {
    const pinned = JSON.parse(await read('package.json')).devDependencies.node as string;
    const image = /^ARG NODE_IMAGE=node:(\S+)-bookworm-slim$/m.exec(await read('Dockerfile'))?.[1];
    expect(image).toBe(pinned);
    expect(process.versions.node).toBe(pinned);
  });
});
