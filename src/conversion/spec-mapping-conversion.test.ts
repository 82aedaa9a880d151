import { describe, expect, it } from 'vitest';
import { defineContract } from '../contract/define-contract.ts';
import { convertObject } from './convert-object.ts';
import { presentFields } from './lossless-fields.ts';
import { specMappingConversion } from './spec-mapping-conversion.ts';
import { toy, toyAnnotation, toyApiVersion, toyContract } from './toy-contract.fixture.ts';

const annotation = 'toy.example.com/conversion-data';

// The spoke calls size `length` and cannot hold the color. The mapping trusts the stash for the size, as one that
// restores an exact spelling does, so a stash written for another object can contradict the spoke.
// What convertObject passes in from the contract.
const context = { hubApiVersion: 'toy.example.com/v2', spokeApiVersion: 'toy.example.com/v1', annotation };

const conversion = specMappingConversion({
  mapping: {
    down: (hub) => ({
      spec: presentFields({ length: hub.size }),
      lost: presentFields({ color: hub.color, size: hub.size === 0 ? 0 : undefined }),
    }),
    up: (spoke, lost) => presentFields({ color: lost?.color, size: lost?.size ?? spoke.length }),
  },
});

const spoke = (spec: unknown, annotations?: Record<string, string>) => ({
  apiVersion: 'toy.example.com/v1',
  kind: 'Toy',
  metadata: { name: 't', ...(annotations ? { annotations } : {}) },
  ...(spec === undefined ? {} : { spec }),
  status: { ok: true },
});

describe('specMappingConversion', () => {
  it('converts the spec and carries everything else as it is', () => {
    const object = spoke({ length: 2 });
    const hub = conversion.toHub(object, context);
    expect(hub).toEqual({ ...object, apiVersion: 'toy.example.com/v2', spec: { size: 2 } });
    expect(hub.status).toBe(object.status);
    expect(hub.metadata).toBe(object.metadata);
  });

  it('converts objects without a spec, or with a spec that is not an object, leaving it alone', () => {
    expect(conversion.toHub(spoke(undefined), context)).toEqual({
      ...spoke(undefined),
      apiVersion: 'toy.example.com/v2',
    });
    expect(conversion.toHub(spoke('odd'), context).spec).toBe('odd');
    const hub = { ...spoke(null), apiVersion: 'toy.example.com/v2' };
    expect(conversion.fromHub(hub, context)).toEqual({ ...hub, apiVersion: 'toy.example.com/v1' });
  });

  it('stashes what the spoke cannot show and puts it back', () => {
    const hub = { ...spoke({ size: 2, color: 'red' }), apiVersion: 'toy.example.com/v2' };
    const down = conversion.fromHub(hub, context);
    expect(down.spec).toEqual({ length: 2 });
    expect(down.metadata?.annotations).toEqual({ [annotation]: '{"color":"red"}' });
    expect(conversion.toHub(down, context)).toEqual(hub);
  });

  it('ignores a stash that contradicts what the spoke shows, as a whole', () => {
    // This stash would turn length 5 into size 0, which shows as length 0: it was not written for this object.
    const hub = conversion.toHub(spoke({ length: 5 }, { [annotation]: '{"color":"red","size":0}' }), context);
    expect(hub.spec).toEqual({ size: 5 });
    expect(hub.metadata?.annotations).toBeUndefined();
  });

  it('uses a stash that agrees with the spoke', () => {
    expect(conversion.toHub(spoke({ length: 0 }, { [annotation]: '{"color":"red","size":0}' }), context).spec).toEqual({
      size: 0,
      color: 'red',
    });
  });

  it('takes the apiVersions and the stash annotation from the contract, which must declare one', () => {
    const contract = toyContract();
    const converted = convertObject(contract, toy('v2', { size: 3, color: 'blue' }), toyApiVersion('v1'));
    expect(converted.apiVersion).toBe(toyApiVersion('v1'));
    expect(converted.metadata?.annotations).toEqual({ [toyAnnotation]: '{"color":"blue"}' });
    const { conversionAnnotation: _dropped, ...withoutAnnotation } = contract;
    expect(() => defineContract(withoutAnnotation)).toThrow(
      /the v1 conversion keeps what v1 cannot hold in the stash: set conversionAnnotation/,
    );
  });
});
