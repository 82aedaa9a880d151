import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import type { Contract } from './contract-definition.ts';
import { deprecationWarning } from './deprecation-warning.ts';

const geo = geoDatabaseContract();

/** The GeoDatabase with v1alpha1 and v1beta1 deprecated, without warnings of their own. */
function withDeprecated(contract: Contract, deprecated: readonly string[]): Contract {
  return {
    ...contract,
    versions: contract.versions.map(({ deprecationWarning: _, ...version }) => ({
      ...version,
      deprecated: deprecated.includes(version.name),
    })),
  };
}

describe('deprecationWarning', () => {
  it("is the version's own warning when it has one, and nothing for a version that is not deprecated", () => {
    expect(deprecationWarning(geo, 'v1alpha1')).toBe(
      'geo.example.com/v1alpha1 GeoDatabase is deprecated; use geo.example.com/v1',
    );
    expect(deprecationWarning(geo, 'v1')).toBeUndefined();
  });

  it("is kube-apiserver's default otherwise: the newest newer served version that is not deprecated", () => {
    const contract = withDeprecated(geo, ['v1alpha1', 'v1beta1']);
    expect(deprecationWarning(contract, 'v1alpha1')).toBe(
      'geo.example.com/v1alpha1 GeoDatabase is deprecated; use geo.example.com/v1 GeoDatabase',
    );
    // No newer version left that is not deprecated: the warning names none.
    expect(deprecationWarning(withDeprecated(geo, ['v1alpha1', 'v1beta1', 'v1']), 'v1')).toBe(
      'geo.example.com/v1 GeoDatabase is deprecated',
    );
  });
});
