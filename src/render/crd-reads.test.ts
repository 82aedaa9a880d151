import { describe, expect, it } from 'vitest';
import { crdReadRules, crdResourceOf, renderCrdReadsFile } from './crd-reads.ts';

describe('crdResourceOf', () => {
  it("splits a CRD's name into its plural and group", () => {
    expect(crdResourceOf('widgets.example.org')).toEqual({ plural: 'widgets', group: 'example.org' });
  });

  it.each(['widgets', '.example.org', 'widgets.org', 'Widgets.example.org', 'widgets.exa mple.org', 'widgets.'])(
    'refuses %j, naming it',
    (name) => {
      const resource = crdResourceOf(name);
      expect('problem' in resource && resource.problem).toContain(JSON.stringify(name));
    },
  );
});

describe('crdReadRules', () => {
  it('gets the CRDs by name and lists their resources, grouped by API group, and nothing else', () => {
    expect(crdReadRules(['widgets.example.org', 'gadgets.example.org', 'pipes.other.example.com'])).toEqual([
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions'],
        resourceNames: ['widgets.example.org', 'gadgets.example.org', 'pipes.other.example.com'],
        verbs: ['get'],
      },
      { apiGroups: ['example.org'], resources: ['widgets', 'gadgets'], verbs: ['list'] },
      { apiGroups: ['other.example.com'], resources: ['pipes'], verbs: ['list'] },
    ]);
  });

  it('renders no file without names, and one unbound ClusterRole named after the install with them', () => {
    expect(renderCrdReadsFile('base/14-crd-reads.yaml', [], { name: 'crdgate', namespace: 'x' })).toEqual([]);
    const [file] = renderCrdReadsFile('base/14-crd-reads.yaml', ['widgets.example.org'], {
      name: 'team',
      namespace: 'x',
    });
    expect(file!.manifests.map((manifest) => [manifest.kind, (manifest.metadata as { name: string }).name])).toEqual([
      ['ClusterRole', 'team-crd-reads'],
    ]);
  });
});
