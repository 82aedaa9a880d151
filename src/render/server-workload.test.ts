import { describe, expect, it } from 'vitest';
import { serveDefaults } from '../config.ts';
import type { Manifest } from './manifest.ts';
import { renderNamespace, renderServerWorkload } from './server-workload.ts';

const find = (manifests: Manifest[], kind: string): any => manifests.find((m) => m.kind === kind);

describe('renderServerWorkload', () => {
  const manifests = renderServerWorkload({ name: 'crdgate', namespace: 'ops' }, 'registry.example.com/crdgate:1.2.3');
  const deployment = find(manifests, 'Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];

  it('puts every object in the namespace', () => {
    expect(manifests.map((m) => [m.kind, m.metadata.namespace])).toEqual([
      ['ServiceAccount', 'ops'],
      ['Service', 'ops'],
      ['Deployment', 'ops'],
      ['PodDisruptionBudget', 'ops'],
    ]);
  });

  it('routes the Service port 443 to the container port the server listens on', () => {
    const service = find(manifests, 'Service');
    expect(service.metadata.name).toBe('crdgate');
    expect(service.spec.ports).toEqual([{ name: 'https', port: 443, targetPort: 'https', protocol: 'TCP' }]);
    expect(container.ports).toEqual([{ name: 'https', containerPort: serveDefaults.port, protocol: 'TCP' }]);
    expect(pod.containers[0].args).toEqual(['serve', '--cert-dir', '/etc/crdgate/certs']);
  });

  it('selects the pods with the same labels in the Service, the Deployment and the PodDisruptionBudget', () => {
    const podLabels = deployment.spec.template.metadata.labels;
    expect(find(manifests, 'Service').spec.selector).toEqual(podLabels);
    expect(deployment.spec.selector.matchLabels).toEqual(podLabels);
    expect(find(manifests, 'PodDisruptionBudget').spec).toEqual({
      minAvailable: 1,
      selector: { matchLabels: podLabels },
    });
  });

  it('runs two replicas of the image, probed over HTTPS, with the serving certificate mounted read-only', () => {
    expect(deployment.spec.replicas).toBe(2);
    expect(container.image).toBe('registry.example.com/crdgate:1.2.3');
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'https', scheme: 'HTTPS' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'https', scheme: 'HTTPS' });
    expect(container.volumeMounts).toEqual([{ name: 'serving-cert', mountPath: '/etc/crdgate/certs', readOnly: true }]);
    expect(pod.volumes).toEqual([
      { name: 'serving-cert', secret: { secretName: 'crdgate-serving-cert', defaultMode: 0o440 } },
    ]);
  });

  it('gives the pod longer to stop than the drain delay plus in-flight requests take', () => {
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(serveDefaults.drainDelaySeconds);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(serveDefaults.drainDelaySeconds + 30);
  });

  it('caps the JavaScript heap at a third of the memory limit, leaving the rest to bodies in flight, TLS and code', () => {
    const mebibytes = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)?.[1]);
    const heap = Number(
      /--max-old-space-size=(\d+)/.exec(
        container.env.find((e: { name: string }) => e.name === 'NODE_OPTIONS').value,
      )?.[1],
    );
    const limit = mebibytes(container.resources.limits.memory);
    expect(heap * 3).toBeLessThanOrEqual(limit);
    expect(limit - heap).toBeGreaterThan((serveDefaults.inFlightBodyBytes / 1024 / 1024) * 2);
  });

  it('runs as a non-root user on a read-only root filesystem, with no privileges and no API token', () => {
    expect(pod.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.resources.requests).toEqual({ cpu: '100m', memory: '180Mi' });
  });

  it('gives the server with the CRD gate room for the API server engine, above the webhook alone', () => {
    const mebibytes = (quantity: string) => Number(/^(\d+)Mi$/.exec(quantity)?.[1]);
    const gated = find(
      renderServerWorkload({ name: 'crdgate', namespace: 'ops' }, 'img', [], { readsApiServer: true, crdGate: true }),
      'Deployment',
    ).spec.template.spec.containers[0];
    expect(gated.args).toContain('--crd-gate');
    // What the gate and its native engine took above the server alone in crdgate's image (up to 140 MiB, measured
    // by test/e2e/crd-gate-image.e2e.test.ts), the limit's share with a fifth on top.
    expect(
      mebibytes(gated.resources.requests.memory) - mebibytes(container.resources.requests.memory),
    ).toBeGreaterThanOrEqual(140);
    expect(
      mebibytes(gated.resources.limits.memory) - mebibytes(container.resources.limits.memory),
    ).toBeGreaterThanOrEqual(168);
    // The WebAssembly engine, which crdgate falls back to where the native one cannot start, peaked at 420 MiB.
    expect(mebibytes(gated.resources.limits.memory)).toBeGreaterThan(420);
    expect(container.args).not.toContain('--crd-gate');
  });

  it('gives the pods their ServiceAccount token only when the server reads from the API server', () => {
    const reading = renderServerWorkload({ name: 'crdgate', namespace: 'ops' }, 'img', [], { readsApiServer: true });
    expect(find(reading, 'Deployment').spec.template.spec.automountServiceAccountToken).toBe(true);
    expect(find(reading, 'ServiceAccount').automountServiceAccountToken).toBe(false);
  });

  it('shares no object between manifests, so changing one cannot change another', () => {
    deployment.metadata.labels.changed = 'yes';
    expect(find(manifests, 'Service').spec.selector).not.toHaveProperty('changed');
    expect(deployment.spec.selector.matchLabels).not.toHaveProperty('changed');
  });
});

describe('renderNamespace', () => {
  it('enforces the restricted Pod Security Standard, and warns when a workload breaks it', () => {
    expect(renderNamespace('ops')).toEqual({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name: 'ops',
        labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' },
      },
    });
  });
});
