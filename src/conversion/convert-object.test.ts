import { describe, expect, it } from 'vitest';
import type { SpokeConversion } from '../contract/contract-definition.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { convertObject, toHub } from './convert-object.ts';
import { ConversionError, type ConversionErrorCode } from './conversion-error.ts';
import { toy, toyAnnotation, toyApiVersion, toyContract } from './toy-contract.fixture.ts';

function conversionError(run: () => unknown): ConversionError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConversionError) return error;
    throw error;
  }
  throw new Error('expected a ConversionError');
}

function expectCode(run: () => unknown, code: ConversionErrorCode): ConversionError {
  const error = conversionError(run);
  expect(error.code).toBe(code);
  return error;
}

/** A spoke conversion that records its calls, to see which way a conversion went. */
function recording(inner: SpokeConversion, name: string, calls: string[]): SpokeConversion {
  return {
    toHub: (object, context) => (calls.push(`${name}.toHub`), inner.toHub(object, context)),
    fromHub: (object, context) => (calls.push(`${name}.fromHub`), inner.fromHub(object, context)),
  };
}

describe('convertObject', () => {
  const contract = toyContract();

  it('returns an object already in the desired version as it is', () => {
    const object = toy('v1', { length: 3 });
    expect(convertObject(contract, object, toyApiVersion('v1'))).toBe(object);
  });

  it('converts a spoke to the hub, keeping everything outside the spec', () => {
    const hub = convertObject(contract, toy('v1', { length: 3 }), toyApiVersion('v2'));
    expect(hub).toEqual({ ...toy('v2', { size: 3 }) });
  });

  it('goes spoke -> hub -> spoke, never from spoke to spoke, and never converts the hub to itself', () => {
    const calls: string[] = [];
    const base = toyContract();
    const spied = toyContract({
      v0: recording(base.conversions.v0!, 'v0', calls),
      v1: recording(base.conversions.v1!, 'v1', calls),
    });
    const v0 = convertObject(spied, toy('v1', { length: 3 }), toyApiVersion('v0'));
    expect(v0.spec).toEqual({ len: 3 });
    expect(calls).toEqual(['v1.toHub', 'v0.fromHub']);
    calls.length = 0;
    convertObject(spied, toy('v2', { size: 3 }), toyApiVersion('v1'));
    expect(calls).toEqual(['v1.fromHub']);
  });

  it('converts versions that are no longer served: objects stored in them must still be read', () => {
    expect(convertObject(contract, toy('v0', { len: 4 }), toyApiVersion('v2')).spec).toEqual({ size: 4 });
  });

  it('keeps what a spoke cannot hold in the stash and restores it', () => {
    const hub = toy('v2', { size: 3, color: 'red' });
    const spoke = convertObject(contract, hub, toyApiVersion('v1'));
    expect(spoke.metadata?.annotations).toEqual({ [toyAnnotation]: '{"color":"red"}' });
    expect(convertObject(contract, spoke, toyApiVersion('v2'))).toEqual(hub);
  });

  it('does not modify its input', () => {
    const hub = Object.freeze(toy('v2', Object.freeze({ size: 3, color: 'red' })));
    const copy = structuredClone(hub);
    convertObject(contract, hub, toyApiVersion('v0'));
    expect(hub).toEqual(copy);
  });

  it('refuses an apiVersion the contract does not declare, naming the object and the versions', () => {
    const error = expectCode(
      () => convertObject(contract, toy('v1', {}), `${toyApiVersion('v1')}beta9`),
      'UNKNOWN_VERSION',
    );
    expect(error.message).toContain('nursery/teddy');
    expect(error.message).toContain(
      'toy.example.com/v1beta9 is not a version of toys.toy.example.com (versions: v2, v1, v0)',
    );
    expectCode(
      () => convertObject(contract, { ...toy('v1', {}), apiVersion: 'toy.example.com/v7' }, toyApiVersion('v2')),
      'UNKNOWN_VERSION',
    );
    expectCode(
      () => convertObject(contract, { ...toy('v1', {}), apiVersion: undefined }, toyApiVersion('v2')),
      'UNKNOWN_VERSION',
    );
  });

  it('refuses another group or kind', () => {
    expectCode(() => convertObject(contract, toy('v1', {}), 'other.example.com/v2'), 'WRONG_GROUP');
    expectCode(
      () => convertObject(contract, { ...toy('v1', {}), apiVersion: 'v1' }, toyApiVersion('v2')),
      'WRONG_GROUP',
    );
    expectCode(() => convertObject(contract, { ...toy('v1', {}), kind: 'Robot' }, toyApiVersion('v2')), 'WRONG_KIND');
  });

  it('reports a conversion that throws as CONVERSION_FAILED, naming the object and both versions', () => {
    const failing = toyContract({
      v1: {
        toHub: () => {
          throw new Error('spec.length must be a number');
        },
        fromHub: (hub) => hub,
      },
    });
    const error = expectCode(() => convertObject(failing, toy('v1', {}), toyApiVersion('v0')), 'CONVERSION_FAILED');
    expect(error.message).toBe(
      'cannot convert Toy nursery/teddy from toy.example.com/v1 to toy.example.com/v0: spec.length must be a number',
    );
    expect(error.cause).toBeInstanceOf(Error);
  });

  describe('guards against contract bugs the API server would reject', () => {
    const breaking = (change: (object: KubeObject) => KubeObject) =>
      toyContract({
        v1: { toHub: (object) => change({ ...object, apiVersion: toyApiVersion('v2') }), fromHub: (hub) => hub },
      });

    it.each([
      [
        'the apiVersion',
        (object: KubeObject) => ({ ...object, apiVersion: toyApiVersion('v1') }),
        'returned apiVersion toy.example.com/v1',
      ],
      ['the kind', (object: KubeObject) => ({ ...object, kind: 'Robot' }), 'changed the kind from Toy to Robot'],
      [
        'the name',
        (object: KubeObject) => ({ ...object, metadata: { ...object.metadata, name: 'other' } }),
        'changed metadata.name',
      ],
      [
        'the namespace',
        (object: KubeObject) => ({ ...object, metadata: { ...object.metadata, namespace: undefined } }),
        'changed metadata.namespace',
      ],
      [
        'the uid',
        (object: KubeObject) => ({ ...object, metadata: { ...object.metadata, uid: 'uid-2' } }),
        'changed metadata.uid',
      ],
      [
        'other metadata',
        (object: KubeObject) => ({ ...object, metadata: { ...object.metadata, finalizers: ['x'] } }),
        'changed metadata.finalizers',
      ],
    ])('fails with INVALID_CONVERSION_RESULT when a conversion changes %s', (_what, change, message) => {
      const error = expectCode(
        () => convertObject(breaking(change), toy('v1', {}), toyApiVersion('v2')),
        'INVALID_CONVERSION_RESULT',
      );
      expect(error.message).toContain('Toy nursery/teddy');
      expect(error.message).toContain(message);
    });

    it('lets labels and annotations change', () => {
      const relabelling = breaking((object) => ({
        ...object,
        metadata: { ...object.metadata, labels: {}, annotations: { x: 'y' } },
      }));
      expect(convertObject(relabelling, toy('v1', {}), toyApiVersion('v2')).metadata?.annotations).toEqual({ x: 'y' });
    });
  });

  it('fails with STASH_TOO_LARGE when the stash does not fit next to annotations near the 256 KiB limit', () => {
    const hub = toy('v2', { size: 1, color: 'red' });
    const nearlyFull = { ...hub, metadata: { ...hub.metadata, annotations: { big: 'x'.repeat(256 * 1024 - 20) } } };
    const error = expectCode(() => convertObject(contract, nearlyFull, toyApiVersion('v1')), 'STASH_TOO_LARGE');
    expect(error.message).toContain('Toy nursery/teddy');
    // Without anything to stash, the same object converts.
    const nothingLost = { ...nearlyFull, spec: { size: 1 } };
    expect(convertObject(contract, nothingLost, toyApiVersion('v1')).metadata?.annotations).toEqual(
      nearlyFull.metadata.annotations,
    );
  });
});

describe('toHub', () => {
  it('converts to the contract hub', () => {
    expect(toHub(toyContract(), toy('v0', { len: 2 })).apiVersion).toBe(toyApiVersion('v2'));
  });
});

describe('convertObject of a contract that does not own its CRD', () => {
  it("refuses a version the contract has no conversion of: the CRD's owner converts it", async () => {
    const { geoDatabaseContract } = await import('../contracts/geodatabase/index.ts');
    const { defineContract } = await import('../contract/define-contract.ts');
    const { conversionAnnotation: _stash, ...geo } = geoDatabaseContract();
    const external = defineContract({ ...geo, conversions: {}, crdOwner: 'external' });
    const object = { apiVersion: 'geo.example.com/v1beta1', kind: 'GeoDatabase', metadata: { name: 'g' }, spec: {} };
    expect(() => convertObject(external, object, 'geo.example.com/v1')).toThrow(
      expect.objectContaining({ code: 'CONVERTED_BY_OWNER' }),
    );
    const hub = { ...object, apiVersion: 'geo.example.com/v1' };
    expect(convertObject(external, hub, 'geo.example.com/v1')).toBe(hub);
  });
});
