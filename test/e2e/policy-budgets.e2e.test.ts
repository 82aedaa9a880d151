import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimatePolicyCosts, type CelCostPolicyReport, type CelCostReport } from '../../src/control-plane/cel-cost.ts';
import { builtCelCostEstimator } from '../tools/suite-tools.ts';
import type { Contract } from '../../src/contract/contract-definition.ts';
import { formatFieldError } from '../../src/contract/values/field-error.ts';
import { nodePoolContract } from '../../src/contract/fsa/node-pool.fixture.ts';
import { evaluateTransition } from '../../src/contract/fsa/evaluate/evaluate-transition.ts';
import type { KubeObject } from '../../src/contract/values/kube-object.ts';
import { createSchemaCompiler } from '../../src/contract/schema/compile-schema.ts';
import type { JSONSchemaProps } from '../../src/contract/schema/json-schema-props.ts';
import { geoDatabaseContract } from '../../src/contracts/geodatabase/index.ts';
import { eventually } from '../../src/local-loop/eventually.ts';
import { messageBrokerContract } from '../../src/policy/message-broker.fixture.ts';
import { admissionPolicyName, renderAdmissionPolicies } from '../../src/render/admission-policy.ts';
import { renderMutatingAdmissionPolicies } from '../../src/render/mutating-admission-policy.ts';
import { renderCustomResourceDefinition } from '../../src/render/custom-resource-definition.ts';
import type { Manifest } from '../../src/render/manifest.ts';
import { laneControlPlane, type ProvidedControlPlane } from './provided-context.ts';
import { declarativeDbPoolerContract } from './support/db-operator-contracts.ts';
import { annotationProtections } from './support/policy-pairs.ts';
import {
  applyStrict,
  expectNoWebhookFor,
  expectStatus,
  hubOnlyCrd,
  installCrd,
  removeCrd,
  restClient,
  type Rest,
  type RestResponse,
} from './support/raw-api.ts';
import { metricSum, scrapeApiServer } from './support/api-server-metrics.ts';

// The policy floor within the API server's CEL budgets (issue 24). kube-apiserver compiles a policy's expressions
// with dyn objects and never estimates their cost, so two checks stand in for the one it does not make:
// - statically, celcost (src/control-plane/go/celcost) type-checks each rendered policy against its hub schema and
//   estimates every expression with the API server's own CEL libraries, against PerCallLimit and
//   RuntimeCELCostBudget;
// - at runtime, a real kube-apiserver with the policy and no webhook judges the largest objects the schema and
//   ObjectMeta validation allow: an UPDATE the machine allows is admitted, one it forbids gets the policy's 403
//   (an evaluation error, over a limit or any other, would be a 422 under failurePolicy Fail), a protected DELETE
//   is refused and an unprotected one goes through; and the API server counts no evaluation of the policy out of
//   budget.
// Negative controls show each check can fail: celcost refuses a policy over each limit and one that does not
// type-check, and the API server refuses an update with 422 and counts it out of budget where a policy over
// RuntimeCELCostBudget meets its largest object.

const provided = laneControlPlane();
const controlPlane = 'unavailable' in provided ? undefined : provided;

const perCallLimit = 1_000_000;
const runtimeCELCostBudget = 10_000_000;
const fieldManager = 'crdgate-e2e-policy-budgets';
/** apimachinery's TotalAnnotationSizeLimitB: the keys and values of all annotations together. */
const annotationBytes = 256 * 1024;

interface BudgetCase {
  contract: Contract;
  /** The state the objects are put in. */
  phase: string;
  /** From the largest spec: the stored spec, an update the machine allows from it, and one it forbids. */
  edits(largest: Spec): { old: Spec; allowed: Spec; forbidden: Spec };
}

type Spec = Record<string, any>;

const withLastItem = (list: Spec[], change: (item: Spec) => Spec): Spec[] => [
  ...list.slice(0, -1),
  change(list.at(-1)!),
];
/** The same number of digits, one higher in the last part: a minor upgrade of a release at its maximal length. */
const bumpLastPart = (release: string): string => release.replace(/(\d)$/, (digit) => String((Number(digit) + 1) % 10));

