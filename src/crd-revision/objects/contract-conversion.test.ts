import { describe, expect, it } from 'vitest';
import type { Contract } from '../../contract/contract-definition.ts';
import { geoDatabaseContract } from '../../contracts/geodatabase/index.ts';
import { renderCustomResourceDefinition } from '../../render/custom-resource-definition.ts';
import { contractConverter, conversionRoundTripFindings } from './contract-conversion.ts';
import { predictStoredObject } from './predict-stored-object.ts';
import { prepareCrdRevision } from './revision-under-test.ts';

// GeoDatabase, crdgate's built-in contract: v1 (hub, storage), v1beta1 and v1alpha1, converted by its webhook.
const endpoint = { target: { service: { namespace: 'crdgate-system', name: 'crdgate', port: 443 } } };
const geoDatabase = {
  apiVersion: 'geo.example.com/v1',
  kind: 'GeoDatabase',
  metadata: { name: 'tiles', namespace: 'maps' },
  spec: {
    postgres: { version: '16.4', postgis: '3.4.2' },
    storage: { size: '20Gi' },
    caches: [{ name: 'tiles', memory: '1Gi', replicas: 2 }],
  },
};

function roundTrips(contract: Contract) {
  const crd = renderCustomResourceDefinition(geoDatabaseContract(), endpoint);
  const revision = prepareCrdRevision(crd, crd);
  const outcome = predictStoredObject(revision, geoDatabase, { convert: contractConverter(contract) });
  return { outcome, findings: conversionRoundTripFindings(revision, contract, outcome) };
}

/** The contract with one spoke's conversion from the hub replaced. */
function withFromHub(version: 'v1beta1' | 'v1alpha1', fromHub: Contract['conversions'][string]['fromHub']): Contract {
  const contract = geoDatabaseContract();
  return {
    ...contract,
    conversions: { ...contract.conversions, [version]: { ...contract.conversions[version]!, fromHub } },
  };
}

describe('conversion round trips of a contract-owned kind', () => {
  it('reads the object in every served version through the contract, and finds nothing to report for a lossless contract', () => {
    const { outcome, findings } = roundTrips(geoDatabaseContract());
    expect(Object.keys(outcome.reads).sort()).toEqual(['v1', 'v1alpha1', 'v1beta1']);
    const v1alpha1 = outcome.reads.v1alpha1 as { object: any };
    expect(v1alpha1.object.apiVersion).toBe('geo.example.com/v1alpha1');
    expect(v1alpha1.object.spec.postgresVersion).toBeDefined();
    expect(findings).toEqual([]);
  });

  it('names a conversion that fails, and a round trip that loses a value', () => {
    const failing = withFromHub('v1beta1', () => {
      throw new Error('no way');
    });
    expect(roundTrips(failing).findings.map(({ rule, version }) => ({ rule, version }))).toEqual([
      { rule: 'conversionFailed', version: 'v1beta1' },
    ]);
    // The failing read is the 500 the API server answers when its conversion webhook fails.
    expect(roundTrips(failing).outcome.reads.v1beta1).toEqual({ refused: { code: 500, causes: [] } });

    const original = geoDatabaseContract().conversions.v1alpha1!.fromHub;
    const lossy = withFromHub('v1alpha1', (hub, context) => {
      const spoke = original(hub, context);
      // Forgets the stash, which carries back what v1alpha1 cannot say: the caches' names, memory and replicas.
      return { ...spoke, metadata: { ...spoke.metadata, annotations: {} } };
    });
    const [loss] = roundTrips(lossy).findings;
    expect(loss).toMatchObject({
      rule: 'conversionRoundTripLoss',
      version: 'v1alpha1',
      path: 'spec.caches',
      old: [{ name: 'tiles', memory: '1Gi', replicas: 2 }],
    });
  });
});
