import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { missingPrerequisite } from '../../test/missing-prerequisite.ts';
import { currentEngineStamp, PLACED_ENGINE_DIR, type EngineStamp } from './build-engine.ts';
import {
  engineMemoryBytes,
  evaluateCel,
  forgetCrd,
  judge,
  judgeAsItStands,
  loadCrd,
  matchWebhookConditions,
  MAX_ENGINE_INPUT_BYTES,
  readAsStored,
  type EngineCrd,
  type MatchConditionsRequest,
} from './engine.ts';

// Small CRDs, each showing one thing kube-apiserver v1.36 does to a custom resource that crdgate could not do
// without its code. Every expectation here is the API server's answer (the engine runs its very functions).

function crdOf(kind: string, schema: Record<string, unknown>, extra: Record<string, unknown> = {}): EngineCrd {
  const plural = `${kind.toLowerCase()}s`;
  return loadCrd({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { kind, plural, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', properties: schema } },
          ...extra,
        },
      ],
    },
  });
}

// The stamp the sources would build now: hashing them needs Go's version.
const current = await currentEngineStamp();

const object = (kind: string, fields: Record<string, unknown>, name = 'one') => ({
  apiVersion: 'example.com/v1',
  kind,
  metadata: { name },
  ...fields,
});

describe('the API server engine', () => {
  it.skipIf(
    missingPrerequisite(
      'the check that the placed engine is the build of the current Go sources',
      current ? undefined : 'Go is not installed (no `go` on PATH)',
    ),
  )('is the build of the current Go sources (npm run build:engine)', () => {
    const placed = JSON.parse(readFileSync(`${PLACED_ENGINE_DIR}engine.json`, 'utf8')) as EngineStamp;
    expect(placed.sourceHash, 'the placed engine is stale: run npm run build:engine').toBe(current!.sourceHash);
  });

  it('prunes unknown fields, refusing them under Strict as the API server does (400), and drops nulls it cannot keep', () => {
    const crd = crdOf('Pruned', {
      spec: { type: 'object', properties: { size: { type: 'integer' }, note: { type: 'string', nullable: true } } },
    });
    const unknown = judge(crd, {
      operation: 'CREATE',
      object: object('Pruned', { spec: { size: 1, colour: 'red', deep: { x: 1 } } }),
    });
    expect(unknown).toMatchObject({ allowed: false, code: 400, unknownFields: ['spec.colour', 'spec.deep'] });
    expect(unknown.message).toBe(
      'Pruned in version "v1" cannot be handled as a Pruned: strict decoding error: unknown field "spec.colour", unknown field "spec.deep"',
    );
    expect(unknown.causes).toEqual([
      { field: 'spec.colour', type: 'FieldValueUnknown', message: 'unknown field "colour"' },
      { field: 'spec.deep', type: 'FieldValueUnknown', message: 'unknown field "deep"' },
    ]);
    const ignored = judge(crd, {
      operation: 'CREATE',
      object: object('Pruned', { spec: { size: 1, colour: 'red' } }),
      fieldValidation: 'Ignore',
    });
    expect(ignored).toMatchObject({ allowed: true, object: { spec: { size: 1 } } });
    const nulls = judge(crd, { operation: 'CREATE', object: object('Pruned', { spec: { size: null, note: null } }) });
    expect(nulls).toMatchObject({ allowed: true, object: { spec: { note: null } } });
  });

  it('defaults fields, inside list items and map values too', () => {
    const crd = crdOf('Defaulted', {
      spec: {
        type: 'object',
        properties: {
          replicas: { type: 'integer', default: 1 },
          ports: {
            type: 'array',
            items: {
              type: 'object',
              properties: { port: { type: 'integer' }, protocol: { type: 'string', default: 'TCP' } },
            },
          },
          limits: {
            type: 'object',
            additionalProperties: { type: 'object', properties: { max: { type: 'integer', default: 10 } } },
          },
        },
      },
    });
    const judged = judge(crd, {
      operation: 'CREATE',
      object: object('Defaulted', { spec: { ports: [{ port: 80 }], limits: { cpu: {} } } }),
    });
    expect(judged).toMatchObject({ allowed: true });
    expect(judged.object?.spec).toEqual({
      replicas: 1,
      ports: [{ port: 80, protocol: 'TCP' }],
      limits: { cpu: { max: 10 } },
    });
  });

  it('drops the status of a create when the CRD has a status subresource, and keeps the stored one on update', () => {
    const crd = crdOf(
      'WithStatus',
      {
        spec: { type: 'object', properties: { size: { type: 'integer' } } },
        status: { type: 'object', properties: { ready: { type: 'boolean' } } },
      },
      { subresources: { status: {} } },
    );
    const created = judge(crd, {
      operation: 'CREATE',
      object: object('WithStatus', { spec: { size: 1 }, status: { ready: true } }),
    });
    expect(created).toMatchObject({ allowed: true });
    expect(created.object).not.toHaveProperty('status');
    const updated = judge(crd, {
      operation: 'UPDATE',
      object: object('WithStatus', { spec: { size: 2 }, status: { ready: false } }),
      oldObject: object('WithStatus', { spec: { size: 1 }, status: { ready: true } }),
    });
    expect(updated.object?.status).toEqual({ ready: true });
  });

  it('takes a status write as its status strategy does: the status alone changes, and only it is validated', () => {
    const crd = crdOf(
      'StatusWritten',
      {
        spec: { type: 'object', properties: { size: { type: 'integer', maximum: 3 } } },
        status: {
          type: 'object',
          properties: { phase: { type: 'string', enum: ['Ready'] }, seen: { type: 'integer' } },
        },
      },
      { subresources: { status: {} } },
    );
    const stored = object('StatusWritten', { spec: { size: 9 }, status: { phase: 'Ready', seen: 1 } });
    const written = judge(crd, {
      operation: 'UPDATE',
      subresource: 'status',
      object: object('StatusWritten', { spec: { size: 1 }, status: { phase: 'Ready', seen: 2 } }),
      oldObject: stored,
    });
    // The spec sent is not taken (the stored one stays, faulty as it is: the status schema alone is validated).
    expect(written).toMatchObject({ allowed: true, object: { spec: { size: 9 }, status: { seen: 2 } } });
    const refused = judge(crd, {
      operation: 'UPDATE',
      subresource: 'status',
      object: object('StatusWritten', { spec: { size: 9 }, status: { phase: 'Done', seen: 1 } }),
      oldObject: stored,
    });
    expect(refused).toMatchObject({ allowed: false, code: 422 });
    expect(refused.causes.map(({ field, type }) => [field, type])).toEqual([
      ['status.phase', 'FieldValueNotSupported'],
    ]);
    const noSubresource = crdOf('NoStatusPath', { status: { type: 'object' } });
    expect(
      judge(noSubresource, {
        operation: 'UPDATE',
        subresource: 'status',
        object: object('NoStatusPath', { status: {} }),
        oldObject: object('NoStatusPath', {}),
      }),
    ).toMatchObject({ allowed: false, code: 404 });
  });

  it('judges an object as it stands: its status too, nothing ratcheted, nothing dropped', () => {
    const crd = crdOf(
      'AsItStands',
      {
        spec: { type: 'object', properties: { size: { type: 'integer', maximum: 3 } } },
        status: { type: 'object', properties: { phase: { type: 'string', enum: ['Ready'] } } },
      },
      { subresources: { status: {} } },
    );
    const judged = judgeAsItStands(
      crd,
      object('AsItStands', { spec: { size: 9 }, status: { phase: 'Done' }, extra: true }),
    );
    expect(judged.causes.map(({ field, type }) => [field, type])).toEqual([
      ['spec.size', 'FieldValueInvalid'],
      ['status.phase', 'FieldValueNotSupported'],
    ]);
  });

  it("validates an embedded resource's metadata as ObjectMeta", () => {
    const crd = crdOf('Embedding', {
      spec: {
        type: 'object',
        properties: {
          template: {
            type: 'object',
            'x-kubernetes-embedded-resource': true,
            'x-kubernetes-preserve-unknown-fields': true,
          },
        },
      },
    });
    const template = (metadata: unknown) => ({
      spec: { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { a: 'b' } } },
    });
    expect(
      judge(crd, { operation: 'CREATE', object: object('Embedding', template({ name: 'x', labels: { ok: 'yes' } })) }),
    ).toMatchObject({ allowed: true });
    const badLabel = judge(crd, {
      operation: 'CREATE',
      object: object('Embedding', template({ name: 'x', labels: { 'not a key': 'v' } })),
    });
    expect(badLabel).toMatchObject({ allowed: false, code: 422 });
    expect(badLabel.causes.map((c) => c.field)).toEqual(['spec.template.metadata.labels']);
  });

  it('takes an integer or a string where the schema says int-or-string (anyOf)', () => {
    const crd = crdOf('Port', {
      spec: {
        type: 'object',
        properties: { port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } },
      },
    });
    for (const port of [8080, 'http'])
      expect(judge(crd, { operation: 'CREATE', object: object('Port', { spec: { port } }) }).allowed).toBe(true);
    const wrong = judge(crd, { operation: 'CREATE', object: object('Port', { spec: { port: true } }) });
    expect(wrong).toMatchObject({ allowed: false, code: 422 });
    expect(wrong.causes[0]?.field).toBe('spec.port');
  });

  it('evaluates CEL rules with their messageExpression and fieldPath, and transition rules against oldSelf', () => {
    const crd = crdOf('Ruled', {
      spec: {
        type: 'object',
        properties: {
          size: { type: 'integer', maximum: 100 },
          zone: {
            type: 'string',
            maxLength: 20,
            'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'is immutable' }],
          },
        },
        'x-kubernetes-validations': [
          {
            rule: 'self.size % 2 == 0',
            messageExpression: "self.size > 50 ? 'size must be even, and is large' : 'size must be even'",
            fieldPath: '.size',
          },
        ],
      },
    });
    expect(crd.refusal).toEqual([]);
    const odd = judge(crd, { operation: 'CREATE', object: object('Ruled', { spec: { size: 3, zone: 'a' } }) });
    expect(odd).toMatchObject({
      allowed: false,
      code: 422,
      message: 'Ruled.example.com "one" is invalid: spec.size: Invalid value: size must be even',
    });
    expect(odd.causes).toEqual([
      { field: 'spec.size', type: 'FieldValueInvalid', message: 'Invalid value: size must be even' },
    ]);
    const moved = judge(crd, {
      operation: 'UPDATE',
      object: object('Ruled', { spec: { size: 2, zone: 'b' } }),
      oldObject: object('Ruled', { spec: { size: 2, zone: 'a' } }),
    });
    expect(moved).toMatchObject({
      allowed: false,
      causes: [{ field: 'spec.zone', message: expect.stringContaining('is immutable') }],
    });
  });

  it('knows time zones by their IANA names in CEL rules, as kube-apiserver reads them from the system', () => {
    // 2009-02-13T23:31:30Z is 18:31 in New York (EST, -05:00) and 08:31 the next day in Tokyo.
    const crd = crdOf('Zoned', {
      spec: {
        type: 'object',
        properties: {
          at: { type: 'string', format: 'date-time' },
          zone: { type: 'string', maxLength: 40 },
          hour: { type: 'integer' },
        },
        'x-kubernetes-validations': [{ rule: 'timestamp(self.at).getHours(self.zone) == self.hour' }],
      },
    });
    const at = '2009-02-13T23:31:30Z';
    expect(
      judge(crd, { operation: 'CREATE', object: object('Zoned', { spec: { at, zone: 'America/New_York', hour: 18 } }) })
        .causes,
    ).toEqual([]);
    expect(
      judge(crd, { operation: 'CREATE', object: object('Zoned', { spec: { at, zone: 'Asia/Tokyo', hour: 8 } }) })
        .causes,
    ).toEqual([]);
    const wrong = judge(crd, {
      operation: 'CREATE',
      object: object('Zoned', { spec: { at, zone: 'Asia/Tokyo', hour: 18 } }),
    });
    expect(wrong.causes).toEqual([
      expect.objectContaining({ field: 'spec', message: expect.stringContaining('failed rule') }),
    ]);
  });

  it('ratchets on update: an unchanged invalid value passes, a changed one does not; set lists are judged whole', () => {
    const crd = crdOf('Ratcheted', {
      spec: {
        type: 'object',
        properties: {
          name: { type: 'string', maxLength: 3 },
          other: { type: 'integer' },
          byKey: {
            type: 'array',
            'x-kubernetes-list-type': 'map',
            'x-kubernetes-list-map-keys': ['key'],
            items: {
              type: 'object',
              required: ['key'],
              properties: { key: { type: 'string' }, value: { type: 'integer', maximum: 5 } },
            },
          },
          tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 3 } },
          atomic: { type: 'array', items: { type: 'string', maxLength: 3 } },
        },
      },
    });
    const old = {
      name: 'toolong',
      other: 1,
      byKey: [
        { key: 'a', value: 9 },
        { key: 'b', value: 1 },
      ],
      tags: ['longer', 'ok'],
      atomic: ['longer', 'ok'],
    };
    const update = (spec: Record<string, unknown>) =>
      judge(crd, {
        operation: 'UPDATE',
        object: object('Ratcheted', { spec: { ...old, ...spec } }),
        oldObject: object('Ratcheted', { spec: old }),
      });
    expect(update({ other: 2 }).allowed).toBe(true);
    expect(update({ name: 'stilltoolong' }).causes.map((c) => c.field)).toEqual(['spec.name']);
    // list-map items correlate by key: reordering them, or changing another, is allowed
    expect(
      update({
        byKey: [
          { key: 'b', value: 2 },
          { key: 'a', value: 9 },
        ],
      }).allowed,
    ).toBe(true);
    expect(
      update({
        byKey: [
          { key: 'a', value: 8 },
          { key: 'b', value: 1 },
        ],
      }).allowed,
    ).toBe(false);
    // a set list is not ratcheted item by item: even reordering it re-judges its invalid item
    expect(update({ tags: ['ok', 'longer'] }).allowed).toBe(false);
    // an atomic list is judged whole whenever it changes
    expect(update({ atomic: ['ok', 'longer'] }).allowed).toBe(false);
  });

  it("reports kube-apiserver's refusal of a CRD in its words, and compiles it all the same", () => {
    const crd = crdOf('Refused', {
      spec: {
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'string' } } },
        'x-kubernetes-validations': [{ rule: 'self.list.all(x, x.size() > 1) +' }],
      },
    });
    expect(crd.refusal).toEqual([
      expect.objectContaining({
        field: 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
        type: 'FieldValueInvalid',
        message: expect.stringContaining('compilation failed'),
      }),
    ]);
    const costly = crdOf('Costly', {
      spec: {
        type: 'object',
        properties: { list: { type: 'array', items: { type: 'string' } } },
        'x-kubernetes-validations': [{ rule: 'self.list.all(x, self.list.all(y, x != y || x == y))' }],
      },
    });
    expect(costly.refusal.map((e) => e.message).join('\n')).toMatch(/estimated rule cost exceeds budget/);
  });

  it('answers a hostile object without failing: deep nesting, a wrong kind, oversized input', () => {
    const crd = crdOf('Open', { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } });
    let deep: unknown = 1;
    for (let i = 0; i < 1000; i++) deep = { a: deep };
    expect(judge(crd, { operation: 'CREATE', object: object('Open', { spec: deep }) }).allowed).toBeTypeOf('boolean');
    expect(
      judge(crd, {
        operation: 'CREATE',
        object: { apiVersion: 'example.com/v1', kind: 'Other', metadata: { name: 'x' } },
      }),
    ).toMatchObject({ allowed: false, code: 400 });
    expect(judge(crd, { operation: 'CREATE', object: 'not an object' })).toMatchObject({ allowed: false, code: 400 });
    expect(() =>
      judge(crd, {
        operation: 'CREATE',
        object: object('Open', { spec: { big: 'x'.repeat(MAX_ENGINE_INPUT_BYTES) } }),
      }),
    ).toThrow(RangeError);
    // and still answers afterwards
    expect(judge(crd, { operation: 'CREATE', object: object('Open', { spec: { ok: true } }) }).allowed).toBe(true);
  });
});

