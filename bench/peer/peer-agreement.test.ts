import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture, startTestServer, type TestServer } from '../../test/integration/support/test-server.ts';
import { missingPrerequisite } from '../../test/missing-prerequisite.ts';
import { createKeepAliveAgent, post, type Target } from '../support/https-client.ts';
import type { ServerProcess } from '../server-process.ts';
import { resolvePeerBinary } from './peer-binary.ts';
import { startPeerProcess } from './peer-process.ts';

// The benchmark compares crdgate with the controller-runtime peer; that is only honest while both decide alike.
// Each review goes to both real servers over TLS, and both must answer as the case expects: allowed, or denied
// with 422 naming exactly these fields. The expected fields come from the GeoDatabase v1 rules, not from
// either server, so a rule that drifts in both at once still fails here.

// Built by the unit project's setup (test/tools/): a missing peer fails here under CI, naming that step.
const peerBinary = await resolvePeerBinary({ build: false });
const noPeer = missingPrerequisite(
  'the peer agreement tests (the controller-runtime peer cannot be built)',
  'unavailable' in peerBinary ? peerBinary.unavailable : undefined,
);

type Review = any;
type Edit = (object: any) => void;

interface Case {
  name: string;
  base: 'create-geodatabase.json' | 'create-geodatabase-invalid.json' | 'update-geodatabase.json';
  edit?: Edit;
  /** undefined: allowed; otherwise the fields the 422 must name. */
  deniedFields?: string[];
}

const spec: (edit: (spec: any) => void) => Edit = (edit) => (object) => edit(object.spec);
const cache = (name: string, memory: string) => ({ name, memory });

const cases: Case[] = [
  { name: 'a valid CREATE', base: 'create-geodatabase.json' },
  {
    name: 'a CREATE with many bad fields',
    base: 'create-geodatabase-invalid.json',
    deniedFields: [
      'spec.postgres.version',
      'spec.postgres.postgis',
      'spec.readReplicas',
      'spec.storage.size',
      'spec.caches[0].name',
      'spec.caches[1].memory',
      'spec.caches[1].replicas',
      'spec.caches',
      'spec.colour',
    ],
  },
  {
    name: 'PostgreSQL version not MAJOR.MINOR',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.postgres.version = '16')),
    deniedFields: ['spec.postgres.version'],
  },
  {
    name: 'PostgreSQL major below 13',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.postgres.version = '12.9')),
    deniedFields: ['spec.postgres.version'],
  },
  {
    name: 'PostgreSQL major above 17 (PostGIS 3.4 cannot follow)',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.postgres.version = '18.0')),
    deniedFields: ['spec.postgres.version', 'spec.postgres.postgis'],
  },
  {
    name: 'PostGIS version not MAJOR.MINOR.PATCH',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.postgres.postgis = '3.4')),
    deniedFields: ['spec.postgres.postgis'],
  },
  {
    name: 'PostGIS line unknown',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.postgres.postgis = '3.2.1')),
    deniedFields: ['spec.postgres.postgis'],
  },
  {
    name: 'PostGIS 3.3 with PostgreSQL 16',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.postgres.postgis = '3.3.4')),
    deniedFields: ['spec.postgres.postgis'],
  },
  {
    name: 'PostGIS 3.5 with PostgreSQL 17',
    base: 'create-geodatabase.json',
    edit: spec((s) => Object.assign(s.postgres, { version: '17.2', postgis: '3.5.1' })),
  },
  {
    name: 'readReplicas 16',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.readReplicas = 16)),
    deniedFields: ['spec.readReplicas'],
  },
  {
    name: 'readReplicas -1',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.readReplicas = -1)),
    deniedFields: ['spec.readReplicas'],
  },
  { name: 'readReplicas 15', base: 'create-geodatabase.json', edit: spec((s) => (s.readReplicas = 15)) },
  {
    name: 'storage below 1Gi',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.storage.size = '1023Mi')),
    deniedFields: ['spec.storage.size'],
  },
  { name: 'storage exactly 1Gi', base: 'create-geodatabase.json', edit: spec((s) => (s.storage.size = '1Gi')) },
  {
    name: 'storage size not a quantity',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.storage.size = 'lots')),
    deniedFields: ['spec.storage.size'],
  },
  {
    name: 'storageClassName empty',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.storage.storageClassName = '')),
    deniedFields: ['spec.storage.storageClassName'],
  },
  {
    name: 'storageClassName left out',
    base: 'create-geodatabase.json',
    edit: spec((s) => delete s.storage.storageClassName),
  },
  {
    name: 'storage missing',
    base: 'create-geodatabase.json',
    edit: spec((s) => delete s.storage),
    deniedFields: ['spec.storage'],
  },
  {
    name: 'nine caches',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches = Array.from({ length: 9 }, (_, i) => cache(`c${i}`, '1Gi')))),
    deniedFields: ['spec.caches'],
  },
  {
    name: 'a cache name used twice',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches = [cache('tiles', '1Gi'), cache('tiles', '1Gi')])),
    deniedFields: ['spec.caches[1]'],
  },
  {
    name: 'a cache name that is not a DNS-1123 label',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches[0].name = 'Tiles_1')),
    deniedFields: ['spec.caches[0].name'],
  },
  {
    name: 'a cache version not MAJOR.MINOR',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches[0].version = '7')),
    deniedFields: ['spec.caches[0].version'],
  },
  {
    name: 'cache memory below 64Mi',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches[0].memory = '63Mi')),
    deniedFields: ['spec.caches[0].memory'],
  },
  {
    name: 'cache memory above 64Gi (and so the total too)',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches[0].memory = '65Gi')),
    deniedFields: ['spec.caches[0].memory', 'spec.caches'],
  },
  {
    name: 'cache replicas 6',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches[0].replicas = 6)),
    deniedFields: ['spec.caches[0].replicas'],
  },
  {
    name: 'cache replicas 0',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches[0].replicas = 0)),
    deniedFields: ['spec.caches[0].replicas'],
  },
  {
    name: 'caches adding up to more than 64Gi',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches = [cache('a', '40Gi'), cache('b', '40Gi')])),
    deniedFields: ['spec.caches'],
  },
  {
    name: 'caches adding up to exactly 64Gi',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches = [cache('a', '32Gi'), cache('b', '32Gi')])),
  },
  {
    name: 'an unknown field in spec',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.colour = 'blue')),
    deniedFields: ['spec.colour'],
  },
  {
    name: 'an unknown field in a cache',
    base: 'create-geodatabase.json',
    edit: spec((s) => (s.caches[0].colour = 'blue')),
    deniedFields: ['spec.caches[0].colour'],
  },
  { name: 'a valid UPDATE', base: 'update-geodatabase.json' },
  {
    name: 'an UPDATE that breaks a rule',
    base: 'update-geodatabase.json',
    edit: spec((s) => (s.caches[0].memory = '32Mi')),
    deniedFields: ['spec.caches[0].memory'],
  },
];

