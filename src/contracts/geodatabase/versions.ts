/** What the PostgreSQL, PostGIS and Redis releases crdgate manages are compatible with. */

export const supportedPostgresMajors = { min: 13, max: 17 } as const;

/** PostGIS MAJOR.MINOR -> the PostgreSQL majors it supports (inclusive). */
export const postgisSupport: Record<string, { min: number; max: number }> = {
  '3.3': { min: 11, max: 15 },
  '3.4': { min: 12, max: 16 },
  '3.5': { min: 12, max: 17 },
};

export const defaultRedisVersion = '7.2';


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
