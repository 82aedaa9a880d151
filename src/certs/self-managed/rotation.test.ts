import { X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applyRotation, planRotation, renewalTime, type RotationPolicy } from './rotation.ts';
import { issuerIn, materialData, readMaterial, type CertificateMaterial } from './secret-material.ts';

const minute = 60_000;
const policy: RotationPolicy = {
  caValidityMs: 90 * minute,
  servingValidityMs: 30 * minute,
  caOverlapMs: 2 * minute,
  dnsNames: ['crdgate.crdgate-system.svc'],
  ipAddresses: ['127.0.0.1'],
  commonName: 'crdgate',
};
const trustsAll = () => true;
const trustsNone = () => false;

function step(material: CertificateMaterial | undefined, now: number, options: { forced?: 'ca' | 'serving'; trusts?: (ca: string) => boolean; policy?: RotationPolicy } = {}) {
  return planRotation({ material, now, policy: options.policy ?? policy, caBundlesTrust: options.trusts ?? trustsAll, ...(options.forced ? { forced: options.forced } : {}) });
}

/** Runs the plan until it has nothing to do, as the leader would with every caBundle injected at once. */
function settle(material: CertificateMaterial | undefined, now: number, forced?: 'ca' | 'serving'): { material: CertificateMaterial; kinds: string[] } {
  const kinds: string[] = [];
  let current = material;
  let pending = forced;
  for (let i = 0; i < 10; i++) {
    const plan = step(current, now, pending ? { forced: pending } : {});
    if (!plan.step) return { material: current!, kinds };
    kinds.push(plan.step.kind);
    current = applyRotation(plan.step, current, policy, now);
    pending = undefined;
  }
  throw new Error(`no rest after ${kinds.join(', ')}`);
}

