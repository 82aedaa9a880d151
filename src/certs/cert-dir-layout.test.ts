import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasServingCert } from './cert-dir-layout.ts';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'crdgate-cert-dir-layout-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('hasServingCert', () => {
  it('is true only when both tls.crt and tls.key exist', async () => {
    expect(await hasServingCert(join(base, 'missing'))).toBe(false);
    await writeFile(join(base, 'tls.crt'), 'x');
    expect(await hasServingCert(base)).toBe(false);
    await writeFile(join(base, 'tls.key'), 'x');
    expect(await hasServingCert(base)).toBe(true);
  });
});
