import { describe, expect, it } from 'vitest';
import { matchWebhookConditions } from '../api-server-engine/engine.ts';
import { type Contract, type ContractDefinition } from '../contract/contract-definition.ts';
import { defineContract } from '../contract/define-contract.ts';
import { geoDatabaseContract } from '../contracts/geodatabase/index.ts';
import { matchConditionCostBound, matchConditionLimits } from './match-condition-limits.ts';
import { topLevelFieldCount } from './match-conditions.ts';
import { contractWebhooks, webhookReachProblems } from './webhook-reach.ts';

function geoWith(overrides: Partial<ContractDefinition>): Contract {
  const { storageVersion: _derived, ...definition } = geoDatabaseContract();
  return defineContract({ ...definition, ...overrides });
}

describe("the webhooks' match conditions against the API server's limits", () => {
  it('hold for the built-in contract and one that reads everything', () => {
    expect(webhookReachProblems([geoDatabaseContract(), geoWith({ reads: undefined })])).toEqual([]);
  });

  it('refuse a contract whose declared reads make a condition longer than the API server compiles', () => {
    const labels = Array.from({ length: 2_000 }, (_, i) => `example.com/label-${i}`);
    const problems = webhookReachProblems([geoWith({ reads: { labels, annotations: [], status: false } })]);
    expect(problems).toEqual([
      expect.stringMatching(
        /^webhook validate\.geodatabases\.geo\.example\.com: match condition update-changes-what-crdgate-judges is \d+ characters long, over the API server's limit of 100000$/,
      ),
      expect.stringMatching(
        /^webhook mutate\.geodatabases\.geo\.example\.com: match condition update-changes-what-the-defaults-see is \d+ characters long/,
      ),
    ]);
  });

  it('refuse a contract whose objects can have so many top-level fields that comparing them may cost more than one expression may', () => {
    const geo = geoDatabaseContract();
    const many = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, i) => [`field${i}`, { type: 'string' as const }]),
    );
    const wide = geoWith({
      versions: geo.versions.map((version) =>
        version.name === geo.hub
          ? { ...version, schema: { ...version.schema, properties: { ...version.schema.properties, ...many } } }
          : version,
      ),
    });
    expect(webhookReachProblems([wide])).toContainEqual(
      expect.stringMatching(
        /match condition update-changes-what-crdgate-judges may cost \d+, over the API server's limit of 1000000 for one expression/,
      ),
    );
  });

  it('bound what the API server measures, on objects as large as a request can be', () => {
    const contract = geoWith({ reads: undefined });
    const [main] = contractWebhooks(contract);
    const condition = main!.matchConditions[0]!;
    // Labels and a spec list as large as fit in a request, alike in both objects, so that every comparison runs in full.
    const labels = Object.fromEntries(Array.from({ length: 40_000 }, (_, i) => [`l${i}`, 'v']));
    const caches = Array.from({ length: 40_000 }, (_, i) => ({ name: `c${i}` }));
    const object = {
      apiVersion: 'geo.example.com/v1',
      kind: 'GeoDatabase',
      metadata: { name: 'big', namespace: 'maps', labels },
      spec: { caches },
      status: { note: 'x'.repeat(100_000) },
    };
    const measured = matchWebhookConditions({
      conditions: [condition],
      operation: 'UPDATE',
      kind: { group: 'geo.example.com', version: 'v1', kind: 'GeoDatabase' },
      resource: { group: 'geo.example.com', version: 'v1', resource: 'geodatabases' },
      name: 'big',
      namespace: 'maps',
      object,
      oldObject: structuredClone(object),
    });
    expect(measured).toMatchObject({ matches: false });
    const bound = matchConditionCostBound(
      condition.expression,
      topLevelFieldCount(contract.versions.find((v) => v.name === contract.hub)!.schema),
    );
    // Comparing 40,000 labels alone costs a tenth of that.
    expect(measured.cost).toBeGreaterThan(4_000);
    expect(measured.cost).toBeLessThanOrEqual(bound);
    expect(bound).toBeLessThanOrEqual(matchConditionLimits.perCallCost);
  });
});