describe("one CEL expression in a CRD rule's environment", () => {
  const uintX = { name: 'x', ident: { type: { primitive: 'UINT64' } } };

  it('answers the value as cel.expr.Value, with its checked type, int, uint and double apart', () => {
    expect(evaluateCel({ expr: 'x + 1u', typeEnv: [uintX], bindings: { x: { uint64Value: '41' } } })).toEqual({
      type: { primitive: 'UINT64' },
      value: { uint64Value: '42' },
    });
    expect(evaluateCel({ expr: '1 + 1' })).toEqual({ type: { primitive: 'INT64' }, value: { int64Value: '2' } });
    expect(evaluateCel({ expr: '1.0 / 4.0' })).toEqual({ type: { primitive: 'DOUBLE' }, value: { doubleValue: 0.25 } });
    expect(evaluateCel({ expr: "{'a': [b'\\xff']}" }).value).toEqual({
      mapValue: {
        entries: [{ key: { stringValue: 'a' }, value: { listValue: { values: [{ bytesValue: '/w==' }] } } }],
      },
    });
    expect(
      evaluateCel({ expr: 'x + 1u', typeEnv: [uintX], bindings: { x: { uint64Value: '41' } }, checkOnly: true }),
    ).toEqual({ type: { primitive: 'UINT64' } });
  });

  it("has Kubernetes' own libraries", () => {
    expect(evaluateCel({ expr: "quantity('1Gi').isGreaterThan(quantity('1Mi'))" }).value).toEqual({ boolValue: true });
    expect(evaluateCel({ expr: "ip('10.0.0.1').family()" }).value).toEqual({ int64Value: '4' });
    expect(evaluateCel({ expr: "url('https://example.com/a').getHost()" }).value).toEqual({
      stringValue: 'example.com',
    });
    expect(evaluateCel({ expr: '[3, 1, 2].isSorted()' }).value).toEqual({ boolValue: false });
    // ext.Lists at version 3, which the environment takes from Kubernetes 1.34 on
    expect(evaluateCel({ expr: '[3, 1, 2].sort() == [1, 2, 3]' }).value).toEqual({ boolValue: true });
  });

  it('tells an expression that does not compile from one that fails when evaluated', () => {
    expect(evaluateCel({ expr: '1 +' })).toEqual({ compileError: expect.stringContaining('Syntax error') });
    expect(evaluateCel({ expr: 'y' })).toEqual({
      compileError: expect.stringContaining("undeclared reference to 'y'"),
    });
    expect(evaluateCel({ expr: 'x / 0u', typeEnv: [uintX], bindings: { x: { uint64Value: '1' } } })).toEqual({
      type: { primitive: 'UINT64' },
      evalError: 'division by zero',
    });
  });

  it('refuses to compile what kube-apiserver refuses in a CRD rule', () => {
    const refused = [
      "[1, 'a'].size() == 2", // mixed literal: cel.HomogeneousAggregateLiterals
      'int(18446744073709551615u) == 0', // folded when the program is built: integer overflow
      "timestamp('10000-01-01T00:00:00Z') < timestamp('2000-01-01T00:00:00Z')", // literal validation
      "'%d'.format([1.5]) == ''", // format strings checked when compiling
      'math.greatest(1, 2) == 2', // ext.Math is not in the environment
    ];
    for (const rule of refused) {
      expect(evaluateCel({ expr: rule }).compileError, rule).toBeDefined();
      const crd = crdOf('Refusing', { spec: { type: 'object', 'x-kubernetes-validations': [{ rule }] } });
      expect(crd.refusal, rule).toEqual([
        expect.objectContaining({
          field: 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
        }),
      ]);
    }
    const accepted = "timestamp('2000-01-01T00:00:00Z').getHours('Asia/Tokyo') == 9";
    expect(evaluateCel({ expr: accepted }).value).toEqual({ boolValue: true });
    expect(
      crdOf('Refusing', { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: accepted }] } }).refusal,
    ).toEqual([]);
  });

  it('throws on what is no expression to evaluate: an unreadable declaration or binding, an oversized input', () => {
    expect(() =>
      evaluateCel({ expr: 'x', typeEnv: [{ name: 'x', ident: { type: { primitive: 'NOT_A_TYPE' } } }] }),
    ).toThrow(/typeEnv\[0\]/);
    expect(() => evaluateCel({ expr: 'x', typeEnv: [uintX], bindings: { x: { noSuchKind: 1 } } })).toThrow(
      /binding of x/,
    );
    expect(() => evaluateCel({ expr: `'${'x'.repeat(MAX_ENGINE_INPUT_BYTES)}'` })).toThrow(RangeError);
  });
});

