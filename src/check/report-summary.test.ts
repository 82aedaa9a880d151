import { describe, expect, it } from 'vitest';
import { skippedCustomKinds, skippedCustomKindsNote } from './report-summary.ts';

describe('the skipped kinds that are custom resources', () => {
  it("are those of a dotted group that is not one of Kubernetes' own", () => {
    const skippedKinds = {
      ConfigMap: 2,
      'Deployment.apps': 1,
      'Ingress.networking.k8s.io': 1,
      'postgresql.acid.zalan.do': 4,
      'Certificate.cert-manager.io': 1,
    };
    expect(skippedCustomKinds({ skippedKinds })).toEqual({
      'postgresql.acid.zalan.do': 4,
      'Certificate.cert-manager.io': 1,
    });
  });

  it('make a note of how to have them decided, and built-in kinds alone make none', () => {
    expect(skippedCustomKindsNote({ skippedKinds: { ConfigMap: 2, 'Deployment.apps': 1 } })).toBeUndefined();
    expect(skippedCustomKindsNote({ skippedKinds: { 'postgresql.acid.zalan.do': 4 } })).toBe(
      'note: custom resources were not decided (postgresql.acid.zalan.do 4): give their CRD with --crd, or the contract that guards them with --contract',
    );
  });
});
