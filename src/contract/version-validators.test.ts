import { describe, expect, it } from 'vitest';
import { createContractRegistry } from './registry.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';

describe('VersionValidators', () => {
  it('compiles no validator until a version is asked for, then each once, shared by every holder', () => {
    const registry = createContractRegistry([geoDatabaseContract()]);
    const { validators } = registry.contracts[0]!;
    expect(validators.compiledVersions()).toEqual([]);
    expect([...validators.keys()]).toEqual(geoDatabaseContract().versions.map((version) => version.name));

    const v1 = validators.get('v1')!;
    expect(v1({ apiVersion: 'geo.example.com/v1', kind: 'GeoDatabase', spec: { readReplicas: 'two' } })).not.toEqual(
      [],
    );
    expect(validators.compiledVersions()).toEqual(['v1']);
    expect(registry.lookup('geo.example.com', 'GeoDatabase')!.validators.get('v1')).toBe(v1);
    expect(validators.get('v9')).toBeUndefined();
    expect(validators.compiledVersions()).toEqual(['v1']);
  });

  it('replaces some versions and shares the rest, compiled or not', () => {
    const { validators } = createContractRegistry([geoDatabaseContract()]).contracts[0]!;
    const v1 = validators.get('v1')!;
    const replacement = () => [];
    const replaced = validators.with(new Map([['v1beta1', replacement]]));
    expect(replaced.get('v1beta1')).toBe(replacement);
    expect(replaced.get('v1')).toBe(v1);
    expect(validators.compiledVersions()).toEqual(['v1']);
    replaced.get('v1alpha1');
    expect(validators.compiledVersions()).toEqual(['v1', 'v1alpha1']);
  });
});