describe("a webhook's matchConditions against one request", () => {
  const widget = (spec: unknown) => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'team' },
    spec,
  });
  const update = (
    conditions: MatchConditionsRequest['conditions'],
    object: unknown,
    oldObject: unknown,
    extra: Partial<MatchConditionsRequest> = {},
  ): MatchConditionsRequest => ({
    conditions,
    operation: 'UPDATE',
    kind: { group: 'example.com', version: 'v1', kind: 'Widget' },
    resource: { group: 'example.com', version: 'v1', resource: 'widgets' },
    name: 'w',
    namespace: 'team',
    object,
    oldObject,
    ...extra,
  });
  const specChanged = [{ name: 'spec-changed', expression: 'object.spec != oldObject.spec' }];

  it('calls the webhook when every condition is true, and names the first that is false', () => {
    expect(matchWebhookConditions(update(specChanged, widget({ size: 2 }), widget({ size: 1 })))).toMatchObject({
      matches: true,
    });
    expect(matchWebhookConditions(update(specChanged, widget({ size: 1 }), widget({ size: 1 })))).toMatchObject({
      matches: false,
      failedCondition: 'spec-changed',
    });
    // The API server decodes 1.0 as a double and 1 as an int; CEL's equality takes them as equal numbers.
    expect(matchWebhookConditions(update(specChanged, widget({ size: 1 }), widget({ size: 1.5 - 0.5 })))).toMatchObject(
      { matches: false },
    );
  });

  it('gives the request as the API server does: no oldObject on CREATE, no object on DELETE, no subResource unless there is one', () => {
    const create = {
      ...update(
        [{ name: 'create', expression: "oldObject == null && request.operation == 'CREATE'" }],
        widget({}),
        undefined,
      ),
      operation: 'CREATE' as const,
    };
    expect(matchWebhookConditions(create)).toMatchObject({ matches: true });
    const absent = [{ name: 'sub', expression: 'request.subResource == ""' }];
    expect(matchWebhookConditions(update(absent, widget({}), widget({}))).evalError).toContain(
      'no such key: subResource',
    );
    expect(
      matchWebhookConditions(
        update([{ name: 'sub', expression: 'request.?subResource.orValue("") == "status"' }], widget({}), widget({}), {
          subResource: 'status',
        }),
      ),
    ).toMatchObject({ matches: true });
  });

  it('fails the request on an evaluation error under Fail, and skips the webhook under Ignore', () => {
    const failing = [{ name: 'missing', expression: 'object.spec.missing == 1' }];
    expect(matchWebhookConditions(update(failing, widget({}), widget({})))).toMatchObject({
      matches: false,
      evalError: expect.stringContaining('no such key: missing'),
    });
    expect(matchWebhookConditions(update(failing, widget({}), widget({}), { failurePolicy: 'Ignore' }))).toEqual(
      expect.objectContaining({ matches: false }),
    );
    expect(
      matchWebhookConditions(update(failing, widget({}), widget({}), { failurePolicy: 'Ignore' })).evalError,
    ).toBeUndefined();
  });

  it("refuses what the API server's validation of a webhook configuration refuses, and counts the cost against its budget", () => {
    const answer = matchWebhookConditions(
      update(
        [
          { name: 'broken', expression: 'object.spec +' },
          { name: 'number', expression: '1' },
        ],
        widget({}),
        widget({}),
      ),
    );
    expect(answer.compileErrors?.map((problem) => problem.name)).toEqual(['broken', 'number']);
    expect(answer.compileErrors?.[1]?.detail).toContain('must evaluate to bool');
    // contains() costs a tenth of one string's length times a tenth of the other's: 949 x 949 on 9,490 characters.
    const text = widget({ text: 'a'.repeat(9_490) });
    const costly = { name: 'costly', expression: 'object.spec.text.contains(oldObject.spec.text)' };
    const one = matchWebhookConditions(update([costly], text, text));
    expect(one).toMatchObject({ matches: true, budget: 2_500_000 });
    expect(one.cost).toBeGreaterThan(900_000);
    // Each within the limit of one expression, three together over the budget all of a webhook's conditions share.
    const three = [costly, { ...costly, name: 'again' }, { ...costly, name: 'and-again' }];
    expect(matchWebhookConditions(update(three, text, text)).evalError).toMatch(/budget/);
    // One alone far past them (4,000 x 4,000).
    const longer = widget({ text: 'a'.repeat(40_000) });
    expect(matchWebhookConditions(update([costly], longer, longer)).evalError).toMatch(/cost/);
  });
});

