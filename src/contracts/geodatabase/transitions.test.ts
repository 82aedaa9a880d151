import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../index.ts';
import { checkMachine, contractTester, evaluateTransition, type ChangeRuling } from '../../testing.ts';
import type { GeoDatabaseChange, GeoDatabaseState } from './transitions.ts';
import { geoDatabaseContract } from './index.ts';
import { geoDatabaseMachine } from './transitions.ts';
import type { CacheV1, SpecV1 } from './types.ts';

// The expectations below are written out by hand from GeoDatabase's lifecycle as specified, not derived from the machine:
// a slip in the machine's data has to disagree with this file to get through.

const baseSpec: SpecV1 = {
  postgres: { version: '16.4', postgis: '3.4.2' },
  readReplicas: 2,
  storage: { size: '20Gi', storageClassName: 'ssd' },
  caches: [{ name: 'tiles', version: '7.2', memory: '2Gi', replicas: 1 }],
};

function edited(edit: (spec: SpecV1 & { caches: CacheV1[] }) => void): SpecV1 {
  const spec = structuredClone(baseSpec) as SpecV1 & { caches: CacheV1[] };
  edit(spec);
  return spec;
}

function tiles(spec: { caches: CacheV1[] }): CacheV1 {
  return spec.caches[0]!;
}

/** A stored GeoDatabase in `state`; Pending has no status at all, Deleting is a deletion in progress. */
function storedIn(state: GeoDatabaseState, spec: SpecV1 = baseSpec): KubeObject {
  const metadata = {
    name: 'maps',
    namespace: 'gis',
    ...(state === 'Deleting' ? { deletionTimestamp: '2025-06-01T12:00:00Z' } : {}),
  };
  const status = state === 'Pending' ? {} : { status: { phase: state === 'Deleting' ? 'Ready' : state } };
  return { apiVersion: 'geo.example.com/v1', kind: 'GeoDatabase', metadata, spec, ...status };
}

function updated(spec: SpecV1, annotations?: Record<string, string>): KubeObject {
  return {
    apiVersion: 'geo.example.com/v1',
    kind: 'GeoDatabase',
    metadata: { name: 'maps', namespace: 'gis', ...(annotations ? { annotations } : {}) },
    spec,
  };
}

const override = { 'geo.example.com/override-transitions': 'INC-1234: vendor-approved maintenance' };

/** One concrete update per change kind, with the field the change is reported at. */
const example: Record<GeoDatabaseChange, { field: string; spec: SpecV1 }> = {
  scale: { field: 'spec.readReplicas', spec: edited((s) => void (s.readReplicas = 3)) },
  'cache.add': {
    field: 'spec.caches[1]',
    spec: edited((s) => void s.caches.push({ name: 'sessions', memory: '1Gi' })),
  },
  'cache.remove': { field: 'spec.caches', spec: edited((s) => void (s.caches = [])) },
  'cache.resize': { field: 'spec.caches[0].memory', spec: edited((s) => void (tiles(s).memory = '4Gi')) },
  'storage.grow': { field: 'spec.storage.size', spec: edited((s) => void (s.storage!.size = '50Gi')) },
  'storage.shrink': { field: 'spec.storage.size', spec: edited((s) => void (s.storage!.size = '10Gi')) },
  'storage.class': {
    field: 'spec.storage.storageClassName',
    spec: edited((s) => void (s.storage!.storageClassName = 'hdd')),
  },
  'postgres.minor': { field: 'spec.postgres.version', spec: edited((s) => void (s.postgres!.version = '16.6')) },
  'postgres.major': { field: 'spec.postgres.version', spec: edited((s) => void (s.postgres!.version = '17.2')) },
  'postgres.downgrade': { field: 'spec.postgres.version', spec: edited((s) => void (s.postgres!.version = '16.2')) },
  'postgis.upgrade': { field: 'spec.postgres.postgis', spec: edited((s) => void (s.postgres!.postgis = '3.4.3')) },
  'postgis.major': { field: 'spec.postgres.postgis', spec: edited((s) => void (s.postgres!.postgis = '4.0.0')) },
  'postgis.downgrade': { field: 'spec.postgres.postgis', spec: edited((s) => void (s.postgres!.postgis = '3.4.1')) },
  'cache.upgrade': { field: 'spec.caches[0].version', spec: edited((s) => void (tiles(s).version = '7.4')) },
  'cache.major': { field: 'spec.caches[0].version', spec: edited((s) => void (tiles(s).version = '8.0')) },
  'cache.downgrade': { field: 'spec.caches[0].version', spec: edited((s) => void (tiles(s).version = '7.0')) },
};

