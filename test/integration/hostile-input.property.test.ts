import { Agent } from 'node:https';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  admissionReview,
  conversionReview,
  geoDatabase,
  servedVersions,
  validSpecs,
  type ServedVersion,
} from './support/reviews.ts';
import { startTestServer, type HttpAnswer, type TestServer } from './support/test-server.ts';

// Property-based hostile input against the running server over TLS: both review kinds, every endpoint, envelopes
// with wrong types, rule-breaking objects of every served version, UPDATE pairs, DELETE, status, huge and deep
// values, metadata of every JSON type, __proto__ keys, truncated and invalid UTF-8 bodies, chunked bodies, bodies at and over the limit.
// CRDGATE_FUZZ_RUNS=100000 runs longer; the default keeps CI fast.
const runs = Number(process.env['CRDGATE_FUZZ_RUNS'] ?? 10_000);
// Small limits, so that bodies at and over them are cheap to send thousands of times; the 7 MiB defaults are
// exercised in hostile-input.test.ts and measured in bench/hostile-memory.ts.
const bodyLimit = 256 * 1024;
const answerWithinMs = 5_000;

let server: TestServer;
let agent: Agent;
beforeAll(async () => {
  server = await startTestServer({ limits: { admissionBytes: bodyLimit, conversionBytes: bodyLimit } });
  agent = new Agent({ keepAlive: true, maxSockets: 1, ca: server.ca });
});
afterAll(async () => {
  agent.destroy();
  await server.stop();
});

type Expectation =
  /** A well-formed admission review: 200, its uid, and `allowed` as given (undefined: either). */
  | { kind: 'admission'; uid: string; webhook: 'validate' | 'mutate'; allowed?: boolean }
  | { kind: 'conversion'; uid: string; objects: number; desired: string }
  /** Refused at the protocol level with one of these statuses. */
  | { kind: 'refused'; statuses: number[] }
  /** Either a well-formed answer or a protocol refusal, as long as it is one (invalid UTF-8 may or may not matter). */
  | { kind: 'any-answer'; uid: string };

interface Case {
  label: string;
  path: string;
  body: string | Buffer;
  contentType?: string;
  chunked?: boolean;
  expect: Expectation;
}

const webhook = fc.constantFrom('validate' as const, 'mutate' as const);
const version = fc.constantFrom(...servedVersions);
const uid = fc.uuid();
// No NaN or Infinity: JSON would carry them as null, which an optional string may be.
const notAString = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant([]),
  fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 1 })),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const notAnObject = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.jsonValue({ maxDepth: 1 })));
const text = (value: unknown) => JSON.stringify(value);

/** A known way to break each version's rules, at a path the old (valid) object holds a different value. */
function breaking(versionName: ServedVersion): fc.Arbitrary<{ label: string; spec: Record<string, unknown> }> {
  const spec = validSpecs[versionName];
  const postgresPath =
    versionName === 'v1alpha1' ? { postgresVersion: '12.1' } : { postgres: { version: '12.1', postgis: '3.4.2' } };
  return fc.oneof(
    fc
      .string({ minLength: 1, maxLength: 80 })
      .filter((name) => !Object.hasOwn(spec, name))
      .map((name) => ({ label: `unknown field ${text(name)}`, spec: { ...spec, [name]: 1 } })),
    fc.constant({ label: 'unsupported postgres major', spec: { ...spec, ...postgresPath } }),
    notAString.map((value) => ({
      label: 'wrong type for postgres version',
      spec: {
        ...spec,
        ...(versionName === 'v1alpha1'
          ? { postgresVersion: value }
          : { postgres: { version: value, postgis: '3.4.2' } }),
      },
    })),
    fc.integer({ min: 16, max: 64 }).map((replicas) => ({
      label: 'too many replicas',
      spec: { ...spec, [versionName === 'v1' ? 'readReplicas' : 'replicas']: replicas },
    })),
    fc.integer({ min: 10_000, max: 200_000 }).map((length) => ({
      label: `huge version string (${length})`,
      spec: {
        ...spec,
        ...(versionName === 'v1alpha1'
          ? { postgresVersion: '1'.repeat(length) }
          : { postgres: { version: '1'.repeat(length), postgis: '3.4.2' } }),
      },
    })),
  );
}