const cases: BudgetCase[] = [
  {
    contract: geoDatabaseContract(),
    phase: 'Ready',
    edits: (largest) => ({
      old: largest,
      // Capacity changes, allowed in Ready: fewer read replicas, and the last cache replaced by another.
      allowed: {
        ...largest,
        readReplicas: largest['readReplicas'] - 1,
        caches: withLastItem(largest['caches'], (cache) => ({ ...cache, name: `z${cache['name'].slice(1)}` })),
      },
      // Three minor upgrades, each allowed in Ready alone, exclusive together.
      forbidden: {
        ...largest,
        postgres: {
          ...largest['postgres'],
          version: bumpLastPart(largest['postgres'].version),
          postgis: bumpLastPart(largest['postgres'].postgis),
        },
        caches: withLastItem(largest['caches'], (cache) => ({ ...cache, version: bumpLastPart(cache['version']) })),
      },
    }),
  },
  {
    contract: messageBrokerContract(),
    phase: 'Running',
    edits: (largest) => {
      // One broker short of the maximum, so that one can be added.
      const old: Spec = { ...largest, brokers: largest['brokers'] - 1 };
      return {
        old,
        // Queue and auth changes, allowed in Running: the last queue replaced by another, another mechanism.
        allowed: {
          ...old,
          authMechanism: `Z${old['authMechanism'].slice(1)}`,
          queues: withLastItem(old['queues'], (queue) => ({ ...queue, queueName: `z${queue['queueName'].slice(1)}` })),
        },
        // A broker added and a release upgrade: each allowed in Running alone, exclusive together.
        forbidden: { ...old, brokers: old['brokers'] + 1, release: bumpLastPart(old['release']) },
      };
    },
  },
];

