import { describe, expect, it } from 'vitest';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { apiVersionOf, type Contract } from '../contract/contract-definition.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { convertObject, toHub } from '../conversion/convert-object.ts';
import { defineContract } from '../contract/define-contract.ts';
import { pruneUnknownFields } from '../contract/schema/prune-unknown-fields.ts';
import { cacheClusterContract } from './cache-cluster.fixture.ts';
import { hiddenFieldChanges } from './hidden-field-changes.ts';

// What a write in an older version would change of the stored object that the version cannot show: the writes are
// built as a client of that version sends them (the stored object read in it, edited, the conversion annotation sent
// back as read, left out, or stale) and converted to the hub, as the webhook gets them.

const cache = cacheClusterContract();

function hub(contract: Contract, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: apiVersionOf(contract, contract.hub),
    kind: contract.identity.kind,
    metadata: { name: 'x', namespace: 'ns' },
    spec,
  };
}

/** The stored object read in `version`, its spec edited, its annotation as `stash` says, back in the hub. */
function written(
  contract: Contract,
  stored: KubeObject,
  version: string,
  edit: (spec: Record<string, unknown>) => Record<string, unknown>,
  stash: 'as read' | 'left out' | { from: KubeObject },
): KubeObject {
  const key = contract.conversionAnnotation!;
  const read = convertObject(contract, stored, apiVersionOf(contract, version));
  const { [key]: readStash, ...others } = read.metadata?.annotations ?? {};
  const sent =
    stash === 'as read'
      ? readStash
      : stash === 'left out'
        ? undefined
        : convertObject(contract, stash.from, apiVersionOf(contract, version)).metadata?.annotations?.[key];
  return toHub(contract, {
    ...read,
    metadata: { ...read.metadata, annotations: sent === undefined ? others : { ...others, [key]: sent } },
    spec: edit(read.spec as Record<string, unknown>),
  });
}

const moreNodes = (spec: Record<string, unknown>) => ({ ...spec, nodes: 4 });

describe('hiddenFieldChanges', () => {
  const stored = hub(cache, { memory: '512Mi', replicas: 3, tls: { enabled: true } });

  it('finds a field only the hub has, reset by a write without the annotation', () => {
    expect(
      hiddenFieldChanges(cache, 'v1alpha1', stored, written(cache, stored, 'v1alpha1', moreNodes, 'left out')),
    ).toEqual([{ field: 'spec.tls', from: { enabled: true }, to: undefined, shownIn: ['v1'] }]);
  });

  it('finds nothing when the annotation comes back as read, nor for a write in the hub', () => {
    expect(
      hiddenFieldChanges(cache, 'v1alpha1', stored, written(cache, stored, 'v1alpha1', moreNodes, 'as read')),
    ).toEqual([]);
    expect(hiddenFieldChanges(cache, 'v1', stored, hub(cache, { memory: '512Mi', replicas: 3 }))).toEqual([]);
  });

  it('finds a stale annotation: one read before a v1 client turned TLS on', () => {
    const before = hub(cache, { memory: '512Mi', replicas: 3, tls: { enabled: false } });
    expect(
      hiddenFieldChanges(cache, 'v1alpha1', stored, written(cache, stored, 'v1alpha1', moreNodes, { from: before })),
    ).toEqual([{ field: 'spec.tls', from: { enabled: true }, to: { enabled: false }, shownIn: ['v1'] }]);
  });

  it('finds a value a field of the version cannot hold, but not another spelling of the same quantity', () => {
    // 1000M is 953.67Mi: v1alpha1 shows memoryMB 954, and without the annotation the write stores 954Mi.
    const odd = hub(cache, { memory: '1000M', replicas: 3 });
    expect(hiddenFieldChanges(cache, 'v1alpha1', odd, written(cache, odd, 'v1alpha1', moreNodes, 'left out'))).toEqual([
      { field: 'spec.memory', from: '1000M', to: '954Mi', shownIn: ['v1'] },
    ]);
    const spelled = hub(cache, { memory: '0.5Gi', replicas: 3 });
    expect(
      hiddenFieldChanges(cache, 'v1alpha1', spelled, written(cache, spelled, 'v1alpha1', moreNodes, 'left out')),
    ).toEqual([]);
  });

  it("lets the client's own edit decide what the annotation keeps: an edited size drops its stashed spelling", () => {
    const odd = hub(cache, { memory: '1000M', replicas: 3 });
    const grown = (spec: Record<string, unknown>) => ({ ...spec, memoryMB: 2048 });
    expect(hiddenFieldChanges(cache, 'v1alpha1', odd, written(cache, odd, 'v1alpha1', grown, 'as read'))).toEqual([]);
  });

  it('names every served version that shows the field: the storage class is in v1beta1 and v1, not v1alpha1', () => {
    const geo = geoDatabaseContract();
    const database = hub(geo, {
      postgres: { version: '16.4', postgis: '3.4.2' },
      storage: { size: '50Gi', storageClassName: 'archive' },
    });
    const changes = hiddenFieldChanges(
      geo,
      'v1alpha1',
      database,
      written(geo, database, 'v1alpha1', (spec) => spec, 'left out'),
    );
    expect(changes).toEqual([
      { field: 'spec.storage.storageClassName', from: 'archive', to: undefined, shownIn: ['v1beta1', 'v1'] },
    ]);
  });

  it("finds a field the version's conversion passes through but its schema does not declare: the API server prunes it", () => {
    // A boolean added to the hub alone, which v1alpha1's mapping passes through with the rest of the spec.
    const { storageVersion: _storage, ...base } = cacheClusterContract();
    const protectable = defineContract({
      ...base,
      versions: base.versions.map((version) =>
        version.name !== 'v1'
          ? version
          : {
              ...version,
              schema: {
                ...version.schema,
                properties: {
                  ...version.schema.properties,
                  spec: {
                    ...version.schema.properties!['spec']!,
                    properties: {
                      ...version.schema.properties!['spec']!.properties,
                      deletionProtection: { type: 'boolean' },
                    },
                  },
                },
              },
            },
      ),
    });
    const stored = hub(protectable, {
      memory: '512Mi',
      replicas: 3,
      tls: { enabled: false },
      deletionProtection: true,
    });
    // A v1alpha1 client reads it as the API server answers: converted, then pruned by v1alpha1's schema.
    const v1alpha1 = protectable.versions.find((version) => version.name === 'v1alpha1')!.schema;
    const read = pruneUnknownFields(
      convertObject(protectable, stored, apiVersionOf(protectable, 'v1alpha1')),
      v1alpha1,
    );
    expect(read.spec).not.toHaveProperty('deletionProtection');
    const sent = toHub(protectable, { ...read, spec: { ...(read.spec as Record<string, unknown>), nodes: 4 } });
    expect(hiddenFieldChanges(protectable, 'v1alpha1', stored, sent)).toEqual([
      { field: 'spec.deletionProtection', from: true, to: undefined, shownIn: ['v1'] },
    ]);
  });
});