// Cells: a state name = allowed, the operator is expected to move there; `stay` = allowed, no move;
// `no` = not allowed in this state; `U` = unsupported.
const stay = 'stay';
const no = 'no';
const U = 'unsupported';
type Cell = GeoDatabaseState | typeof stay | typeof no | typeof U;

const columns: GeoDatabaseState[] = [
  'Pending',
  'Provisioning',
  'Ready',
  'Scaling',
  'Resizing',
  'Upgrading',
  'Degraded',
  'Failed',
  'Deleting',
];

const expected: Record<GeoDatabaseChange, { cells: Cell[]; allowedIn?: GeoDatabaseState[] }> = {
  //                        Pending  Provisioning  Ready        Scaling  Resizing  Upgrading  Degraded    Failed  Deleting
  scale: {
    cells: [stay, stay, 'Scaling', stay, stay, no, 'Scaling', no, no],
    allowedIn: ['Provisioning', 'Ready', 'Scaling', 'Resizing', 'Degraded'],
  },
  'cache.add': {
    cells: [stay, stay, 'Scaling', stay, no, no, no, no, no],
    allowedIn: ['Provisioning', 'Ready', 'Scaling'],
  },
  'cache.remove': {
    cells: [stay, stay, 'Scaling', stay, no, no, no, no, no],
    allowedIn: ['Provisioning', 'Ready', 'Scaling'],
  },
  'cache.resize': {
    cells: [stay, stay, 'Scaling', stay, no, no, no, no, no],
    allowedIn: ['Provisioning', 'Ready', 'Scaling'],
  },
  'storage.grow': { cells: [stay, no, 'Resizing', no, no, no, 'Resizing', no, no], allowedIn: ['Ready', 'Degraded'] },
  'storage.shrink': { cells: [stay, U, U, U, U, U, U, U, U] },
  'storage.class': { cells: [stay, U, U, U, U, U, U, U, U] },
  'postgres.minor': { cells: [stay, no, 'Upgrading', no, no, no, no, no, no], allowedIn: ['Ready'] },
  'postgres.major': { cells: [stay, U, U, U, U, U, U, U, U] },
  'postgres.downgrade': { cells: [stay, U, U, U, U, U, U, U, U] },
  'postgis.upgrade': { cells: [stay, no, 'Upgrading', no, no, no, no, no, no], allowedIn: ['Ready'] },
  'postgis.major': { cells: [stay, U, U, U, U, U, U, U, U] },
  'postgis.downgrade': { cells: [stay, U, U, U, U, U, U, U, U] },
  'cache.upgrade': { cells: [stay, no, 'Upgrading', no, no, no, no, no, no], allowedIn: ['Ready'] },
  'cache.major': { cells: [stay, U, U, U, U, U, U, U, U] },
  'cache.downgrade': { cells: [stay, U, U, U, U, U, U, U, U] },
};

const matrix = (Object.keys(expected) as GeoDatabaseChange[]).flatMap((kind) =>
  columns.map((state, column) => ({
    kind,
    state,
    cell: expected[kind].cells[column]!,
    allowedIn: expected[kind].allowedIn,
  })),
);

describe('GeoDatabase transitions: every state x every change kind', () => {
  it('covers every state and change kind of the machine', () => {
    expect(new Set(columns)).toEqual(new Set(geoDatabaseMachine.states));
    expect(new Set(Object.keys(expected))).toEqual(new Set(Object.keys(geoDatabaseMachine.changeKinds)));
  });

  it.each(matrix)('$kind in $state: $cell', ({ kind, state, cell, allowedIn }) => {
    const { field, spec } = example[kind];
    const decision = evaluateTransition(geoDatabaseMachine, storedIn(state), updated(spec));
    expect(decision.state).toEqual({ recognised: true, state });
    expect(decision.changes.map(({ change }) => [change.kind, change.field])).toEqual([[kind, field]]);
    const ruling = decision.changes[0]!.ruling;

    if (cell === U) {
      expect(ruling).toEqual({ outcome: 'unsupported', reason: expect.any(String) });
      expect(decision.denials).toEqual([
        { field, type: 'FieldValueForbidden', message: expect.stringMatching(/ is unsupported: .+/) },
      ]);
    } else if (cell === no) {
      expect(ruling).toEqual<ChangeRuling<GeoDatabaseState, GeoDatabaseChange>>({
        outcome: 'not-allowed',
        allowedIn: allowedIn!,
      });
      expect(decision.denials).toEqual([
        {
          field,
          type: 'FieldValueForbidden',
          message: expect.stringContaining(
            `is not allowed while the database is ${state} (allowed in: ${allowedIn!.join(', ')})`,
          ),
        },
      ]);
    } else {
      expect(ruling).toEqual({ outcome: 'allowed', nextState: cell === stay ? state : cell });
      expect(decision.denials).toEqual([]);
    }
    expect(decision.allowed).toBe(cell !== U && cell !== no);
  });
});

