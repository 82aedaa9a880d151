// Release numbers such as PostgreSQL's `16.4` or Redis's `7.2`, compared numerically (16.10 is above 16.9).

/** `16.4` -> [16, 4]; undefined for anything that is not dot-separated decimal numbers. */
export function parseVersion(text: unknown): number[] | undefined {
  if (typeof text !== 'string' || !/^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*$/.test(text)) return undefined;
  return text.split('.').map(Number);
}

export function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? 0) - (b[i] ?? 0);
    if (diff !== 0) return Math.sign(diff);
  }
  return 0;
}