const ruleBreakingWrite: fc.Arbitrary<Case> = fc
  .tuple(version, webhook, uid, fc.constantFrom('CREATE' as const, 'UPDATE' as const, 'status' as const))
  .chain(([v, hook, id, operation]) =>
    breaking(v).map(({ label, spec }): Case => {
      const valid = geoDatabase(v);
      const broken = geoDatabase(v, spec);
      if (operation === 'status') {
        // A status write carries the stored spec (the API server resets it before admission): crdgate judges the
        // status alone, so a spec stored broken (before the rule) does not stop the operator's status writes.
        // Both objects are sent, so a huge spec can pass this test's small body limit.
        const body = text(
          admissionReview('UPDATE', { ...broken, status: { phase: 'Ready' } }, broken, {
            uid: id,
            subResource: 'status',
          }),
        );
        const expectation: Expectation =
          Buffer.byteLength(body) > bodyLimit
            ? { kind: 'refused', statuses: [413] }
            : { kind: 'admission', uid: id, webhook: hook, ...(hook === 'validate' ? { allowed: true } : {}) };
        return { label: `${operation} ${v} ${label}`, path: `/${hook}`, body, expect: expectation };
      }
      const review =
        operation === 'CREATE'
          ? admissionReview('CREATE', broken, null, { uid: id })
          : admissionReview('UPDATE', broken, valid, { uid: id });
      // The old object was valid, so nothing can be tolerated: /validate must deny. /mutate decides nothing.
      return {
        label: `${operation} ${v} ${label}`,
        path: `/${hook}`,
        body: text(review),
        expect: { kind: 'admission', uid: id, webhook: hook, ...(hook === 'validate' ? { allowed: false } : {}) },
      };
    }),
  );

const deletion: fc.Arbitrary<Case> = fc
  .tuple(version, uid, fc.boolean(), fc.boolean())
  .map(([v, id, guarded, convertible]) => {
    const spec = convertible
      ? validSpecs[v]
      : { ...validSpecs[v], ...(v === 'v1alpha1' ? { storageGB: 1.5 } : { storage: { size: 'not a size' } }) };
    const annotations: Record<string, string> = guarded ? { 'geo.example.com/deletion-protection': 'true' } : {};
    const stored = geoDatabase(v, spec, { metadata: { name: 'db', namespace: 'maps', annotations } });
    return {
      label: `DELETE ${v} ${guarded ? 'protected' : 'unprotected'} ${convertible ? '' : 'unconvertible'}`,
      path: '/validate',
      body: text(admissionReview('DELETE', null, stored, { uid: id })),
      // v1alpha1's storageGB 1.5 cannot convert; a bad size in later versions converts. Either way only protection decides.
      expect: { kind: 'admission', uid: id, webhook: 'validate', allowed: !guarded },
    };
  });

/** A required envelope field replaced by a value of the wrong type: never a decision, always 400. */
const malformedAdmission: fc.Arbitrary<Case> = fc
  .tuple(
    webhook,
    uid,
    fc.constantFrom(
      'apiVersion',
      'kind',
      'request',
      'uid',
      'kind.group',
      'kind.version',
      'kind.kind',
      'operation',
      'object',
      'name',
      'namespace',
      'subResource',
    ),
    notAString,
    notAnObject,
  )
  .map(([hook, id, field, wrong, notObject]) => {
    const review = admissionReview('CREATE', geoDatabase('v1'), null, { uid: id }) as Record<string, any>;
    const request = review['request'];
    if (field === 'apiVersion' || field === 'kind') review[field] = wrong;
    else if (field === 'request') review['request'] = notObject;
    else if (field === 'object') request.object = notObject;
    else if (field.startsWith('kind.')) request.kind[field.slice(5)] = wrong;
    else request[field] = wrong;
    return {
      label: `admission with ${field} = ${text(wrong)}`,
      path: `/${hook}`,
      body: text(review),
      expect: { kind: 'refused', statuses: [400] },
    };
  });