describe('GeoDatabase transitions: state', () => {
  it('reads an absent phase, and an explicit Pending, as Pending', () => {
    const withPhase = { ...storedIn('Pending'), status: { phase: 'Pending' } };
    for (const old of [storedIn('Pending'), withPhase]) {
      const decision = evaluateTransition(geoDatabaseMachine, old, updated(example['storage.shrink'].spec));
      expect(decision.state).toEqual({ recognised: true, state: 'Pending' });
      expect(decision.allowed).toBe(true);
    }
  });

  it('reads a set deletionTimestamp as Deleting, whatever the phase', () => {
    const old = storedIn('Deleting');
    expect(old.status).toEqual({ phase: 'Ready' });
    const decision = evaluateTransition(geoDatabaseMachine, old, updated(example.scale.spec));
    expect(decision.state).toEqual({ recognised: true, state: 'Deleting' });
    expect(decision.denials[0]?.message).toContain('while the database is Deleting');
  });

  it('allows metadata-only updates in every state, Deleting included (finalizers are removed that way)', () => {
    for (const state of columns) {
      const decision = evaluateTransition(geoDatabaseMachine, storedIn(state), updated(baseSpec, { team: 'gis' }));
      expect(decision).toMatchObject({ allowed: true, changes: [], warnings: [] });
    }
  });
});

describe('GeoDatabase transitions: messages', () => {
  it('words the two example denials of the specification exactly', () => {
    const shrink = evaluateTransition(
      geoDatabaseMachine,
      storedIn('Ready'),
      updated(edited((s) => void (s.storage!.size = '10Gi'))),
    );
    expect(shrink.denials).toEqual([
      {
        field: 'spec.storage.size',
        type: 'FieldValueForbidden',
        message: 'shrinking storage from 20Gi to 10Gi is unsupported: volumes cannot shrink',
      },
    ]);
    const minor = evaluateTransition(
      geoDatabaseMachine,
      storedIn('Upgrading'),
      updated(example['postgres.minor'].spec),
    );
    expect(minor.denials).toEqual([
      {
        field: 'spec.postgres.version',
        type: 'FieldValueForbidden',
        message: 'minor upgrade 16.4 -> 16.6 is not allowed while the database is Upgrading (allowed in: Ready)',
      },
    ]);
  });

  it('names the cache a change is about', () => {
    const decision = evaluateTransition(
      geoDatabaseMachine,
      storedIn('Upgrading'),
      updated(example['cache.resize'].spec),
    );
    expect(decision.denials[0]?.message).toMatch(/^resizing cache "tiles" from 2Gi to 4Gi is not allowed/);
  });
});

