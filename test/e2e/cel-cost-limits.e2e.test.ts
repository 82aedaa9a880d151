import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { judge, loadCrd, type EngineCrd } from '../../src/api-server-engine/engine.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { storedDifferences } from './support/differential/compare.ts';
import { kubectl, waitEstablished } from './support/kubectl.ts';
import { restClient, type Rest } from './support/raw-api.ts';

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const group = 'costs.fixtures.crdgate.example.com';
const budgetLists = Array.from({ length: 12 }, (_, i) => `list${i}`);

/**
 * Rules whose estimated cost passes the API server's CRD checks (10M per expression) but whose actual cost can run
 * past its runtime limits on a large enough object: 1M per call of one rule, and 10M for all the rules of one
 * object. Each rule compares every item of its list with every item (n² steps): 1,100 items run one rule past its
 * per-call limit; 350 items in each of 12 lists keep each rule within it, and all of them past the object's budget.
 */
const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `costlies.${group}` },
  spec: {
    group,
    names: { kind: 'Costly', plural: 'costlies', singular: 'costly', listKind: 'CostlyList' },
    scope: 'Namespaced',
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  pairs: {
                    type: 'array',
                    maxItems: 1100,
                    items: { type: 'integer' },
                    'x-kubernetes-validations': [
                      { rule: 'self.all(a, self.all(b, a + b >= 0))', message: 'no two items add up below zero' },
                    ],
                  },
                  ...Object.fromEntries(
                    budgetLists.map((name) => [
                      name,
                      {
                        type: 'array',
                        maxItems: 400,
                        items: { type: 'integer' },
                        'x-kubernetes-validations': [
                          {
                            rule: 'self.all(a, self.all(b, a + b >= 0))',
                            message: `${name}: no two items add up below zero`,
                          },
                        ],
                      },
                    ]),
                  ),
                },
              },
            },
          },
        },
      },
    ],
  },
};

const costly = (name: string, spec: Record<string, number[]>) => ({
  apiVersion: `${group}/v1`,
  kind: 'Costly',
  metadata: { name },
  spec,
});
const zeros = (n: number) => Array.from({ length: n }, () => 0);

interface Outcome {
  allowed: boolean;
  causes: string[];
  /** When allowed: the object as it would be stored. */
  stored?: unknown;
}

/**
 * The runtime cost limits of CRD rules, with kube-apiserver as the oracle: a rule that runs out of its per-call
 * limit, and an object whose rules together run out of the per-object budget, refused with the API server's words
 * and fields by crdgate's engine as by kube-apiserver itself; the same rules on small objects allowed by both.
 */
describe.skipIf(!controlPlane)("CEL rules' runtime cost limits, as kube-apiserver applies them", () => {
  const cp = controlPlane as ProvidedControlPlane;
  const namespace = `crdgate-e2e-cel-cost-${randomUUID().slice(0, 8)}`;
  let rest: Rest;
  let engineCrd: EngineCrd;

  beforeAll(async () => {
    rest = restClient(cp.kubeconfigPath);
    engineCrd = loadCrd(crd);
    expect(engineCrd.refusal).toEqual([]);
    const created = await rest.send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    expect(created.status, created.text).toBe(201);
    const established = await waitEstablished(cp, crd.metadata.name);
    expect(established.exitCode, established.stderr).toBe(0);
    expect((await kubectl(cp, ['create', 'namespace', namespace])).exitCode).toBe(0);
  });
  afterAll(async () => {
    if (rest) await rest.send('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`);
  });

  async function apiServerOutcome(object: ReturnType<typeof costly>): Promise<Outcome> {
    const response = await rest.send(
      'POST',
      `/apis/${group}/v1/namespaces/${namespace}/costlies?dryRun=All&fieldValidation=Strict`,
      object,
    );
    if (response.status === 201) return { allowed: true, causes: [], stored: response.body };
    const status = response.body as {
      code?: number;
      details?: { causes?: Array<{ field?: string; message?: string }> };
    };
    expect(status.code, response.text).toBe(422);
    return {
      allowed: false,
      causes: (status.details?.causes ?? []).map((cause) => `${cause.field ?? ''}: ${cause.message ?? ''}`),
    };
  }

  function engineOutcome(object: ReturnType<typeof costly>): Outcome {
    const judged = judge(engineCrd, { operation: 'CREATE', object, namespace, fieldValidation: 'Strict' });
    return {
      allowed: judged.allowed,
      causes: judged.causes.map((cause) => `${cause.field}: ${cause.message}`),
      ...(judged.allowed ? { stored: judged.object } : {}),
    };
  }

  it.each([
    ['small lists: every rule runs to its end', { pairs: zeros(10), list0: zeros(10), list1: zeros(10) }, true],
    ['one rule past the per-call limit', { pairs: zeros(1100) }, false],
  ])('%s', async (title, spec, allowed) => {
    const object = costly(title.startsWith('small') ? 'cost-small' : 'cost-per-call', spec);
    const { stored, ...server } = await apiServerOutcome(object);
    expect(server.allowed).toBe(allowed);
    const { stored: storedOffline, ...offline } = engineOutcome(object);
    expect(offline).toEqual(server);
    // Allowed, both store the same object (metadata aside, the API server's own).
    expect(storedDifferences(stored, storedOffline)).toEqual([]);
    if (!allowed) {
      expect(server.causes).toEqual([
        `spec.pairs: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: no two items add up below zero`,
      ]);
    }
  });

  it("rules each within the per-call limit, together past the object's budget", async () => {
    const object = costly('cost-budget', Object.fromEntries(budgetLists.map((name) => [name, zeros(350)])));
    const { stored: _stored, ...server } = await apiServerOutcome(object);
    const { stored: _storedOffline, ...offline } = engineOutcome(object);
    // Which list is named depends on the order in which kube-apiserver visits the properties, a Go map's: the
    // API server itself names a different one from one request to the next, and so does crdgate's engine.
    const budgetRunOut =
      /^spec\.list\d+: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run$/;
    for (const outcome of [server, offline]) {
      expect(outcome.allowed).toBe(false);
      expect(outcome.causes).toEqual([expect.stringMatching(budgetRunOut)]);
    }
  });
});
