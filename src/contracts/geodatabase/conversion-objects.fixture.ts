import type { KubeObject } from '../../index.ts';
import { annotations as annotationKeys } from './types.ts';

/** A GeoDatabase `maps/db` in `version`, with the given spec (none when undefined) and annotations. */
export function geoDatabaseIn(version: string, spec?: unknown, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: `geo.example.com/${version}`,
    kind: 'GeoDatabase',
    metadata: { name: 'db', namespace: 'maps', ...(annotations ? { annotations } : {}) },
    ...(spec === undefined ? {} : { spec }),
    status: { phase: 'Ready' },
  };
}

/** The parsed conversion stash of an object, or undefined when it has none. */
export function stashOf(converted: KubeObject): unknown {
  const text = converted.metadata?.annotations?.[annotationKeys.conversionData];
  return text === undefined ? undefined : JSON.parse(text);
}