const malformedConversion: fc.Arbitrary<Case> = fc
  .tuple(
    uid,
    fc.constantFrom('apiVersion', 'kind', 'request', 'uid', 'desiredAPIVersion', 'objects', 'objects[0]'),
    notAString,
    notAnObject,
  )
  .map(([id, field, wrong, notObject]) => {
    const review = conversionReview('geo.example.com/v1', [geoDatabase('v1alpha1')], id) as Record<string, any>;
    const request = review['request'];
    if (field === 'apiVersion' || field === 'kind') review[field] = wrong;
    else if (field === 'request') review['request'] = notObject;
    else if (field === 'objects') request.objects = wrong === null || Array.isArray(wrong) ? 'x' : wrong;
    else if (field === 'objects[0]') request.objects[0] = Array.isArray(notObject) ? notObject : [notObject];
    else request[field] = wrong;
    return {
      label: `conversion with ${field} = ${text(wrong)}`,
      path: '/convert',
      body: text(review),
      expect: { kind: 'refused', statuses: [400] },
    };
  });

/** Any JSON value: every type the body can hold where metadata or one of its fields belongs. */
const anyJson = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 20 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
);

/** ObjectMeta's fields and the JSON type the API server always writes them in (it decodes every object first). */
const metadataTypes = {
  name: 'string',
  generateName: 'string',
  namespace: 'string',
  selfLink: 'string',
  uid: 'string',
  resourceVersion: 'string',
  creationTimestamp: 'time',
  deletionTimestamp: 'string',
  generation: 'integer',
  deletionGracePeriodSeconds: 'integer',
  labels: 'string map',
  annotations: 'string map',
  finalizers: 'string list',
  ownerReferences: 'object list',
  managedFields: 'object list',
} as const;

function fits(value: unknown, type: (typeof metadataTypes)[keyof typeof metadataTypes]): boolean {
  const object = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (type === 'string') return typeof value === 'string';
  // Go writes a zero time as null.
  if (type === 'time') return typeof value === 'string' || value === null;
  if (type === 'integer') return Number.isSafeInteger(value);
  if (type === 'string map') return object(value) && Object.values(value).every((v) => typeof v === 'string');
  return (
    Array.isArray(value) && value.every((item) => (type === 'string list' ? typeof item === 'string' : object(item)))
  );
}

/**
 * An object's metadata, or one of its fields (a label's or annotation's value too), replaced by a value of any JSON
 * type, in every place a review carries an object. Of the wrong type, it is a malformed review (400), however bad
 * the rest of the object is; of the right type, it is answered. A denial once threw on a name that was a number.
 */
