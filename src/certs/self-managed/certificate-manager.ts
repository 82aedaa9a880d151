import { followObject } from '../../kube/follow-object.ts';
import { KubeApiError, logFieldsOf, type KubeWatchApi } from '../../kube/kube-api.ts';
import { startLeaderElection } from '../../kube/leader-election.ts';
import type { Logger } from '../../log.ts';
import type { SelfManagedCertificateMetrics } from '../../server/metrics.ts';
import type { ServingCertificate } from '../../server/tls-files.ts';
import { caBundlePatch, caBundleTargets, targetTrusts, type CaBundleTarget } from './ca-bundle-targets.ts';
import { notReadyBecause as notReadyBecauseOf } from './readiness.ts';
import { applyRotation, planRotation, type RotationPolicy } from './rotation.ts';
import { issuerIn, materialData, notAfterMs, readMaterial, secretAnnotations, type CertificateMaterial, type MaterialReading } from './secret-material.ts';

// `serve --manage-certs`: every replica follows the shared Secret (and serves its pair) and the objects holding a
// caBundle (for its readiness); the replica holding the Lease also writes: it fills and rotates the Secret and
// puts the Secret's CA bundle into every caBundle that differs. Decisions are planRotation's and caBundlePatch's;
// this file only reads, writes and schedules.

export interface CertificateManagerOptions {
  api: KubeWatchApi;
  namespace: string;
  secretName: string;
  leaseName: string;
  webhookConfigurationName: string;
  crdNames: readonly string[];
  identity: string;
  policy: RotationPolicy;
  leaseDurationMs: number;
  /** Serve this pair from now on; false when the server refused it. */
  serve: (certificate: ServingCertificate) => boolean;
  metrics: SelfManagedCertificateMetrics;
  logger: Logger;
}

export interface CertificateManager {
  /** Why the served certificate's CA is not yet in every caBundle this install manages; undefined once it is. */
  notReadyBecause(): string | undefined;
  stop(): Promise<void>;
}

interface SecretObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string; annotations?: Record<string, string> };
  type?: string;
  data?: Record<string, string>;
}

