import { describe, expect, it } from 'vitest';
import { manifestsToYaml } from './manifest-yaml.ts';
import { renderNetworkPolicyFile } from './network-policy.ts';
import { renderServerWorkload } from './server-workload.ts';

describe('renderNetworkPolicyFile', () => {
  const file = renderNetworkPolicyFile('base/15-network-policy.yaml', { name: 'crdgate', namespace: 'ops' });
  const policy = file.manifests[0]!;
  const spec = policy['spec'] as any;
  const deployment = renderServerWorkload({ name: 'crdgate', namespace: 'ops' }, 'img').find(
    (m) => m.kind === 'Deployment',
  )!;
  const pod = (deployment['spec'] as any).template;

  it("selects the webhook server's pods and admits traffic to its serving port only, sending none out", () => {
    expect(spec.podSelector.matchLabels).toEqual(pod.metadata.labels);
    expect(spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(spec.ingress).toEqual([{ ports: [{ port: 'https', protocol: 'TCP' }] }]);
    expect(spec.egress).toEqual([]);
    const [container] = pod.spec.containers;
    expect(container.ports.map((p: { name: string }) => p.name)).toEqual(['https']);
    // The probes are on that same port, so the policy admits them too.
    expect([container.readinessProbe.httpGet.port, container.livenessProbe.httpGet.port]).toEqual(['https', 'https']);
  });

  it('says in the file why the source is open and how to tighten it', () => {
    const text = manifestsToYaml(file.manifests, file.comment);
    expect(text).toMatch(/^# Why any source: the API server's address cannot be known in general/m);
    expect(text).toMatch(/^# {9}- ipBlock: \{ cidr: /m);
  });

  it('lets the server reach the API server, and nothing else, when a contract has a scale subresource', () => {
    const reading = renderNetworkPolicyFile(
      'base/15-network-policy.yaml',
      { name: 'crdgate', namespace: 'ops' },
      { apiServerEgress: true },
    );
    const readingSpec = reading.manifests[0]!['spec'] as any;
    expect(readingSpec.egress).toEqual([
      {
        ports: [
          { port: 443, protocol: 'TCP' },
          { port: 6443, protocol: 'TCP' },
        ],
      },
    ]);
    expect(readingSpec.ingress).toEqual(spec.ingress);
    expect(reading.comment).toMatch(
      /^Traffic to crdgate's pods: .*\nsource; out, only to the API server, TCP 443 and 6443 to any address: a contract has a scale subresource/,
    );
    expect(file.comment).toContain('nothing out (the server calls no one, not even DNS)');
  });
});