describe('GeoDatabase transitions: exclusive changes', () => {
  const growAndMinor = edited((s) => {
    s.storage!.size = '50Gi';
    s.postgres!.version = '16.6';
  });

  it('refuses two exclusive changes in one update', () => {
    const decision = evaluateTransition(geoDatabaseMachine, storedIn('Ready'), updated(growAndMinor));
    expect(decision.allowed).toBe(false);
    expect(decision.changes.map(({ ruling }) => ruling.outcome)).toEqual(['exclusive-conflict', 'exclusive-conflict']);
    expect(decision.denials.map((denial) => denial.field)).toEqual(['spec.storage.size', 'spec.postgres.version']);
  });

  it('refuses upgrading two components at once', () => {
    const spec = edited((s) => {
      s.postgres!.postgis = '3.4.3';
      tiles(s).version = '7.4';
    });
    expect(evaluateTransition(geoDatabaseMachine, storedIn('Ready'), updated(spec)).allowed).toBe(false);
  });

  it('refuses upgrading two caches at once: at most one exclusive change per update', () => {
    const twoCaches = edited((s) => void s.caches.push({ name: 'sessions', version: '7.2', memory: '1Gi' }));
    const bothUpgraded = structuredClone(twoCaches);
    for (const cache of bothUpgraded.caches!) cache.version = '7.4';
    const decision = evaluateTransition(geoDatabaseMachine, storedIn('Ready', twoCaches), updated(bothUpgraded));
    expect(decision.changes.map(({ change, ruling }) => [change.kind, ruling.outcome])).toEqual([
      ['cache.upgrade', 'exclusive-conflict'],
      ['cache.upgrade', 'exclusive-conflict'],
    ]);
  });

  it.each<[GeoDatabaseState, GeoDatabaseState]>([
    ['Ready', 'Resizing'],
    ['Degraded', 'Resizing'],
  ])('allows an exclusive change with a scale in %s, where both are allowed', (state, growTarget) => {
    const spec = edited((s) => {
      s.storage!.size = '50Gi';
      s.readReplicas = 4;
    });
    const decision = evaluateTransition(geoDatabaseMachine, storedIn(state), updated(spec));
    expect(decision.allowed).toBe(true);
    expect(decision.changes.map(({ change, ruling }) => [change.kind, ruling])).toEqual([
      ['scale', { outcome: 'allowed', nextState: 'Scaling' }],
      ['storage.grow', { outcome: 'allowed', nextState: growTarget }],
    ]);
  });

  it('allows combining anything while Pending: nothing is provisioned to disrupt', () => {
    expect(evaluateTransition(geoDatabaseMachine, storedIn('Pending'), updated(growAndMinor)).allowed).toBe(true);
  });

  it('says "not allowed" rather than "conflict" where the state allows neither', () => {
    const decision = evaluateTransition(geoDatabaseMachine, storedIn('Resizing'), updated(growAndMinor));
    expect(decision.changes.map(({ ruling }) => ruling.outcome)).toEqual(['not-allowed', 'not-allowed']);
  });

  it('judges a major upgrade next to a scale on its own', () => {
    const spec = edited((s) => {
      s.postgres!.version = '17.0';
      s.readReplicas = 4;
    });
    const decision = evaluateTransition(geoDatabaseMachine, storedIn('Ready'), updated(spec));
    expect(decision.changes.map(({ change, ruling }) => [change.kind, ruling.outcome])).toEqual([
      ['scale', 'allowed'],
      ['postgres.major', 'unsupported'],
    ]);
    expect(decision.denials.map((denial) => denial.field)).toEqual(['spec.postgres.version']);
  });
});

describe('GeoDatabase transitions: the override annotation', () => {
  it('lets a supported change through a state that forbids it, with a warning and an audit annotation', () => {
    const decision = evaluateTransition(
      geoDatabaseMachine,
      storedIn('Upgrading'),
      updated(example.scale.spec, override),
    );
    expect(decision.allowed).toBe(true);
    expect(decision.changes[0]?.ruling).toEqual({
      outcome: 'overridden',
      allowedIn: ['Provisioning', 'Ready', 'Scaling', 'Resizing', 'Degraded'],
    });
    expect(decision.warnings).toEqual([
      expect.stringMatching(
        /^geo\.example\.com\/override-transitions: overriding scale while the database is Upgrading; reason: "INC-1234/,
      ),
    ]);
    expect(decision.auditAnnotations).toEqual({
      'override-transitions': expect.stringMatching(
        /scale at spec\.readReplicas \(changing read replicas from 2 to 3\).*INC-1234/,
      ),
    });
  });

  it('gets a Failed database moving again', () => {
    const decision = evaluateTransition(
      geoDatabaseMachine,
      storedIn('Failed'),
      updated(example['storage.grow'].spec, override),
    );
    expect(decision.allowed).toBe(true);
    expect(decision.changes[0]?.ruling.outcome).toBe('overridden');
  });

  it.each(['storage.shrink', 'storage.class', 'postgres.major', 'cache.downgrade'] as const)(
    'never lifts %s, which is unsupported',
    (kind) => {
      const decision = evaluateTransition(geoDatabaseMachine, storedIn('Ready'), updated(example[kind].spec, override));
      expect(decision.allowed).toBe(false);
      expect(decision.changes[0]?.ruling.outcome).toBe('unsupported');
      expect(decision.auditAnnotations).toEqual({});
    },
  );

  it('does not lift an exclusive conflict', () => {
    const spec = edited((s) => {
      s.storage!.size = '50Gi';
      s.postgres!.version = '16.6';
    });
    expect(evaluateTransition(geoDatabaseMachine, storedIn('Ready'), updated(spec, override)).allowed).toBe(false);
  });
});

