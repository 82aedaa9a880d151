import { describe, expect, it } from 'vitest';
import { dbClusterContract, dbPoolerContract } from '../../test/e2e/support/db-operator-contracts.ts';
import { type Contract, type ContractDefinition } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { judgedPartsOf, sameInParts, statusCheckBeyondApiServer } from './judged-parts.ts';

function geoWith(overrides: Partial<ContractDefinition>): Contract {
  const { storageVersion: _derived, ...definition } = geoDatabaseContract();
  return defineContract({ ...definition, ...overrides });
}

describe('judgedPartsOf', () => {
  it("judges GeoDatabase's spec, its declared label and the override on an update, and only the phase of a status write", () => {
    const parts = judgedPartsOf(geoDatabaseContract());
    expect(parts.update).toEqual({
      content: true,
      metadata: { labels: ['geo.example.com/postgres-major'], annotations: ['geo.example.com/override-transitions'] },
      status: undefined,
    });
    expect(parts.status).toEqual({ content: false, metadata: undefined, status: { paths: [['status', 'phase']] } });
    expect(parts.statusRefusable).toBe(false);
    expect(parts.defaults).toEqual({
      content: true,
      metadata: { labels: ['geo.example.com/postgres-major'], annotations: [] },
      status: undefined,
    });
  });

  it('judges every label, annotation and the whole status of a contract that declares nothing, and can refuse a status write', () => {
    const parts = judgedPartsOf(geoWith({ reads: undefined }));
    expect(parts.update).toEqual({ content: true, metadata: { labels: 'all', annotations: 'all' }, status: 'whole' });
    expect(parts.status?.status).toBe('whole');
    expect(parts.statusRefusable).toBe(true);
  });

  it("reads the whole status of a machine with a state reader, and an operator's status with a phase table by the phase alone", () => {
    expect(judgedPartsOf(dbPoolerContract()).status?.status).toBe('whole');
    expect(judgedPartsOf(dbClusterContract()).status?.status).toEqual({ paths: [['status', 'phase']] });
  });
});

describe('statusCheckBeyondApiServer', () => {
  it('holds a status schema with a format only crdgate checks, and an operator CRD whose schema crdgate cannot compare', () => {
    expect(statusCheckBeyondApiServer(geoDatabaseContract())).toBeUndefined();
    const geo = geoDatabaseContract();
    const ownFormat = geoWith({
      versions: geo.versions.map((version) =>
        version.name !== geo.hub
          ? version
          : {
              ...version,
              schema: {
                ...version.schema,
                properties: {
                  ...version.schema.properties,
                  status: { type: 'object', properties: { size: { type: 'string', format: 'quantity' } } },
                },
              },
            },
      ),
    });
    expect(statusCheckBeyondApiServer(ownFormat)).toContain('a format only crdgate checks');
    expect(statusCheckBeyondApiServer(dbClusterContract())).toBeUndefined();
    const { ownerCrd: _copy, storageVersion: _derived, ...withoutCopy } = dbClusterContract();
    expect(statusCheckBeyondApiServer(defineContract(withoutCopy))).toContain("no copy of its owner's CRD");
  });
});

describe('sameInParts', () => {
  const parts = { content: false, metadata: { labels: ['kept'], annotations: 'all' as const }, status: undefined };
  it('takes absent and empty label maps alike where it compares keys, and apart where it compares them all', () => {
    expect(sameInParts(parts, { metadata: { labels: {} } }, { metadata: {} })).toBe(true);
    expect(sameInParts(parts, { metadata: { labels: { other: 'x' } } }, { metadata: {} })).toBe(true);
    expect(sameInParts(parts, { metadata: { labels: { kept: 'x' } } }, { metadata: {} })).toBe(false);
    expect(sameInParts(parts, { metadata: { annotations: {} } }, { metadata: {} })).toBe(false);
  });
});