describe('planRotation', () => {
  const start = Date.now();
  const issued = applyRotation({ kind: 'issue', reason: 'test' }, undefined, policy, start);

  it('issues a CA and a serving pair it signed, naming what was asked, when the Secret is empty', () => {
    expect(step(undefined, start).step?.kind).toBe('issue');
    expect(issued.caBundle).toEqual([issued.signingCa.certPem]);
    expect(issuerIn(issued.caBundle, issued.serving.certPem)).toBe(issued.signingCa.certPem);
    const names = new X509Certificate(issued.serving.certPem).subjectAltName;
    expect(names).toContain('DNS:crdgate.crdgate-system.svc');
    expect(names).toContain('IP Address:127.0.0.1');
  });

  it('rests on a fresh Secret until the serving certificate has a third of its lifetime left, then renews it with the same CA', () => {
    const plan = step(issued, start);
    expect(plan.step).toBeUndefined();
    expect(plan.recheckAt).toBe(renewalTime(issued.serving.certPem));
    expect(plan.recheckAt).toBeGreaterThan(start + 15 * minute);
    const due = step(issued, plan.recheckAt);
    expect(due.step?.kind).toBe('serving');
    const renewed = applyRotation(due.step!, issued, policy, plan.recheckAt);
    expect(renewed.serving.certPem).not.toBe(issued.serving.certPem);
    expect(issuerIn(renewed.caBundle, renewed.serving.certPem)).toBe(issued.signingCa.certPem);
  });

  it('renews the serving certificate when the names asked for change', () => {
    const other = { ...policy, ipAddresses: ['::1'] };
    expect(step(issued, start, { policy: other }).step?.kind).toBe('serving');
    const renewed = applyRotation({ kind: 'serving', reason: 'test' }, issued, other, start);
    expect(step(renewed, start, { policy: other }).step).toBeUndefined();
  });

  it('comes to rest after a forced rollover, with one CA that signs the serving certificate', () => {
    const { material, kinds } = settle(issued, start + 10 * minute, 'ca');
    // All at one instant: the overlap has not passed, so only the first step is taken.
    expect(kinds).toEqual(['ca_add']);
    expect(material.caBundle).toHaveLength(2);
  });

  it('rolls the CA over in three steps: the new CA joins, then signs, then the old one leaves', () => {
    const added = applyRotation(step(issued, start, { forced: 'ca' }).step!, issued, policy, start);
    expect(added.caBundle).toHaveLength(2);
    expect(added.nextCa).toBeDefined();
    expect(issuerIn([issued.signingCa.certPem], added.serving.certPem)).toBeDefined();

    // Within the overlap, and afterwards while a caBundle lacks the new CA, the serving pair does not move.
    expect(step(added, start + minute).step).toBeUndefined();
    expect(step(added, start + 3 * minute, { trusts: trustsNone }).step).toBeUndefined();
    const switchPlan = step(added, start + 3 * minute);
    expect(switchPlan.step?.kind).toBe('ca_switch');
    const switched = applyRotation(switchPlan.step!, added, policy, start + 3 * minute);
    expect(switched.nextCa).toBeUndefined();
    expect(switched.caBundle).toEqual(added.caBundle);
    expect(issuerIn(switched.caBundle, switched.serving.certPem)).toBe(added.nextCa!.certPem);

    expect(step(switched, start + 4 * minute).step).toBeUndefined();
    const retirePlan = step(switched, start + 5 * minute + 1);
    expect(retirePlan.step?.kind).toBe('ca_retire');
    const retired = applyRotation(retirePlan.step!, switched, policy, start + 5 * minute + 1);
    expect(retired.caBundle).toEqual([added.nextCa!.certPem]);
    expect(step(retired, start + 6 * minute).step).toBeUndefined();
  });

  it('starts a rollover by itself when a third of the CA lifetime remains', () => {
    const caDue = renewalTime(issued.signingCa.certPem);
    expect(caDue).toBeGreaterThan(start + 55 * minute);
    expect(step(issued, caDue - 1).step?.kind).toBe('serving');
    expect(step(issued, caDue).step?.kind).toBe('ca_add');
  });

  it('renews the serving certificate during a rollover with the CA that signs at the time', () => {
    const added = applyRotation({ kind: 'ca_add', reason: 'test' }, issued, policy, start);
    const plan = step(added, start + minute, { forced: 'serving' });
    expect(plan.step?.kind).toBe('serving');
    const renewed = applyRotation(plan.step!, added, policy, start + minute);
    expect(issuerIn(renewed.caBundle, renewed.serving.certPem)).toBe(issued.signingCa.certPem);
  });

  it('survives the trip through the Secret at every step, so that a new leader continues where the last one stopped', () => {
    const added = applyRotation({ kind: 'ca_add', reason: 'test' }, issued, policy, start);
    const { data, stepAt } = materialData(added);
    const reading = readMaterial(data, { 'crdgate.dev/rotation-step-at': stepAt! });
    expect(reading.state).toBe('usable');
    const read = (reading as { material: CertificateMaterial }).material;
    expect(step(read, start + 3 * minute).step?.kind).toBe('ca_switch');
    expect(read.signingCa.certPem).toBe(issued.signingCa.certPem);
  });
});

describe('readMaterial', () => {
  const material = applyRotation({ kind: 'issue', reason: 'test' }, undefined, policy, Date.now());
  const { data } = materialData(material);

  it('calls a Secret without certificate keys empty', () => {
    expect(readMaterial(undefined, undefined).state).toBe('empty');
    expect(readMaterial({ unrelated: 'eA==' }, undefined).state).toBe('empty');
  });

  it('names what is missing or mismatched', () => {
    const { ['tls.key']: _key, ...withoutKey } = data;
    expect(readMaterial(withoutKey, undefined)).toMatchObject({ state: 'unusable', problem: expect.stringContaining('tls.key') });
    const other = materialData(applyRotation({ kind: 'issue', reason: 'test' }, undefined, policy, Date.now())).data;
    expect(readMaterial({ ...data, 'ca.key': other['ca.key']! }, undefined)).toMatchObject({ state: 'unusable', problem: expect.stringContaining('ca.key') });
    expect(readMaterial({ ...data, 'tls.key': other['tls.key']! }, undefined)).toMatchObject({ state: 'unusable', problem: expect.stringContaining('tls.key') });
    expect(readMaterial({ ...data, 'ca.crt': Buffer.from('not a pem').toString('base64') }, undefined).state).toBe('unusable');
  });
});