describe('GeoDatabase transitions: classification', () => {
  function kindsOf(oldSpec: unknown, newSpec: unknown): string[] {
    const decision = evaluateTransition(
      geoDatabaseMachine,
      { spec: oldSpec, status: { phase: 'Ready' } },
      { spec: newSpec },
    );
    return decision.changes.map(({ change }) => change.kind);
  }

  it('sees no change when a default is written out', () => {
    const { readReplicas: _, caches: __, ...sparse } = baseSpec;
    expect(kindsOf(sparse, { ...sparse, readReplicas: 0, caches: [] })).toEqual([]);
    const sparseCache = { ...baseSpec, caches: [{ name: 'tiles', memory: '2Gi' }] };
    expect(kindsOf(sparseCache, baseSpec)).toEqual([]);
    expect(kindsOf(baseSpec, sparseCache)).toEqual([]);
  });

  it('measures a change from the default', () => {
    const { readReplicas: _, ...sparse } = baseSpec;
    expect(kindsOf(sparse, { ...sparse, readReplicas: 1 })).toEqual(['scale']);
    expect(
      kindsOf(
        { ...baseSpec, caches: [{ name: 'tiles', memory: '2Gi' }] },
        edited((s) => void (tiles(s).version = '7.4')),
      ),
    ).toEqual(['cache.upgrade']);
  });

  it('compares versions numerically', () => {
    const on = (version: string) => edited((s) => void (s.postgres!.version = version));
    expect(kindsOf(on('16.9'), on('16.10'))).toEqual(['postgres.minor']);
    expect(kindsOf(on('16.10'), on('16.9'))).toEqual(['postgres.downgrade']);
    expect(kindsOf(on('16.4'), on('17.0'))).toEqual(['postgres.major']);
    expect(kindsOf(on('17.0'), on('16.9'))).toEqual(['postgres.downgrade']);
  });

  it('tells PostGIS minor and patch upgrades from major ones', () => {
    const on = (postgis: string) => edited((s) => void (s.postgres!.postgis = postgis));
    expect(kindsOf(on('3.4.2'), on('3.5.0'))).toEqual(['postgis.upgrade']);
    expect(kindsOf(on('3.4.2'), on('3.4.10'))).toEqual(['postgis.upgrade']);
    expect(kindsOf(on('3.5.0'), on('3.4.9'))).toEqual(['postgis.downgrade']);
  });

  it('compares sizes as quantities, not strings', () => {
    const sized = (size: string) => edited((s) => void (s.storage!.size = size));
    expect(kindsOf(sized('2Gi'), sized('2048Mi'))).toEqual([]);
    expect(kindsOf(sized('1Gi'), sized('1025Mi'))).toEqual(['storage.grow']);
    expect(kindsOf(sized('1G'), sized('1Gi'))).toEqual(['storage.grow']);
    expect(kindsOf(sized('1Gi'), sized('1G'))).toEqual(['storage.shrink']);
  });

  it('counts setting, changing and removing the storage class', () => {
    const { storageClassName: _, ...classless } = baseSpec.storage!;
    const withoutClass = { ...baseSpec, storage: classless };
    expect(kindsOf(withoutClass, baseSpec)).toEqual(['storage.class']);
    expect(kindsOf(baseSpec, withoutClass)).toEqual(['storage.class']);
  });

  it('matches caches by name', () => {
    const two = edited((s) => void s.caches.push({ name: 'sessions', version: '7.2', memory: '1Gi', replicas: 1 }));
    expect(kindsOf(two, { ...two, caches: [...two.caches!].reverse() })).toEqual([]);
    expect(
      kindsOf(
        baseSpec,
        edited((s) => void (tiles(s).name = 'tiles2')),
      ),
    ).toEqual(['cache.add', 'cache.remove']);
    expect(
      kindsOf(
        baseSpec,
        edited((s) => void (tiles(s).replicas = 2)),
      ),
    ).toEqual(['cache.resize']);
    expect(
      kindsOf(
        baseSpec,
        edited((s) => void (tiles(s).version = '8.0')),
      ),
    ).toEqual(['cache.major']);
  });
});

describe('GeoDatabase machine', () => {
  it('passes its own self-check', () => {
    expect(checkMachine(geoDatabaseMachine)).toEqual([]);
  });

  it('decides in the compiled contract: the machine refuses, and where it allows, the risky-change rule warns', () => {
    const tester = contractTester(geoDatabaseContract());
    const fewer = updated(edited((s) => void (s.readReplicas = 1)));
    const denied = tester.check(fewer, { oldObject: storedIn('Upgrading') });
    expect(denied.code).toBe('CHANGE_FORBIDDEN');
    expect(denied.causes).toEqual([expect.objectContaining({ field: 'spec.readReplicas' })]);
    const allowed = tester.check(fewer, { oldObject: storedIn('Ready') });
    expect(allowed.allowed).toBe(true);
    expect(allowed.warnings).toContain('spec.readReplicas: reducing read replicas from 2 to 1');
  });
});