const metadataOfEveryType: fc.Arbitrary<Case> = fc
  .tuple(
    fc.constantFrom('validate', 'mutate', 'convert'),
    uid,
    version,
    fc.constantFrom('CREATE' as const, 'UPDATE' as const, 'DELETE' as const),
    fc.boolean(),
    fc.constantFrom(
      'metadata',
      'labels value',
      'annotations value',
      ...(Object.keys(metadataTypes) as Array<keyof typeof metadataTypes>),
    ),
    anyJson,
  )
  .map(([path, id, v, operation, invalidSpec, field, value]): Case => {
    // An invalid spec makes /validate deny: the denial names the object, where the bad name once broke it.
    const object = geoDatabase(v, invalidSpec ? { ...validSpecs[v], junk: 1 } : validSpecs[v]) as Record<string, any>;
    let wrong: boolean;
    if (field === 'metadata') {
      object['metadata'] = value;
      wrong =
        value === null ||
        typeof value !== 'object' ||
        Array.isArray(value) ||
        Object.entries(metadataTypes).some(
          ([key, type]) => Object.hasOwn(value, key) && !fits((value as Record<string, unknown>)[key], type),
        );
    } else if (field === 'labels value' || field === 'annotations value') {
      object['metadata'][field.split(' ')[0]!] = { 'example.com/key': value };
      wrong = typeof value !== 'string';
    } else {
      object['metadata'][field] = value;
      wrong = !fits(value, metadataTypes[field]);
    }
    const label = `${path} ${operation} ${v} with metadata ${field} = ${text(value)}`;
    if (path === 'convert') {
      const body = text(conversionReview('geo.example.com/v1', [geoDatabase('v1'), object], id));
      return {
        label,
        path: '/convert',
        body,
        expect: wrong
          ? { kind: 'refused', statuses: [400] }
          : { kind: 'conversion', uid: id, objects: 2, desired: 'geo.example.com/v1' },
      };
    }
    const review =
      operation === 'CREATE'
        ? admissionReview('CREATE', object, null, { uid: id })
        : operation === 'UPDATE'
          ? admissionReview('UPDATE', geoDatabase(v), object, { uid: id })
          : admissionReview('DELETE', null, object, { uid: id });
    return {
      label,
      path: `/${path}`,
      body: text(review),
      expect: wrong
        ? { kind: 'refused', statuses: [400] }
        : { kind: 'admission', uid: id, webhook: path as 'validate' | 'mutate' },
    };
  });

const conversion: fc.Arbitrary<Case> = fc
  .tuple(uid, version, fc.array(fc.tuple(version, fc.boolean()), { maxLength: 20 }))
  .map(([id, desired, objects]) => {
    const sent = objects.map(([v, valid]) =>
      geoDatabase(v, valid ? validSpecs[v] : { ...validSpecs[v], junk: { deep: [1, 'x', null] } }),
    );
    const desiredAPIVersion = `geo.example.com/${desired}`;
    return {
      label: `convert ${objects.length} to ${desired}`,
      path: '/convert',
      body: text(conversionReview(desiredAPIVersion, sent, id)),
      expect: { kind: 'conversion', uid: id, objects: sent.length, desired: desiredAPIVersion },
    };
  });

/** __proto__ and constructor keys in the object, written as text (an object literal would set the prototype instead). */
const prototypeKeys: fc.Arbitrary<Case> = fc
  .tuple(webhook, uid, version, fc.constantFrom('__proto__', 'constructor', 'prototype'))
  .map(([hook, id, v, key]) => {
    const body = text(admissionReview('CREATE', geoDatabase(v), null, { uid: id })).replace(
      '"spec":{',
      `"spec":{"${key}":{"polluted":true,"prototype":{"polluted":true}},`,
    );
    return {
      label: `${key} key in a ${v} spec`,
      path: `/${hook}`,
      body,
      expect: { kind: 'admission', uid: id, webhook: hook, ...(hook === 'validate' ? { allowed: false } : {}) },
    };
  });

/** Deep nesting, written as text: from depths every step handles to depths JSON.parse itself refuses. */
const deepValue: fc.Arbitrary<Case> = fc
  .tuple(
    fc.constantFrom('/validate', '/mutate', '/convert'),
    uid,
    fc.integer({ min: 200, max: 20_000 }),
    fc.constantFrom('{"a":', '['),
  )
  .map(([path, id, depth, opener]) => {
    const closer = opener === '[' ? ']' : '}';
    const deep = `${opener.repeat(depth)}1${closer.repeat(depth)}`;
    const object = geoDatabase('v1', { ...validSpecs.v1, nested: 0 });
    const review =
      path === '/convert'
        ? conversionReview('geo.example.com/v1alpha1', [object], id)
        : admissionReview('CREATE', object, null, { uid: id });
    const body = text(review).replace('"nested":0', `"nested":${deep}`);
    // Parsed: answered (an unknown, too deep field: denied; conversion: failed or converted). Too deep to parse: 400.
    return { label: `${depth} levels deep to ${path}`, path, body, expect: { kind: 'any-answer', uid: id } };
  });

