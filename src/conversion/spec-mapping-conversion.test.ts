import { describe, expect, it } from 'vitest';
import { presentFields } from './lossless-fields.ts';
import { specMappingConversion } from './spec-mapping-conversion.ts';

const annotation = 'toy.example.com/conversion-data';

// The spoke calls size `length` and cannot hold the color. The mapping trusts the stash for the size, as one that
// restores an exact spelling does, so a stash written for another object can contradict the spoke.
const conversion = specMappingConversion({
  hubApiVersion: 'toy.example.com/v2',
  spokeApiVersion: 'toy.example.com/v1',
  annotation,
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
    const hub = conversion.toHub(object);
    expect(hub).toEqual({ ...object, apiVersion: 'toy.example.com/v2', spec: { size: 2 } });
    expect(hub.status).toBe(object.status);
    expect(hub.metadata).toBe(object.metadata);
  });

  it('converts objects without a spec, or with a spec that is not an object, leaving it alone', () => {
    expect(conversion.toHub(spoke(undefined))).toEqual({ ...spoke(undefined), apiVersion: 'toy.example.com/v2' });
    expect(conversion.toHub(spoke('odd')).spec).toBe('odd');
    const hub = { ...spoke(null), apiVersion: 'toy.example.com/v2' };
    expect(conversion.fromHub(hub)).toEqual({ ...hub, apiVersion: 'toy.example.com/v1' });
  });

  it('stashes what the spoke cannot show and puts it back', () => {
    const hub = { ...spoke({ size: 2, color: 'red' }), apiVersion: 'toy.example.com/v2' };
    const down = conversion.fromHub(hub);
    expect(down.spec).toEqual({ length: 2 });
    expect(down.metadata?.annotations).toEqual({ [annotation]: '{"color":"red"}' });
    expect(conversion.toHub(down)).toEqual(hub);
  });

  it('ignores a stash that contradicts what the spoke shows, as a whole', () => {
    // This stash would turn length 5 into size 0, which shows as length 0: it was not written for this object.
    const hub = conversion.toHub(spoke({ length: 5 }, { [annotation]: '{"color":"red","size":0}' }));
    expect(hub.spec).toEqual({ size: 5 });
    expect(hub.metadata?.annotations).toBeUndefined();
  });

  it('uses a stash that agrees with the spoke', () => {
    expect(conversion.toHub(spoke({ length: 0 }, { [annotation]: '{"color":"red","size":0}' })).spec).toEqual({ size: 0, color: 'red' });
  });
});