export function startCertificateManager(options: CertificateManagerOptions): CertificateManager {
  const { api, namespace, secretName, logger, metrics } = options;
  const stop = new AbortController();
  const signal = stop.signal;
  const secretsPath = `/api/v1/namespaces/${namespace}/secrets`;
  const targets = caBundleTargets(options.webhookConfigurationName, options.crdNames);
  const targetObjects = new Map<CaBundleTarget, Record<string, unknown> | undefined>();
  // Targets seen trusting the signing CA at some point: one that stops is being repaired, one that never did (a
  // fresh install's empty caBundles) is being filled in for the first time.
  const seenTrusting = new Set<CaBundleTarget>();
  // Until each follower has listed once, nothing is known: neither ready nor safe to act on.
  const listed = new Set<unknown>();
  let secret: SecretObject | undefined;
  let reading: MaterialReading | undefined;
  let material: CertificateMaterial | undefined;
  let servedCertPem: string | undefined;

  function onSecret(object: Record<string, unknown> | undefined): void {
    listed.add('secret');
    secret = object as SecretObject | undefined;
    reading = readMaterial(secret?.data, secret?.metadata.annotations);
    material = reading.state === 'usable' ? reading.material : undefined;
    if (reading.state === 'unusable') logger.warn({ secret: `${namespace}/${secretName}`, problem: reading.problem }, 'the certificate Secret cannot be used');
    if (material && material.serving.certPem !== servedCertPem) {
      const served = options.serve({ cert: Buffer.from(material.serving.certPem), key: Buffer.from(material.serving.keyPem) });
      if (served) servedCertPem = material.serving.certPem;
    }
    const ca = servingCa();
    if (ca) metrics.caNotAfter.set(notAfterMs(ca) / 1000);
    updateReadiness();
    reconcileSoon();
  }

  function onTarget(target: CaBundleTarget, object: Record<string, unknown> | undefined): void {
    listed.add(target);
    targetObjects.set(target, object);
    if (object && material && targetTrusts(target, object, material.signingCa.certPem)) seenTrusting.add(target);
    updateReadiness();
    reconcileSoon();
  }

  /** The CA certificate that issued the pair this replica serves, as the Secret knows it. */
  function servingCa(): string | undefined {
    if (!servedCertPem || !material) return undefined;
    return issuerIn([...material.caBundle, ...(material.nextCa ? [material.nextCa.certPem] : [])], servedCertPem);
  }

  function everyCaBundleTrusts(caCertPem: string): boolean {
    return targets.every((target) => targetTrusts(target, targetObjects.get(target), caCertPem));
  }

  function notReadyBecause(): string | undefined {
    return notReadyBecauseOf({
      secret: `${namespace}/${secretName}`,
      secretReading: listed.has('secret') ? (secret ? reading : null) : undefined,
      servedCertPem,
      servingCaPem: servingCa(),
      targets,
      targetObjects,
    });
  }

  let lastReason: string | undefined = 'starting';
  function updateReadiness(): void {
    const reason = notReadyBecause();
    metrics.ready.set(reason === undefined ? 1 : 0);
    // The first lists come in one by one: their partial states are not news.
    if (reason === lastReason || listed.size < targets.length + 1) return;
    lastReason = reason;
    if (reason === undefined) logger.info('certificates ready: every caBundle trusts the served certificate');
    else logger.info({ reason }, 'certificates not ready');
  }

  // --- the leader's work: one reconcile at a time, again if something changed meanwhile ---
  let running: Promise<void> | undefined;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  function reconcileSoon(): void {
    if (!election.isLeader() || signal.aborted) return;
    if (running) {
      again = true;
      return;
    }
    running = reconcile()
      .catch((error: unknown) => {
        if (!signal.aborted) logger.warn(logFieldsOf(error), 'certificate reconcile failed: trying again');
        scheduleAt(Date.now() + 2000);
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          reconcileSoon();
        }
      });
  }

  function scheduleAt(at: number): void {
    clearTimeout(timer);
    // setTimeout holds at most 2^31-1 ms; a CA due in years is looked at again in a few weeks, which is harmless.
    timer = setTimeout(reconcileSoon, Math.min(Math.max(at - Date.now(), 0), 2 ** 31 - 1));
    timer.unref();
  }

  async function reconcile(): Promise<void> {
    // Read once per change of the Secret, by onSecret.
    const stored = reading;
    if (listed.size < targets.length + 1 || !stored) return;
    const forcedText = secret?.metadata.annotations?.[secretAnnotations.rotate];
    const forced = forcedText === 'ca' || forcedText === 'serving' ? forcedText : undefined;
    if (forcedText !== undefined && !forced) {
      logger.warn({ annotation: secretAnnotations.rotate, value: forcedText }, 'unknown rotation asked for: the annotation takes ca or serving, and is left as it is');
    }
    if (stored.state === 'unusable' && !forced) {
      // Overwriting would drop a CA the API servers may still trust, and the replicas serve the pair they have until
      // it expires: a person decides (the runbook's `crdgate.dev/rotate`), not the leader.
      logger.error(
        { secret: `${namespace}/${secretName}`, problem: stored.problem, fix: `kubectl -n ${namespace} annotate secret ${secretName} ${secretAnnotations.rotate}=ca` },
        'the certificate Secret cannot be used and is left as it is: annotate it to start over with a new CA',
      );
      return;
    }
    const now = Date.now();
    const plan = planRotation({
      material: stored.state === 'usable' ? stored.material : undefined,
      ...(forced ? { forced } : {}),
      now,
      policy: options.policy,
      caBundlesTrust: everyCaBundleTrusts,
    });
    if (plan.step) {
      const startsForced = forced !== undefined && ['issue', 'ca_add', 'serving'].includes(plan.step.kind);
      try {
        const next = applyRotation(plan.step, stored.state === 'usable' ? stored.material : undefined, options.policy, now);
        await writeSecret(next, startsForced);
        metrics.rotations.inc({ kind: plan.step.kind, result: 'success' });
        logger.info({ kind: plan.step.kind, result: 'success', why: plan.step.reason }, 'certificate rotation');
      } catch (error) {
        // Another write got there first (this replica's copy was old): its watch event brings the news and a new try.
        if (error instanceof KubeApiError && error.code === 409) return;
        metrics.rotations.inc({ kind: plan.step.kind, result: 'failure' });
        logger.warn({ kind: plan.step.kind, result: 'failure', why: plan.step.reason, ...logFieldsOf(error) }, 'certificate rotation');
        throw error;
      }
      again = true;
      return;
    }
    if (stored.state === 'usable') await injectCaBundles(stored.material);
    scheduleAt(plan.recheckAt);
  }

  async function writeSecret(next: CertificateMaterial, clearForced: boolean): Promise<void> {
    const { data, stepAt } = materialData(next);
    const annotations = { ...secret?.metadata.annotations };
    if (stepAt) annotations[secretAnnotations.stepAt] = stepAt;
    if (clearForced) delete annotations[secretAnnotations.rotate];
    let written: SecretObject;
    if (!secret) {
      written = (
        await api.request('POST', secretsPath, {
          body: { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: secretName, namespace, annotations }, data },
          signal,
        })
      ).body as SecretObject;
    } else {
      // The resourceVersion read makes this a compare-and-swap: two leaders, however briefly, cannot both win.
      written = (
        await api.request('PUT', `${secretsPath}/${secretName}`, {
          body: { ...secret, apiVersion: 'v1', kind: 'Secret', metadata: { ...secret.metadata, annotations }, data },
          signal,
        })
      ).body as SecretObject;
    }
    onSecret(written as unknown as Record<string, unknown>);
  }

  async function injectCaBundles(current: CertificateMaterial): Promise<void> {
    for (const target of targets) {
      const object = targetObjects.get(target);
      if (!object) continue;
      const patch = caBundlePatch(target, object, current.caBundle.join(''));
      if (!patch) continue;
      // A rollover's steps change every caBundle on purpose; a repair is a caBundle that trusted the signing CA once
      // and no longer does (blanked, or re-applied from manifests with an old CA).
      const broken = !targetTrusts(target, object, current.signingCa.certPem);
      const repair = broken && seenTrusting.has(target);
      try {
        const patched = await api.request('PATCH', `${target.collectionPath}/${target.name}`, { body: patch, contentType: 'application/json-patch+json', signal });
        if (repair) metrics.caBundleRepairs.inc({ resource: target.resource });
        logger.info({ resource: target.resource, object: target.name }, repair ? 'caBundle repaired' : broken ? 'caBundle injected' : 'caBundle updated');
        onTarget(target, patched.body as Record<string, unknown>);
      } catch (error) {
        // A failed test (the object changed since it was read) is answered 422 or 409: its watch event brings the
        // new version, and the next reconcile patches that.
        if (error instanceof KubeApiError && (error.code === 409 || error.code === 422)) continue;
        throw error;
      }
    }
  }

  const election = startLeaderElection(api, {
    namespace,
    name: options.leaseName,
    identity: options.identity,
    leaseDurationMs: options.leaseDurationMs,
    onLeading: (leading) => {
      metrics.leader.set(leading ? 1 : 0);
      if (leading) reconcileSoon();
    },
    logger,
    signal,
  });
  const followers = [
    followObject(api, { collectionPath: secretsPath, name: secretName, onChange: onSecret, logger, signal }),
    ...targets.map((target) =>
      followObject(api, { collectionPath: target.collectionPath, name: target.name, onChange: (object) => onTarget(target, object), logger, signal }),
    ),
  ];

  return {
    notReadyBecause,
    async stop() {
      stop.abort();
      clearTimeout(timer);
      await Promise.allSettled([election.done, ...followers, running]);
    },
  };
}
