import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineContract } from '../contract/define-contract.ts';
import { fromCrd, readCrdFile } from '../contract/from-crd.ts';
import { createContractRegistry } from '../contract/registry.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import type { AdmissionRequest } from './review.ts';
import { decideMutation } from './mutate.ts';
import { decideValidation } from './validate.ts';

// The denial for a kind no contract declares says what to fix: the API server calls the webhook for the resources it
// is registered for, with the kind the CRD declares, so a contract that says that resource's kind otherwise (the
// lowercase `postgresql` of an operator's CRD, written `Postgresql`) is named with both kinds.

const crd = readCrdFile(
  fileURLToPath(new URL('../../test/fixtures/crds/postgresqls.acid.example.com.yaml', import.meta.url)),
) as { spec: { names: Record<string, string> } };

/** The contract with its copy of the CRD's kind written UpperCamelCase. */
function renamedContract() {
  const renamed = structuredClone(crd);
  renamed.spec.names['kind'] = 'Postgresql';
  renamed.spec.names['listKind'] = 'PostgresqlList';
  return defineContract(fromCrd(renamed, { crdOwner: 'external' }));
}

const object: KubeObject = {
  apiVersion: 'acid.example.com/v1',
  kind: 'postgresql',
  metadata: { name: 'db', namespace: 'default' },
  spec: { teamId: 'acid', numberOfInstances: 1, postgresql: { version: '16' }, volume: { size: '1Gi' } },
};

const request = (resource: string): AdmissionRequest => ({
  uid: 'uid-1',
  kind: { group: 'acid.example.com', version: 'v1', kind: 'postgresql' },
  resource: { group: 'acid.example.com', version: 'v1', resource },
  operation: 'CREATE',
  object,
  oldObject: null,
});

describe('the denial of a kind no contract declares', () => {
  it("names the contract's kind and the API server's for the contract's resource, and what to fix", () => {
    const registry = createContractRegistry([renamedContract()]);
    for (const decide of [decideValidation, decideMutation]) {
      expect(decide(registry, request('postgresqls'))).toMatchObject({
        allowed: false,
        code: 'KIND_UNKNOWN',
        message:
          'crdgate has no contract for postgresql.acid.example.com: the contract for resource postgresqls.acid.example.com ' +
          "declares kind Postgresql, the API server sends kind postgresql: make the contract's kind equal the CRD's spec.names.kind",
      });
    }
  });

  it('lists the kinds it knows for another resource', () => {
    const registry = createContractRegistry([renamedContract()]);
    expect(decideValidation(registry, request('pgclusters'))).toMatchObject({
      code: 'KIND_UNKNOWN',
      message: 'crdgate has no contract for postgresql.acid.example.com (it knows: Postgresql.acid.example.com)',
    });
  });

  it('allows the lowercase kind when the contract is the CRD as written', () => {
    const registry = createContractRegistry([defineContract(fromCrd(crd, { crdOwner: 'external' }))]);
    expect(decideValidation(registry, request('postgresqls'))).toMatchObject({ allowed: true, code: 'ALLOWED' });
  });
});