describe.skipIf(!controlPlane)("the rendered ValidatingAdmissionPolicy within the API server's CEL budgets", () => {
  const cp = controlPlane as ProvidedControlPlane;
  const runId = randomUUID().slice(0, 8);
  const installName = `budgets-${runId}`;
  let estimator: string;
  const reports = new Map<string, Promise<CelCostReport>>();
  const estimate = (manifests: readonly Manifest[], key: string) => {
    if (!reports.has(key)) reports.set(key, estimatePolicyCosts(estimator, manifests));
    return reports.get(key)!;
  };

  beforeAll(async () => {
    estimator = await builtCelCostEstimator();
  });

  describe("statically: celcost, with the API server's CEL libraries, against the hub schema", () => {
    // The node pool besides (lists keyed by an integer and by two fields; its quantities are the webhook's alone), and
    // an operator's kind whose state the policy reads from its conditions, over a list its CRD does not bound.
    for (const contract of [
      ...cases.map((budgetCase) => budgetCase.contract),
      nodePoolContract(),
      declarativeDbPoolerContract(),
    ]) {
      const kind = contract.identity.kind;
      const policyOf = async () => {
        const manifests = [
          ...renderAdmissionPolicies([contract], installName),
          renderCustomResourceDefinition(contract, { target: { url: 'https://127.0.0.1:1' } }),
        ];
        const report = await estimate(manifests, kind);
        expect(report.estimator['k8s.io/apiserver']).toBe(cp.kubeApiserverVersion.replace(/^v1\./, 'v0.'));
        expect(report.policies).toHaveLength(1);
        return report.policies[0]!;
      };

      it(
        `${kind}: type-checks against the hub schema, compiles as the API server compiles it at creation, and every expression gets a cost`,
        { timeout: 300_000 },
        async () => {
          const policy = await policyOf();
          console.log(summary(policy));
          expect(policy.name).toBe(admissionPolicyName(installName, contract));
          expect(policy.checkedAgainst).toEqual({
            group: contract.identity.group,
            version: contract.hub,
            kind,
            resource: contract.identity.plural,
          });
          expect(policy.typeCheckingWarnings).toEqual([]);
          expect(
            policy.problems.filter((problem) => !/ over (PerCallLimit|RuntimeCELCostBudget) /.test(problem)),
          ).toEqual([]);
          const roles = new Set(policy.expressions.map((expression) => expression.role));
          expect([...roles].sort()).toEqual(['messageExpression', 'validation', 'variable']);
          for (const expression of policy.expressions) {
            expect(
              expression.problems.filter((problem) => !problem.includes('over PerCallLimit')),
              expression.field,
            ).toEqual([]);
            expect(expression.cost?.max, expression.field).toEqual(expect.any(Number));
            expect(expression.outputType, expression.field).toBe(
              expression.role === 'validation'
                ? 'bool'
                : expression.role === 'messageExpression'
                  ? 'string'
                  : expression.outputType,
            );
          }
          expect(policy.passes?.validations.max).toEqual(expect.any(Number));
          expect(policy.total?.max).toEqual(expect.any(Number));
        },
      );

      it(
        `${kind}: every expression within PerCallLimit, validations and messageExpressions together within RuntimeCELCostBudget`,
        { timeout: 300_000 },
        async () => {
          const policy = await policyOf();
          const over = policy.expressions.filter(
            (expression) => expression.cost === undefined || expression.cost.max > perCallLimit,
          );
          expect(
            over.map((expression) => `${expression.field} (${expression.cost?.max})`),
            'expressions over PerCallLimit',
          ).toEqual([]);
          expect(policy.total!.max).toBeLessThanOrEqual(runtimeCELCostBudget);
          expect(policy.problems).toEqual([]);
          expect(policy.ok).toBe(true);
        },
      );
    }
  });

  // A kind of this run's own for the negative controls, with a list bounded by maxItems and one that is not.
  const gadgets = gadgetCrd(`budgets-${runId}.example.com`);
  const gadgetPolicy = (name: string, spec: Record<string, unknown>): Manifest => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name: `${name}-${runId}` },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [
          { apiGroups: [gadgets.spec.group], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['gadgets'] },
        ],
      },
      ...spec,
    },
  });
  // Every pair of a list's items: 200 x 200 comparisons of tags, under PerCallLimit alone.
  const pairs = (list: string) => `object.spec.${list}.all(a, object.spec.${list}.all(b, a == b || a != b))`;
  // 40 of them: each within PerCallLimit, together over RuntimeCELCostBudget, statically and on the largest object.
  const overBudget = gadgetPolicy('gadgets-budget', {
    validations: Array.from({ length: 40 }, () => ({ expression: pairs('tags') })),
  });

  describe('negative control: celcost refuses what is over a limit or does not type-check', () => {
    const crd = gadgets.manifest;
    const policy = gadgetPolicy;

    it(
      'an expression over a list without maxItems: over PerCallLimit, as a variable too',
      { timeout: 120_000 },
      async () => {
        const report = await estimatePolicyCosts(estimator, [
          crd,
          policy('gadgets-unbounded', {
            variables: [{ name: 'pairs', expression: pairs('notes') }],
            validations: [{ expression: 'variables.pairs' }, { expression: pairs('tags') }],
          }),
        ]);
        const [result] = report.policies;
        expect(report.ok).toBe(false);
        const variable = result!.expressions.find((expression) => expression.field === 'spec.variables[0].expression')!;
        expect(variable.cost!.max).toBeGreaterThan(perCallLimit);
        expect(variable.problems).toEqual([expect.stringContaining('over PerCallLimit 1000000')]);
        // The validation that merely reads the variable is cheap itself, and charged for it when it touches it first.
        const reading = result!.expressions.find(
          (expression) => expression.field === 'spec.validations[0].expression',
        )!;
        expect(reading).toMatchObject({ variables: ['pairs'], problems: [] });
        expect(reading.cost!.max).toBeLessThan(10);
        expect(reading.costWithVariables!.max).toBeGreaterThan(perCallLimit);
        const bounded = result!.expressions.find(
          (expression) => expression.field === 'spec.validations[1].expression',
        )!;
        expect(bounded.problems).toEqual([]);
        expect(bounded.cost!.max).toBeGreaterThan(200 * 200);
        expect(bounded.cost!.max).toBeLessThan(perCallLimit);
      },
    );

    it(
      'expressions each within PerCallLimit that together exceed RuntimeCELCostBudget',
      { timeout: 120_000 },
      async () => {
        const report = await estimatePolicyCosts(estimator, [crd, overBudget]);
        const [result] = report.policies;
        expect(result!.expressions.every((expression) => expression.cost!.max < perCallLimit)).toBe(true);
        expect(result!.total!.max).toBeGreaterThan(runtimeCELCostBudget);
        expect(result!.problems).toEqual([expect.stringContaining('over RuntimeCELCostBudget 10000000 per binding')]);
      },
    );

    it(
      'an expression that does not type-check against the schema, as kube-controller-manager would warn',
      { timeout: 120_000 },
      async () => {
        const report = await estimatePolicyCosts(estimator, [
          crd,
          policy('gadgets-typo', { validations: [{ expression: "object.spec.tag == 'x'" }] }),
        ]);
        const [result] = report.policies;
        expect(result!.ok).toBe(false);
        expect(result!.typeCheckingWarnings).toEqual([
          { fieldRef: 'spec.validations[0].expression', warning: expect.stringContaining("undefined field 'tag'") },
        ]);
        expect(result!.expressions[0]!.problems).toEqual([
          expect.stringContaining("does not type-check against the schema: ERROR: <input>:1:12: undefined field 'tag'"),
        ]);
      },
    );
  });

  // The MutatingAdmissionPolicy of the defaults (src/policy/compile-defaults.ts): each mutation is evaluated with a
  // RuntimeCELCostBudget of its own, so each, with the variables it reaches, is held to it; the largest GeoDatabase
  // through a real API server with the policy alone is test/e2e/mutating-floor.e2e.test.ts's.
  describe("statically: the MutatingAdmissionPolicy of the defaults, each mutation within the API server's CEL budgets", () => {
    it(
      'GeoDatabase: every mutation type-checks against the hub schema, compiles as the API server compiles it at creation, and is within PerCallLimit and RuntimeCELCostBudget',
      { timeout: 300_000 },
      async () => {
        const contract = geoDatabaseContract();
        const manifests = [
          ...renderMutatingAdmissionPolicies([contract], installName),
          renderCustomResourceDefinition(contract, { target: { url: 'https://127.0.0.1:1' } }),
        ];
        const report = await estimatePolicyCosts(estimator, manifests);
        expect(report.policies).toHaveLength(1);
        const policy = report.policies[0]!;
        console.log(
          `${policy.name} (MutatingAdmissionPolicy): ${policy.expressions.map((expression) => `${expression.field} ${expression.cost?.max}`).join(', ')}; the dearest with its variables ${policy.total?.max}`,
        );
        expect(policy).toMatchObject({
          kind: 'MutatingAdmissionPolicy',
          name: admissionPolicyName(installName, contract),
          typeCheckingWarnings: [],
          problems: [],
          ok: true,
        });
        expect(policy.checkedAgainst).toEqual({
          group: contract.identity.group,
          version: contract.hub,
          kind: contract.identity.kind,
          resource: contract.identity.plural,
        });
        expect(policy.expressions.map((expression) => [expression.role, expression.outputType])).toEqual(
          Array.from({ length: 5 }, () => ['mutation', 'list(JSONPatch)']),
        );
        for (const expression of policy.expressions)
          expect(expression.cost!.max, expression.field).toBeLessThanOrEqual(perCallLimit);
        expect(policy.total!.max).toBeLessThanOrEqual(runtimeCELCostBudget);
      },
    );

    it(
      'negative control: a mutation over a list without maxItems, and one whose variables together exceed RuntimeCELCostBudget',
      { timeout: 120_000 },
      async () => {
        const variables = Array.from({ length: 40 }, (_, index) => ({
          name: `pairs${index}`,
          expression: pairs('tags'),
        }));
        const mutation = (value: string) => ({
          patchType: 'JSONPatch',
          jsonPatch: { expression: `[JSONPatch{op: "add", path: "/spec/flag", value: ${value}}]` },
        });
        const policy: Manifest = {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingAdmissionPolicy',
          metadata: { name: `gadgets-mutating-${runId}` },
          spec: {
            failurePolicy: 'Fail',
            reinvocationPolicy: 'Never',
            matchConstraints: {
              resourceRules: [
                {
                  apiGroups: [gadgets.spec.group],
                  apiVersions: ['v1'],
                  operations: ['CREATE', 'UPDATE'],
                  resources: ['gadgets'],
                },
              ],
            },
            variables,
            mutations: [
              mutation(pairs('notes')),
              mutation(variables.map(({ name }) => `variables.${name}`).join(' && ')),
            ],
          },
        };
        const [result] = (await estimatePolicyCosts(estimator, [gadgets.manifest, policy])).policies;
        expect(result!.ok).toBe(false);
        const [unbounded, summed] = result!.expressions.filter((expression) => expression.role === 'mutation');
        expect(unbounded!.problems).toEqual([expect.stringContaining('over PerCallLimit 1000000')]);
        expect(summed!.problems).toEqual([]);
        expect(summed!.cost!.max).toBeLessThan(perCallLimit);
        expect(summed!.costWithVariables!.max).toBeGreaterThan(runtimeCELCostBudget);
        expect(result!.problems).toContainEqual(
          expect.stringContaining('over RuntimeCELCostBudget 10000000 per mutation'),
        );
      },
    );
  });

  describe('at runtime: the largest objects through a real API server with the policy and no webhook', () => {
    let api: Rest | undefined;
    const rest = () => api ?? (api = restClient(cp.kubeconfigPath));
    // A namespace name at its longest (a DNS label): GeoDatabase's deletion message quotes it.
    const namespace = `budgets-${runId}-`.padEnd(63, 'n');
    /** What this file put in the API server, removed in reverse: policies first, then their CRDs and objects. */
    const installed: { crd: Manifest; policyName: string; probe?: Probe }[] = [];
    const tested: string[] = [];
    let metricsBefore = '';

    beforeAll(async () => {
      await expectNoWebhookFor(
        rest(),
        cases.map((budgetCase) => budgetCase.contract),
      );
      await rest()
        .send('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } })
        .then(expectStatus(201));
      metricsBefore = await scrapeApiServer(cp);
    }, 180_000);

    afterAll(async () => {
      if (api === undefined) return;
      const client = api;
      try {
        for (const { crd, policyName, probe } of installed.reverse()) {
          await removePolicy(client, policyName, probe);
          await removeCrd(client, crd);
        }
        // No controller-manager runs, so the namespace stays Terminating; it is empty by now, its name the run's own.
        await client.send('DELETE', `/api/v1/namespaces/${namespace}`).then(expectStatus(200, 202, 404));
      } finally {
        client.close();
      }
    }, 300_000);

    for (const budgetCase of cases) {
      const { contract } = budgetCase;
      const kind = contract.identity.kind;
      it(
        `${kind}: the largest allowed UPDATE is admitted, the largest forbidden one refused with the policy's 403, a protected DELETE refused and an unprotected one admitted`,
        { timeout: 300_000 },
        async () => {
          const scene = sceneFor(contract, namespace);
          const policyName = admissionPolicyName(installName, contract);
          const policyDenial = `ValidatingAdmissionPolicy '${policyName}' with binding '${policyName}' denied request: `;
          const crd = hubOnlyCrd(contract);
          installed.push({ crd, policyName });
          await installCrdWithoutWarnings(rest(), crd);
          const rendered = renderAdmissionPolicies([contract], installName);
          const policy = rendered[0] as unknown as { spec: { validations: { message?: string }[] } };
          const warnings = await applyStrict(rest(), rendered, fieldManager);
          expect(warnings, 'warnings from applying the policy and binding with fieldValidation=Strict').toEqual([]);

          const largest = largestValue(hubSpecSchema(contract), 'spec', 0) as Spec;
          const { old, allowed, forbidden } = budgetCase.edits(largest);
          const validate = createSchemaCompiler().compile(hubSpecSchema(contract), { rootPath: 'spec' });
          for (const [what, spec] of Object.entries({ largest, old, allowed, forbidden }))
            expect(validate(spec).map(formatFieldError), `the ${what} spec is valid`).toEqual([]);
          const machine = contract.transitions!;
          const protection = annotationProtections(contract)[0]!;
          // Annotations at their limit in total: a blank override (no override, but its whole length is read by the
          // policy's regular expression) beside the deletion protection, or beside nothing.
          const overrideLength =
            annotationBytes -
            machine.overrideAnnotation.length -
            protection.annotation.length -
            protection.equals.length;
          const blankOverride = { [machine.overrideAnnotation]: ' '.repeat(overrideLength) };
          const protectedAnnotations = { ...blankOverride, [protection.annotation]: protection.equals };

          const updated = await createLargest(
            rest(),
            scene,
            longestName('update', runId),
            old,
            protectedAnnotations,
            budgetCase.phase,
          );
          const send = (spec: Spec): KubeObject => ({
            ...updated,
            metadata: { ...updated.metadata, managedFields: undefined },
            spec,
          });
          const crdgateDecision = (spec: Spec) => evaluateTransition(machine, updated, send(spec));
          expect(crdgateDecision(allowed).denials.map(formatFieldError), 'crdgate allows the allowed update').toEqual(
            [],
          );
          const crdgateDenials = crdgateDecision(forbidden).denials.map(formatFieldError);
          expect(crdgateDenials.length, 'crdgate refuses the forbidden update').toBeGreaterThan(0);

          // The API server picks a new policy up from a watch, a moment after it is stored.
          const path = `${scene.collection}/${updated.metadata!.name}`;
          await eventually(
            `${policyName} to refuse the forbidden update`,
            async () => {
              const response = await rest().send('PUT', `${path}?dryRun=All`, send(forbidden));
              return response.status === 403 ? true : undefined;
            },
            { timeoutMs: 60_000 },
          );
          installed.at(-1)!.probe = { path, spec: forbidden };

          const refused = await rest().send('PUT', path, send(forbidden));
          expect(refused.status, refused.text).toBe(403);
          const refusal = messageOf(refused);
          expect(refusal).toContain(policyDenial);
          // The denial's messageExpression ran to the end on the largest object: its text, not a fallback.
          const said = refusal.slice(refusal.indexOf(policyDenial) + policyDenial.length);
          const fallbacks = policy.spec.validations.map((validation) => validation.message);
          expect(said.startsWith('failed expression') || fallbacks.includes(said), said).toBe(false);
          console.log(`${kind}: the largest forbidden update: ${said}`);

          const admitted = await rest().send('PUT', path, send(allowed));
          expect(admitted.status, admitted.text).toBe(200);
          expect((admitted.body as KubeObject).spec).toEqual(allowed);

          const lockedName = longestName('locked', runId);
          await createLargest(rest(), scene, lockedName, old, protectedAnnotations, budgetCase.phase);
          const locked = await rest().send('DELETE', `${scene.collection}/${lockedName}`);
          expect(locked.status, locked.text).toBe(403);
          expect(messageOf(locked)).toContain(policyDenial);
          expect(messageOf(locked)).toContain(lockedName);

          const unlockedName = longestName('unlocked', runId);
          await createLargest(rest(), scene, unlockedName, old, blankOverride, budgetCase.phase);
          const unlocked = await rest().send('DELETE', `${scene.collection}/${unlockedName}`);
          expect(unlocked.status, unlocked.text).toBe(200);
          tested.push(kind);
        },
      );
    }

    it(
      'negative control: a policy over RuntimeCELCostBudget on its largest object is refused with 422 and counted out_of_budget',
      { timeout: 300_000 },
      async () => {
        const policyName = overBudget.metadata.name;
        installed.push({ crd: gadgets.manifest, policyName });
        await installCrdWithoutWarnings(rest(), gadgets.manifest);
        expect(
          await applyStrict(
            rest(),
            [
              overBudget,
              {
                apiVersion: 'admissionregistration.k8s.io/v1',
                kind: 'ValidatingAdmissionPolicyBinding',
                metadata: { name: policyName },
                spec: { policyName, validationActions: ['Deny'] },
              },
            ],
            fieldManager,
          ),
        ).toEqual([]);
        const collection = `/apis/${gadgets.spec.group}/v1/namespaces/${namespace}/gadgets`;
        const tags = Array.from({ length: 200 }, (_, index) => `tag-${String(index).padStart(12, '0')}`);
        const created = (
          await rest()
            .send('POST', collection, {
              apiVersion: `${gadgets.spec.group}/v1`,
              kind: 'Gadget',
              metadata: { name: 'largest' },
              spec: { tags },
            })
            .then(expectStatus(201))
        ).body as KubeObject;
        const update = {
          ...created,
          metadata: { ...created.metadata, managedFields: undefined },
          spec: { tags: [...tags].reverse() },
        };
        const refused = await eventually(
          `${policyName} to refuse an update`,
          async () => {
            const response = await rest().send('PUT', `${collection}/largest`, update);
            return response.status === 200 ? undefined : response;
          },
          { timeoutMs: 60_000 },
        );
        expect(refused.status, refused.text).toBe(422);
        expect(messageOf(refused)).toContain(
          `ValidatingAdmissionPolicy '${policyName}' with binding '${policyName}' denied request: validation failed due to running out of cost budget`,
        );
        tested.push('Gadget');
      },
    );

    // A denial counts as error_type "invalid_error" (validating.ErrorType: anything but an admit that is neither a
    // compile error nor out of budget); an evaluation error is told from a denial by its 422 above, not here.
    it(
      'the API server counted the denials of each policy, and no evaluation out of budget or uncompiled',
      { timeout: 120_000 },
      async () => {
        expect(tested).toEqual([...cases.map(({ contract }) => contract.identity.kind), 'Gadget']);
        const after = await scrapeApiServer(cp);
        const count = (labels: Record<string, string>) =>
          metricSum(after, 'apiserver_validating_admission_policy_check_total', labels) -
          metricSum(metricsBefore, 'apiserver_validating_admission_policy_check_total', labels);
        for (const { contract } of cases) {
          const policy = admissionPolicyName(installName, contract);
          // The forbidden update (its dry-run probes too) and the protected deletion: the metric sees this policy.
          expect(
            count({ policy, error_type: 'invalid_error', enforcement_action: 'deny' }),
            `${policy}: denials`,
          ).toBeGreaterThanOrEqual(2);
          for (const errorType of ['out_of_budget', 'compile_error'])
            expect(count({ policy, error_type: errorType }), `${policy}: ${errorType}`).toBe(0);
        }
        // The same count is not zero where a policy did run out of budget.
        expect(
          count({ policy: overBudget.metadata.name, error_type: 'out_of_budget', enforcement_action: 'deny' }),
        ).toBeGreaterThanOrEqual(1);
      },
    );
  });
});

