import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admissionReview, conversionReview, geoDatabase, validSpecs } from './support/reviews.ts';
import { startTestServer, type TestServer } from './support/test-server.ts';

// The defects, each sent as a client would, over real TLS to the real server.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const conditions = (count: number) => ({ conditions: Array.from({ length: count }, () => ({})) });

async function validate(review: ReturnType<typeof admissionReview>) {
  const answer = await server.post('/validate', review);
  expect(answer.status).toBe(200);
  const { response } = answer.json();
  expect(response.uid).toBe(review.request.uid);
  return { response, bytes: answer.text.length };
}

describe('1. bounded work for huge error lists', () => {
  it('answers 100,000 empty conditions (a 300 KB body) with a denial of a few KiB', async () => {
    const { response, bytes } = await validate(
      admissionReview('CREATE', geoDatabase('v1', validSpecs.v1, { status: conditions(100_000) })),
    );
    expect(response).toMatchObject({ allowed: false, status: { code: 422 } });
    expect(response.status.details.causes.length).toBeLessThanOrEqual(20);
    expect(bytes).toBeLessThan(16 * 1024);
  });

  it('refuses 2.3 million empty conditions (6.9 MB, under the 7 MiB limit) before parsing them, and keeps serving', async () => {
    const review = admissionReview('CREATE', geoDatabase('v1', validSpecs.v1, { status: conditions(2_300_000) }));
    expect(JSON.stringify(review).length).toBeLessThan(7 * 1024 * 1024);
    const answer = await server.post('/validate', review);
    // Parsing them took gigabytes; the API server reads the 413 as a failed call and refuses the write (fail closed).
    expect(answer.status).toBe(413);
    expect(answer.json().error.code).toBe('BODY_TOO_MANY_VALUES');
    expect((await validate(admissionReview('CREATE', geoDatabase('v1')))).response.allowed).toBe(true);
  });

  it('stops validating at the first error of an object with 400,000 empty conditions, and says so', async () => {
    const { response, bytes } = await validate(
      admissionReview('CREATE', geoDatabase('v1', validSpecs.v1, { status: conditions(400_000) })),
    );
    expect(response).toMatchObject({ allowed: false, status: { code: 422 } });
    expect(response.status.message).toContain('validation stopped at the first error');
    expect(bytes).toBeLessThan(16 * 1024);
  });

  it('answers 503 when the bodies being read at once would pass the in-flight budget, and serves again after', async () => {
    const small = await startTestServer({
      limits: { admissionBytes: 64 * 1024, conversionBytes: 64 * 1024, inFlightBytes: 64 * 1024 },
    });
    try {
      const held = small.holdOpen('/validate', 64 * 1024 - 100);
      await held.written;
      const busy = await small.post('/validate', admissionReview('CREATE', geoDatabase('v1')));
      expect(busy.status).toBe(503);
      expect(busy.json().error.code).toBe('SERVER_BUSY');
      expect((await held.finish()).status).toBe(400);
      expect(
        (await small.post('/validate', admissionReview('CREATE', geoDatabase('v1')))).json().response.allowed,
      ).toBe(true);
    } finally {
      await small.stop();
    }
  });
});

describe('2. no fail-open when an older-version object cannot be converted', () => {
  it('denies a downgrade to an unsupported major next to an unchanged conversion blocker', async () => {
    const old = geoDatabase('v1alpha1', { ...validSpecs.v1alpha1, storageGB: 1.5 });
    const updated = geoDatabase('v1alpha1', { ...validSpecs.v1alpha1, storageGB: 1.5, postgresVersion: '12.1' });
    expect((await validate(admissionReview('UPDATE', updated, old))).response.allowed).toBe(false);
  });
});

describe('3. ratcheting compares hub paths in the hub', () => {
  it('denies cacheMB 1 -> 2 (below the minimum) in v1alpha1 as it denies the same change in v1', async () => {
    const old = geoDatabase('v1alpha1', { ...validSpecs.v1alpha1, cacheMB: 1 });
    const updated = geoDatabase('v1alpha1', { ...validSpecs.v1alpha1, cacheMB: 2 });
    const { response } = await validate(admissionReview('UPDATE', updated, old));
    expect(response).toMatchObject({ allowed: false, status: { code: 422 } });
  });
});

describe('4. ratcheting finds fields whose names need escaping', () => {
  it.each([['1'], ['a]b'], ['\u0007bell'], ['n'.repeat(70)]])(
    'denies changing spec[%j] as it denies spec.colour',
    async (name) => {
      const old = geoDatabase('v1', { ...validSpecs.v1, [name]: 'a' });
      const updated = geoDatabase('v1', { ...validSpecs.v1, [name]: 'b' });
      expect((await validate(admissionReview('UPDATE', updated, old))).response.allowed).toBe(false);
    },
  );
});

describe('5. protocol corners', () => {
  it('refuses /convert of labels nested 6,000 levels deep as malformed (a label is a string), without walking them', async () => {
    // Written as text: JSON.stringify itself overflows the stack on such a value.
    const labels = `${'{"a":'.repeat(6000)}"x"${'}'.repeat(6000)}`;
    const review = conversionReview('geo.example.com/v1', [
      geoDatabase('v1alpha1', validSpecs.v1alpha1, { metadata: { name: 'db', labels: {} } }),
    ]);
    const answer = await server.post('/convert', undefined, {
      raw: JSON.stringify(review).replace('"labels":{}', `"labels":${labels}`),
    });
    expect(answer.status).toBe(400);
    expect(answer.json().error.code).toBe('REVIEW_MALFORMED');
  });

  it('lets a v1alpha1 object that cannot be converted be deleted, unless it is deletion-protected', async () => {
    const broken = geoDatabase('v1alpha1', { ...validSpecs.v1alpha1, storageGB: 1.5 });
    expect((await validate(admissionReview('DELETE', null, broken))).response.allowed).toBe(true);
    const guarded = {
      ...broken,
      metadata: { name: 'db', annotations: { 'geo.example.com/deletion-protection': 'true' } },
    };
    expect((await validate(admissionReview('DELETE', null, guarded))).response).toMatchObject({
      allowed: false,
      status: { code: 403 },
    });
  });

  it.each([['name'], ['namespace'], ['subResource']])('reads null in request.%s as not set', async (field) => {
    const { response } = await validate(
      admissionReview('CREATE', geoDatabase('v1'), null, { extra: { [field]: null } }),
    );
    expect(response.allowed).toBe(true);
  });
});

describe('6. metadata of the wrong type is a malformed review, not a decision that throws', () => {
  it.each([
    ['name', 7],
    ['namespace', ['maps']],
    ['labels', { team: 1 }],
    ['annotations', { 'geo.example.com/deletion-protection': true }],
  ])('answers 400 REVIEW_MALFORMED to a denied object whose metadata.%s is %j', async (field, value) => {
    const broken = geoDatabase(
      'v1',
      { ...validSpecs.v1, readReplicas: 99 },
      { metadata: { name: 'db', [field]: value } },
    );
    for (const review of [admissionReview('CREATE', broken), admissionReview('DELETE', null, broken)]) {
      const answer = await server.post('/validate', review);
      expect(answer.status).toBe(400);
      expect(answer.json().error.code).toBe('REVIEW_MALFORMED');
    }
    const converted = await server.post('/convert', conversionReview('geo.example.com/v1alpha1', [broken]));
    expect(converted.status).toBe(400);
    expect(converted.json().error.code).toBe('REVIEW_MALFORMED');
  });
});