const randomJson: fc.Arbitrary<Case> = fc
  .tuple(fc.constantFrom('/validate', '/mutate', '/convert'), fc.jsonValue({ maxDepth: 4 }))
  .map(([path, value]) => ({
    label: `random JSON to ${path}`,
    path,
    body: text(value) ?? 'null',
    expect: { kind: 'refused', statuses: [400] },
  }));

/** A well-formed review cut short, or with bytes that are not UTF-8 put into it. */
const brokenBytes: fc.Arbitrary<Case> = fc
  .tuple(
    fc.constantFrom('/validate', '/mutate', '/convert'),
    uid,
    fc.nat(),
    fc.constantFrom('truncate', 'invalid-utf8'),
  )
  .map(([path, id, at, how]) => {
    const review =
      path === '/convert'
        ? conversionReview('geo.example.com/v1', [geoDatabase('v1beta1')], id)
        : admissionReview('CREATE', geoDatabase('v1'), null, { uid: id });
    const bytes = Buffer.from(text(review));
    if (how === 'truncate') {
      return {
        label: `${path} cut at ${at % bytes.length}`,
        path,
        body: bytes.subarray(0, at % bytes.length),
        expect: { kind: 'refused', statuses: [400] },
      };
    }
    // Inside a string value (the name), so the JSON structure stays intact and only the encoding is wrong.
    const name = bytes.indexOf('"db"') + 1;
    const body = Buffer.concat([bytes.subarray(0, name), Buffer.from([0xff, 0xfe, 0xc3]), bytes.subarray(name)]);
    return { label: `${path} with invalid UTF-8`, path, body, expect: { kind: 'any-answer', uid: id } };
  });

/** Bodies exactly at the limit (answered) and one byte over (413), padded with whitespace, which JSON allows. */
const atTheLimit: fc.Arbitrary<Case> = fc
  .tuple(fc.constantFrom('/validate', '/convert'), uid, fc.constantFrom(0, 1))
  .map(([path, id, over]) => {
    const review =
      path === '/convert'
        ? conversionReview('geo.example.com/v1', [geoDatabase('v1')], id)
        : admissionReview('CREATE', geoDatabase('v1'), null, { uid: id });
    const json = text(review);
    const body = json + ' '.repeat(bodyLimit + over - Buffer.byteLength(json));
    const expect: Expectation = over
      ? { kind: 'refused', statuses: [413] }
      : path === '/convert'
        ? { kind: 'conversion', uid: id, objects: 1, desired: 'geo.example.com/v1' }
        : { kind: 'admission', uid: id, webhook: 'validate', allowed: true };
    return { label: `${path} ${over ? 'one byte over' : 'at'} the limit`, path, body, expect };
  });

const wrongRoute: fc.Arbitrary<Case> = fc.oneof(
  fc
    .webPath()
    .map((path) => `/no-such${path.startsWith('/') ? '' : '/'}${path}`)
    .map((path) => ({
      label: `POST ${path}`,
      path,
      body: '{}',
      expect: { kind: 'refused', statuses: [404] } as Expectation,
    })),
  fc.constantFrom('text/plain', 'application/yaml', 'multipart/form-data').map((contentType) => ({
    label: contentType,
    path: '/validate',
    body: '{}',
    contentType,
    expect: { kind: 'refused', statuses: [415] } as Expectation,
  })),
);

