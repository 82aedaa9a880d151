/** What the PostgreSQL, PostGIS and Redis releases crdgate manages are compatible with. */

export const supportedPostgresMajors = { min: 13, max: 17 } as const;

/** PostGIS MAJOR.MINOR -> the PostgreSQL majors it supports (inclusive). */
export const postgisSupport: Record<string, { min: number; max: number }> = {
  '3.3': { min: 11, max: 15 },
  '3.4': { min: 12, max: 16 },
  '3.5': { min: 12, max: 17 },
};

export const defaultRedisVersion = '7.2';