function summary(policy: CelCostPolicyReport): string {
  const format = (n: number | undefined) =>
    n === undefined ? '-' : n >= Number.MAX_SAFE_INTEGER ? 'unbounded' : n.toLocaleString('en-US');
  const byRole = (role: string) =>
    Math.max(
      ...policy.expressions
        .filter((expression) => expression.role === role)
        .map((expression) => expression.cost?.max ?? 0),
    );
  return [
    `${policy.name}: ${policy.expressions.length} expressions; largest ${policy.largest?.field} at ${format(policy.largest?.max)}`,
    `  largest variable ${format(byRole('variable'))}, validation ${format(byRole('validation'))}, messageExpression ${format(byRole('messageExpression'))}`,
    `  passes: validations ${format(policy.passes?.validations.max)}, messageExpressions ${format(policy.passes?.messageExpressions.max)}; total ${format(policy.total?.max)}`,
    ...policy.problems.map((problem) => `  problem: ${problem.split('\n')[0]}`),
  ].join('\n');
}

// ---- The largest objects ----

function hubSpecSchema(contract: Contract): JSONSchemaProps {
  const spec = contract.versions.find((version) => version.name === contract.hub)!.schema.properties?.['spec'];
  if (spec === undefined) throw new Error(`${contract.identity.kind}'s hub schema has no spec`);
  return spec;
}