// `crdgate check --stored` and the CRD gate make about ten engine calls per stored object, for any number of
// objects, in one engine whose 32-bit memory never shrinks and stops at 4 GiB: whatever a call leaves behind (a
// buffer the host does not free, an object or a CRD the Go side keeps) grows it with the object count. Each object
// here carries 32 KiB, so that a leak of even one buffer per call (about 20 MiB over these calls) shows far above
// the allowance.
describe("the API server engine's memory", () => {
  it('stays where the first calls took it over many objects, each read, created and updated (ratcheted)', () => {
    const crd = crdOf('Ledger', {
      spec: {
        type: 'object',
        properties: { note: { type: 'string', maxLength: 16384 }, size: { type: 'integer', default: 1 } },
        'x-kubernetes-validations': [{ rule: 'self.size >= 0' }],
      },
    });
    const judgeOne = (n: number) => {
      const ledger = object('Ledger', { spec: { note: 'x'.repeat(32768) } }, `ledger-${n}`);
      const stored = readAsStored(crd, ledger);
      expect(judge(crd, { operation: 'CREATE', object: ledger }).allowed).toBe(false);
      // The note is too long for a create, but an update that leaves it unchanged is let through by ratcheting.
      expect(judge(crd, { operation: 'UPDATE', object: stored.object, oldObject: stored.object }).allowed).toBe(true);
    };
    for (let n = 0; n < 30; n += 1) judgeOne(n);
    const warmedUp = engineMemoryBytes();
    expect(warmedUp).toBeGreaterThan(0);
    for (let n = 30; n < 230; n += 1) judgeOne(n);
    expect(engineMemoryBytes() - warmedUp).toBeLessThanOrEqual(8 * 2 ** 20);
  });
  it('forgets a compiled CRD, so that compiling revisions without end leaves memory where it was, and compiles one judged after it again', () => {
    // Wide enough that keeping each compiled revision would show: about half a MiB of engine memory apiece (88 MiB over
    // these 200 when they are kept, none when each is forgotten).
    const fields = Object.fromEntries(
      Array.from({ length: 150 }, (_, i) => [
        `field${i}`,
        { type: 'string', maxLength: 20 + i, description: `field ${i}` },
      ]),
    );
    const schema = { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 }, ...fields } } };
    const compileJudgeForget = (n: number) => {
      const crd = crdOf(`Revision${n}`, schema);
      expect(judge(crd, { operation: 'CREATE', object: object(`Revision${n}`, { spec: { size: 11 } }) }).allowed).toBe(
        false,
      );
      forgetCrd(crd);
      return crd;
    };
    for (let n = 0; n < 20; n += 1) compileJudgeForget(n);
    const warmedUp = engineMemoryBytes();
    for (let n = 20; n < 220; n += 1) compileJudgeForget(n);
    expect(engineMemoryBytes() - warmedUp).toBeLessThanOrEqual(8 * 2 ** 20);
    const forgotten = compileJudgeForget(220);
    expect(
      judge(forgotten, { operation: 'CREATE', object: object('Revision220', { spec: { size: 3 } }) }).allowed,
    ).toBe(true);
  });
  it('gives a forgotten CRD compiled again a handle of its own, so that forgetting it again leaves the next holder working', () => {
    const schema = { spec: { type: 'object', properties: { size: { type: 'integer', maximum: 10 } } } };
    const first = crdOf('Shared', schema);
    expect(crdOf('Shared', schema)).toBe(first);
    forgetCrd(first);
    const tooBig = object('Shared', { spec: { size: 11 } });
    expect(judge(first, { operation: 'CREATE', object: tooBig }).allowed).toBe(false);
    const next = crdOf('Shared', schema);
    forgetCrd(first);
    expect(judge(next, { operation: 'CREATE', object: tooBig }).allowed).toBe(false);
  });
});