interface Decision {
  allowed: boolean;
  code?: number;
  fields: string[];
}

async function decide(target: Target, review: Review): Promise<Decision> {
  const answer = await post(target, '/validate', Buffer.from(JSON.stringify(review)));
  expect(answer.status).toBe(200);
  const response = JSON.parse(answer.body.toString('utf8')).response;
  expect(response.uid).toBe(review.request.uid);
  const causes: Array<{ field?: string }> = response.status?.details?.causes ?? [];
  return {
    allowed: response.allowed,
    ...(response.allowed ? {} : { code: response.status?.code }),
    fields: [...new Set(causes.map((cause) => normalizeField(cause.field ?? '')))].sort(),
  };
}

/** Both write paths as field.Path does (spec.caches[0].name); this only trims what a writer might prefix. */
function normalizeField(field: string): string {
  return field.replace(/^\.+/, '').replace(/^object\./, '');
}

describe.skipIf(noPeer)('the controller-runtime peer, next to crdgate', () => {
  let crdgate: TestServer;
  let peer: ServerProcess;
  let crdgateTarget: Target;
  let peerTarget: Target;

  beforeAll(async () => {
    crdgate = await startTestServer();
    peer = await startPeerProcess((peerBinary as { path: string }).path, crdgate.certDir);
    crdgateTarget = { port: crdgate.port, agent: createKeepAliveAgent(crdgate.ca, 1) };
    peerTarget = { port: peer.port, agent: createKeepAliveAgent(crdgate.ca, 1) };
  }, 30_000);

  afterAll(async () => {
    crdgateTarget?.agent.destroy();
    peerTarget?.agent.destroy();
    await Promise.all([peer?.stop(), crdgate?.stop()]);
  });

  it.each(cases)('decides alike: $name', async ({ base, edit, deniedFields }) => {
    const review = await loadFixture(base);
    edit?.(review.request.object);
    const expected: Decision = deniedFields
      ? { allowed: false, code: 422, fields: [...deniedFields].sort() }
      : { allowed: true, fields: [] };
    expect({ crdgate: await decide(crdgateTarget, review), peer: await decide(peerTarget, review) }).toEqual({
      crdgate: expected,
      peer: expected,
    });
  });

  // The bench divides by this CPU time: a misread /proc field would make every peer figure wrong, not just noisy.
  it('is measured from /proc: CPU time of all its threads and resident memory', async () => {
    const before = await peer.sample();
    const review = await loadFixture('update-geodatabase.json');
    for (let i = 0; i < 300; i++) await decide(peerTarget, review);
    const after = await peer.sample();
    expect(before.rssBytes).toBeGreaterThan(4 * 1024 * 1024);
    expect(before.rssBytes).toBeLessThan(1024 * 1024 * 1024);
    expect(before.cpuMicros).toBeGreaterThan(0);
    expect(after.cpuMicros).toBeGreaterThan(before.cpuMicros);
    expect(after.atMs).toBeGreaterThan(before.atMs);
  });
});