/** A pattern of N dot-separated non-negative integers without leading zeros, as releases are written. */
function dottedReleaseParts(pattern: string): number | undefined {
  const part = '(0|[1-9][0-9]*)';
  for (let parts = 1; parts <= 8; parts++)
    if (pattern === `^${Array.from({ length: parts }, () => part).join('\\.')}$`) return parts;
  return undefined;
}

/**
 * The largest value a schema allows: every list at maxItems (keys distinct), every string at maxLength and still
 * valid for its pattern or format, integers at their maximum. `index` tells list items apart. A bound the schema
 * lacks, or a pattern this does not know, is an error: the largest object is then not defined here.
 */
function largestValue(schema: JSONSchemaProps, path: string, index: number): unknown {
  if (schema.enum !== undefined) return [...schema.enum].sort((a, b) => String(b).length - String(a).length)[0];
  switch (schema.type) {
    case 'object': {
      if (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
        throw new Error(`${path}: maps are not generated`);
      return Object.fromEntries(
        Object.entries(schema.properties ?? {}).map(([name, property]) => [
          name,
          largestValue(property, `${path}.${name}`, index),
        ]),
      );
    }
    case 'array': {
      if (schema.maxItems === undefined) throw new Error(`${path}: no maxItems, so no largest list`);
      return Array.from({ length: schema.maxItems }, (_, item) =>
        largestValue(schema.items as JSONSchemaProps, `${path}[${item}]`, item),
      );
    }
    case 'integer':
      return schema.maximum ?? (schema.format === 'int32' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER);
    case 'boolean':
      return true;
    case 'string':
      return largestString(schema, path, index);
    default:
      throw new Error(`${path}: no largest value for type ${schema.type}`);
  }
}

function largestString(schema: JSONSchemaProps, path: string, index: number): string {
  const length = schema.maxLength;
  if (length === undefined) throw new Error(`${path}: no maxLength, so no longest string`);
  const tag = String(index);
  if (schema.format === 'quantity') return `${(index % 9) + 1}`.padEnd(length - 2, '0') + 'Gi';
  if (schema.format === 'dns1123-label' || schema.pattern === '^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$')
    return `k${tag}-`.padEnd(length - 1, 'x') + 'z';
  const parts = schema.pattern === undefined ? undefined : dottedReleaseParts(schema.pattern);
  if (parts !== undefined) {
    const digits = length - (parts - 1);
    return Array.from({ length: parts }, (_, part) => {
      const width = Math.floor(digits / parts) + (part < digits % parts ? 1 : 0);
      return `${((index + part) % 9) + 1}`.padEnd(width, '0');
    }).join('.');
  }
  if (schema.pattern !== undefined || schema.format !== undefined)
    throw new Error(`${path}: no longest string for pattern ${schema.pattern} / format ${schema.format}`);
  return `s${tag}-`.padEnd(length, 'x');
}

/** A DNS subdomain at its longest, 253 characters in four labels, the run's and the object's tags in the first. */
function longestName(tag: string, runId: string): string {
  return [`${tag}-${runId}-`.padEnd(63, 'a'), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.');
}

interface Scene {
  contract: Contract;
  collection: string;
  namespace: string | undefined;
}

function sceneFor(contract: Contract, namespace: string): Scene {
  const { group, plural, scope } = contract.identity;
  const namespaced = scope === 'Namespaced';
  return {
    contract,
    collection: `/apis/${group}/${contract.hub}${namespaced ? `/namespaces/${namespace}` : ''}/${plural}`,
    namespace: namespaced ? namespace : undefined,
  };
}

/**
 * Creates an object (CREATE is not the policy's), writes its phase through the status subresource (not the
 * policy's either), and reads it back, checking that the API server stored the spec as sent.
 */
async function createLargest(
  api: Rest,
  scene: Scene,
  name: string,
  spec: Spec,
  annotations: Record<string, string>,
  phase: string,
): Promise<KubeObject> {
  const { contract } = scene;
  const metadata = { name, annotations, ...(scene.namespace ? { namespace: scene.namespace } : {}) };
  await api
    .send('POST', scene.collection, {
      apiVersion: `${contract.identity.group}/${contract.hub}`,
      kind: contract.identity.kind,
      metadata,
      spec,
    })
    .then(expectStatus(201));
  const path = `${scene.collection}/${name}`;
  const [root, ...below] = contract.transitions!.phasePath!.split('.');
  const status = below.reduceRight<unknown>((value, key) => ({ [key]: value }), phase);
  await api
    .send('PATCH', `${path}/status`, { [root!]: status }, 'application/merge-patch+json')
    .then(expectStatus(200));
  const stored = (await api.send('GET', path).then(expectStatus(200))).body as KubeObject;
  expect(stored.spec, `${name}: the spec as stored`).toEqual(spec);
  expect(stored.metadata?.annotations, `${name}: the annotations as stored`).toEqual(annotations);
  return stored;
}

// ---- Installing and removing the CRD and the policy ----

/** An object, and a spec the policy refuses for it: sent as a dry run, it tells when the policy is in effect. */
interface Probe {
  path: string;
  spec: Spec;
}

async function removePolicy(api: Rest, name: string, probe: Probe | undefined): Promise<void> {
  const base = '/apis/admissionregistration.k8s.io/v1';
  await api.send('DELETE', `${base}/validatingadmissionpolicybindings/${name}`).then(expectStatus(200, 404));
  await api.send('DELETE', `${base}/validatingadmissionpolicies/${name}`).then(expectStatus(200, 404));
  // Deleting the CRD deletes its objects, protected ones included: only once the policy has stopped refusing.
  if (probe) {
    await eventually(`${name} to be out of effect`, async () => {
      const current = (await api.send('GET', probe.path).then(expectStatus(200))).body as KubeObject;
      const response = await api.send('PUT', `${probe.path}?dryRun=All`, {
        ...current,
        metadata: { ...current.metadata, managedFields: undefined },
        spec: probe.spec,
      });
      return response.status === 200 ? true : undefined;
    });
  }
}

/** A namespaced kind with a list bounded by maxItems and one that is not, for the negative controls. */
function gadgetCrd(group: string): { manifest: Manifest; spec: { group: string } } {
  const manifest: Manifest = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `gadgets.${group}` },
    spec: {
      group,
      names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget', listKind: 'GadgetList' },
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
                    tags: { type: 'array', maxItems: 200, items: { type: 'string', maxLength: 16 } },
                    notes: { type: 'array', items: { type: 'string', maxLength: 64 } },
                  },
                },
              },
            },
          },
        },
      ],
    },
  };
  return { manifest, spec: { group } };
}

function messageOf(response: RestResponse): string {
  return String((response.body as { message?: unknown } | undefined)?.message ?? '');
}

/** installCrd, and the API server warns of nothing (crdgate's own formats are CEL rules in the CRD it renders). */
async function installCrdWithoutWarnings(api: Rest, crd: Manifest): Promise<void> {
  expect(await installCrd(api, crd, fieldManager), `warnings from applying ${crd.metadata.name}`).toEqual([]);
}