const hostileCase: fc.Arbitrary<Case & { chunked: boolean }> = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: ruleBreakingWrite },
      { weight: 2, arbitrary: deletion },
      { weight: 4, arbitrary: malformedAdmission },
      { weight: 2, arbitrary: malformedConversion },
      { weight: 3, arbitrary: metadataOfEveryType },
      { weight: 3, arbitrary: conversion },
      { weight: 1, arbitrary: prototypeKeys },
      { weight: 1, arbitrary: deepValue },
      { weight: 2, arbitrary: randomJson },
      { weight: 2, arbitrary: brokenBytes },
      { weight: 1, arbitrary: atTheLimit },
      { weight: 1, arbitrary: wrongRoute },
    ),
    fc.boolean(),
  )
  .map(([hostile, chunked]) => ({ ...hostile, chunked }));

function withinTime(answer: Promise<HttpAnswer>, label: string): Promise<HttpAnswer> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${answerWithinMs} ms: ${label}`)), answerWithinMs);
  });
  return Promise.race([answer, late]).finally(() => clearTimeout(timer));
}

function check(answer: HttpAnswer, expectation: Expectation, label: string): void {
  const where = `${label}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).not.toBe(500);
  if (expectation.kind === 'refused') {
    expect(expectation.statuses, where).toContain(answer.status);
    expect(typeof answer.json().error?.code, where).toBe('string');
    return;
  }
  if (expectation.kind === 'any-answer') {
    expect([200, 400], where).toContain(answer.status);
    if (answer.status === 200) expect(answer.json().response.uid, where).toBe(expectation.uid);
    return;
  }
  expect(answer.status, where).toBe(200);
  const { response } = answer.json();
  expect(response.uid, where).toBe(expectation.uid);
  if (expectation.kind === 'conversion') {
    const converted = response.convertedObjects as Array<{ apiVersion: string }>;
    if (response.result.status === 'Success') {
      expect(converted, where).toHaveLength(expectation.objects);
      for (const object of converted) expect(object.apiVersion, where).toBe(expectation.desired);
    } else {
      expect(response.result.status, where).toBe('Failed');
      expect(converted, where).toEqual([]);
    }
    return;
  }
  expect(typeof response.allowed, where).toBe('boolean');
  if (expectation.allowed !== undefined) expect(response.allowed, where).toBe(expectation.allowed);
  if (!response.allowed) expect(response.patch, where).toBeUndefined();
  if (expectation.webhook === 'validate') expect(response.patch, where).toBeUndefined();
}

describe(`hostile input, ${runs} generated cases over TLS`, () => {
  it('never crashes, answers every case within seconds with its uid, never allows what it must not, and pollutes nothing', async () => {
    let peakRss = process.memoryUsage().rss;
    await fc.assert(
      fc.asyncProperty(hostileCase, async (hostile) => {
        const answer = await withinTime(
          server.post(hostile.path, undefined, {
            raw: hostile.body,
            agent,
            chunked: hostile.chunked,
            ...(hostile.contentType ? { contentType: hostile.contentType } : {}),
          }),
          hostile.label,
        );
        check(answer, hostile.expect, hostile.label);
        peakRss = Math.max(peakRss, process.memoryUsage().rss);
      }),
      { numRuns: runs, endOnFailure: true },
    );
    expect(Object.keys(Object.prototype)).toEqual([]);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    // Server and test share this process; the Deployment's limit is sized from bench/hostile-memory.ts instead.
    expect(peakRss).toBeLessThan(1024 * 1024 * 1024);

    // Decisions are still right afterwards.
    const valid = await server.post('/validate', admissionReview('CREATE', geoDatabase('v1')));
    expect(valid.json().response.allowed).toBe(true);
    const invalid = await server.post(
      '/validate',
      admissionReview('CREATE', geoDatabase('v1', { ...validSpecs.v1, readReplicas: 99 })),
    );
    expect(invalid.json().response.allowed).toBe(false);
  }, 600_000);
});
