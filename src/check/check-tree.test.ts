import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { defineContract } from '../contract/define-contract.ts';
import { createContractRegistry } from '../contract/registry.ts';
import { clusterWidgetContract } from '../render/cluster-widget-contract.fixture.ts';
import { checkTree } from './check-tree.ts';
import { parseManifest } from './manifest-documents.ts';

// --strict-kinds: which groups the contracts claim whole.
const tree = parseManifest(
  'tree.yaml',
  [
    { apiVersion: 'widgets.example.org/v1', kind: 'Gadget', metadata: { name: 'g' } },
    { apiVersion: 'widgets.example.org/v1', kind: 'Widget', metadata: { name: 'w' }, spec: {} },
  ]
    .map((object) => stringify(object))
    .join('---\n'),
  'yaml',
);

describe('checkTree --strict-kinds', () => {
  it('denies another kind of a group whose contract owns its CRD', () => {
    const report = checkTree(createContractRegistry([clusterWidgetContract()]), tree, undefined, { strictKinds: true });
    expect(report.objects.map((object) => [object.kind, object.code])).toEqual([
      ['Gadget', 'KIND_UNKNOWN'],
      ['Widget', 'ALLOWED'],
    ]);
  });

  it("leaves the operator's other kinds alone when the contract guards a CRD it does not own", () => {
    const external = defineContract({ ...clusterWidgetContract(), crdOwner: 'external' });
    const report = checkTree(createContractRegistry([external]), tree, undefined, { strictKinds: true });
    expect(report.objects.map((object) => [object.kind, object.code])).toEqual([['Widget', 'ALLOWED']]);
    expect(report.skipped).toEqual({ 'Gadget.widgets.example.org': 1 });
  });
});
