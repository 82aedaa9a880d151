import { followObject } from '../../kube/follow-object.ts';
import { KubeApiError, logFieldsOf, type KubeWatchApi } from '../../kube/kube-api.ts';
import { startLeaderElection, type LeaderElection } from '../../kube/leader-election.ts';
import type { Logger } from '../../log.ts';
import type { ServingCertificate } from '../serving-certificate.ts';
import type { SelfManagedCertificateMetrics } from './certificate-metrics.ts';
import { caBundlePatch, caBundleTargets, targetTrusts, type CaBundleTarget } from './ca-bundle-targets.ts';
import { notReadyBecause as notReadyBecauseOf } from './readiness.ts';
import { applyRotation, planRotation, type RotationPolicy, type RotationStep } from './rotation.ts';
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

/** What one reconcile decided about the next: run again at once, look again at a time, or wait for a watch's news. */
type Next = 'again' | 'wait' | { at: number };

/** A reconcile that failed is tried again after this long (or sooner, when a watch brings news). */
const RETRY_AFTER_FAILURE_MS = 2000;

export function startCertificateManager(options: CertificateManagerOptions): CertificateManager {
  return new CertificateReconciler(options);
}

/**
 * Everything this replica knows of the Secret and the caBundle targets, as the watches last brought it. Every
 * replica keeps it (for its readiness and the pair it serves); only the leader acts on it.
 */
class Observed {
  secret: SecretObject | undefined;
  /** The Secret as last read; undefined until it was. */
  reading: MaterialReading | undefined;
  /** The certificate this replica serves, once the server took one from the Secret. */
  servedCertPem: string | undefined;
  /** Each target as last read; a target with no entry has not been listed yet, one mapped to undefined does not exist. */
  readonly targetObjects = new Map<CaBundleTarget, Record<string, unknown> | undefined>();
  /**
   * Targets seen trusting the signing CA at some point: one that stops is being repaired, one that never did (a
   * fresh install's empty caBundles) is being filled in for the first time.
   */
  readonly seenTrusting = new Set<CaBundleTarget>();
  /** Until each follower has listed once, nothing is known: neither ready nor safe to act on. */
  private readonly listed = new Set<unknown>();
  private readonly followed: number;

  constructor(targets: number) {
    this.followed = targets + 1;
  }

  get material(): CertificateMaterial | undefined {
    return this.reading?.state === 'usable' ? this.reading.material : undefined;
  }

  get complete(): boolean {
    return this.listed.size === this.followed;
  }

  get secretListed(): boolean {
    return this.listed.has('secret');
  }

  setSecret(secret: SecretObject | undefined): void {
    this.listed.add('secret');
    this.secret = secret;
    this.reading = readMaterial(secret?.data, secret?.metadata.annotations);
  }

  setTarget(target: CaBundleTarget, object: Record<string, unknown> | undefined): void {
    this.listed.add(target);
    this.targetObjects.set(target, object);
    const material = this.material;
    if (object && material && targetTrusts(target, object, material.signingCa.certPem)) this.seenTrusting.add(target);
  }

  /** The CA certificate that issued the pair this replica serves, as the Secret knows it. */
  servingCa(): string | undefined {
    const material = this.material;
    if (!this.servedCertPem || !material) return undefined;
    return issuerIn([...material.caBundle, ...(material.nextCa ? [material.nextCa.certPem] : [])], this.servedCertPem);
  }
}

/**
 * The manager: the watches feed `observed`; each change asks for a reconcile, which runs on the leader only, one at
 * a time (`reconcileLoop`), and returns what it decided about the next one.
 */
class CertificateReconciler implements CertificateManager {
  private readonly options: CertificateManagerOptions;
  private readonly logger: Logger;
  private readonly metrics: SelfManagedCertificateMetrics;
  private readonly secretsPath: string;
  private readonly targets: readonly CaBundleTarget[];
  private readonly observed: Observed;
  private readonly stopping = new AbortController();
  private readonly election: LeaderElection;
  private readonly followers: Promise<void>[];
  /** The last readiness logged: the log says when it changes. */
  private lastReason: string | undefined = 'starting';
  /** The reconcile loop while it runs; a request meanwhile sets `requested`, and the loop goes round once more. */
  private running: Promise<void> | undefined;
  private requested = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: CertificateManagerOptions) {
    this.options = options;
    this.logger = options.logger;
    this.metrics = options.metrics;
    this.secretsPath = `/api/v1/namespaces/${options.namespace}/secrets`;
    this.targets = caBundleTargets(options.webhookConfigurationName, options.crdNames);
    this.observed = new Observed(this.targets.length);
    const { api, logger } = options;
    const signal = this.stopping.signal;
    this.election = startLeaderElection(api, {
      namespace: options.namespace,
      name: options.leaseName,
      identity: options.identity,
      leaseDurationMs: options.leaseDurationMs,
      onLeading: (leading) => {
        this.metrics.leader.set(leading ? 1 : 0);
        if (leading) this.reconcileSoon();
      },
      logger,
      signal,
    });
    this.followers = [
      followObject(api, { collectionPath: this.secretsPath, name: options.secretName, onChange: (object) => this.onSecret(object), logger, signal }),
      ...this.targets.map((target) =>
        followObject(api, { collectionPath: target.collectionPath, name: target.name, onChange: (object) => this.onTarget(target, object), logger, signal }),
      ),
    ];
  }

  notReadyBecause(): string | undefined {
    const { observed } = this;
    return notReadyBecauseOf({
      secret: `${this.options.namespace}/${this.options.secretName}`,
      secretReading: observed.secretListed ? (observed.secret ? observed.reading : null) : undefined,
      servedCertPem: observed.servedCertPem,
      servingCaPem: observed.servingCa(),
      targets: this.targets,
      targetObjects: observed.targetObjects,
    });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    clearTimeout(this.timer);
    await Promise.allSettled([this.election.done, ...this.followers, this.running]);
  }

  // --- what every replica does with the news ---

  private onSecret(object: Record<string, unknown> | undefined): void {
    const { observed } = this;
    observed.setSecret(object as SecretObject | undefined);
    const reading = observed.reading;
    if (reading?.state === 'unusable') this.logger.warn({ secret: this.secretName(), problem: reading.problem }, 'the certificate Secret cannot be used');
    const material = observed.material;
    if (material && material.serving.certPem !== observed.servedCertPem) {
      const served = this.options.serve({ cert: Buffer.from(material.serving.certPem), key: Buffer.from(material.serving.keyPem) });
      if (served) observed.servedCertPem = material.serving.certPem;
    }
    const ca = observed.servingCa();
    if (ca) this.metrics.caNotAfter.set(notAfterMs(ca) / 1000);
    this.updateReadiness();
    this.reconcileSoon();
  }

  private onTarget(target: CaBundleTarget, object: Record<string, unknown> | undefined): void {
    this.observed.setTarget(target, object);
    this.updateReadiness();
    this.reconcileSoon();
  }

  private updateReadiness(): void {
    const reason = this.notReadyBecause();
    this.metrics.ready.set(reason === undefined ? 1 : 0);
    // The first lists come in one by one: their partial states are not news.
    if (reason === this.lastReason || !this.observed.complete) return;
    this.lastReason = reason;
    if (reason === undefined) this.logger.info('certificates ready: every caBundle trusts the served certificate');
    else this.logger.info({ reason }, 'certificates not ready');
  }

  // --- the leader's work: one reconcile at a time, again if something changed meanwhile ---

  private mayAct(): boolean {
    return this.election.isLeader() && !this.stopping.signal.aborted;
  }

  /**
   * Asks for a reconcile: it starts in a moment, or, when one is running, runs once more after it. `running` is set
   * before the loop's first step, so a watch event that the loop's own write brings at once cannot start a second loop.
   */
  private reconcileSoon(): void {
    if (!this.mayAct()) return;
    this.requested = true;
    this.running ??= Promise.resolve().then(() => this.reconcileLoop());
  }

  /**
   * Reconciles while asked to and leading, each time doing what the reconcile decided: at once again, a timer for its
   * recheck time, or nothing until a watch brings news. It clears `running` in the same step as its last look at
   * `requested`: a request never falls between the two.
   */
  private async reconcileLoop(): Promise<void> {
    try {
      while (this.requested && this.mayAct()) {
        this.requested = false;
        const next = await this.reconcileOnce();
        if (next === 'again') this.requested = true;
        else if (next !== 'wait') this.scheduleAt(next.at);
      }
    } finally {
      this.running = undefined;
    }
  }

  private async reconcileOnce(): Promise<Next> {
    try {
      return await this.reconcile();
    } catch (error) {
      if (!this.stopping.signal.aborted) this.logger.warn(logFieldsOf(error), 'certificate reconcile failed: trying again');
      return { at: Date.now() + RETRY_AFTER_FAILURE_MS };
    }
  }

  private scheduleAt(at: number): void {
    clearTimeout(this.timer);
    // setTimeout holds at most 2^31-1 ms; a CA due in years is looked at again in a few weeks, which is harmless.
    this.timer = setTimeout(() => this.reconcileSoon(), Math.min(Math.max(at - Date.now(), 0), 2 ** 31 - 1));
    this.timer.unref();
  }

  /**
   * One look at what the watches brought: take the rotation's next step if one is due (then look again at once), or
   * else put the Secret's bundle into every caBundle and look again when the plan says something falls due.
   */
  private async reconcile(): Promise<Next> {
    // Read once per change of the Secret, by onSecret.
    const { reading: stored, secret } = this.observed;
    if (!this.observed.complete || !stored) return 'wait';
    const forced = this.forcedRotation(secret);
    if (stored.state === 'unusable' && !forced) {
      // Overwriting would drop a CA the API servers may still trust, and the replicas serve the pair they have until
      // it expires: a person decides (the runbook's `crdgate.dev/rotate`), not the leader.
      const { namespace, secretName } = this.options;
      this.logger.error(
        { secret: this.secretName(), problem: stored.problem, fix: `kubectl -n ${namespace} annotate secret ${secretName} ${secretAnnotations.rotate}=ca` },
        'the certificate Secret cannot be used and is left as it is: annotate it to start over with a new CA',
      );
      return 'wait';
    }
    const material = stored.state === 'usable' ? stored.material : undefined;
    const now = Date.now();
    const plan = planRotation({
      material,
      ...(forced ? { forced } : {}),
      now,
      policy: this.options.policy,
      caBundlesTrust: (caCertPem) => this.targets.every((target) => targetTrusts(target, this.observed.targetObjects.get(target), caCertPem)),
    });
    if (plan.step) return this.rotate(plan.step, material, forced !== undefined, now);
    if (material) await this.injectCaBundles(material);
    return { at: plan.recheckAt };
  }

  /** What the Secret's rotate annotation asks for; an unknown value is said and left as it is. */
  private forcedRotation(secret: SecretObject | undefined): 'ca' | 'serving' | undefined {
    const text = secret?.metadata.annotations?.[secretAnnotations.rotate];
    if (text === 'ca' || text === 'serving') return text;
    if (text !== undefined) {
      this.logger.warn({ annotation: secretAnnotations.rotate, value: text }, 'unknown rotation asked for: the annotation takes ca or serving, and is left as it is');
    }
    return undefined;
  }

  /** Takes one step of the rotation: the Secret written, or another writer's newer Secret to wait for. */
  private async rotate(step: RotationStep, material: CertificateMaterial | undefined, forced: boolean, now: number): Promise<Next> {
    const startsForced = forced && ['issue', 'ca_add', 'serving'].includes(step.kind);
    try {
      await this.writeSecret(applyRotation(step, material, this.options.policy, now), startsForced);
    } catch (error) {
      // Another write got there first (this replica's copy was old): its watch event brings the news and a new try.
      if (error instanceof KubeApiError && error.code === 409) return 'wait';
      this.metrics.rotations.inc({ kind: step.kind, result: 'failure' });
      this.logger.warn({ kind: step.kind, result: 'failure', why: step.reason, ...logFieldsOf(error) }, 'certificate rotation');
      throw error;
    }
    this.metrics.rotations.inc({ kind: step.kind, result: 'success' });
    this.logger.info({ kind: step.kind, result: 'success', why: step.reason }, 'certificate rotation');
    return 'again';
  }

  private async writeSecret(next: CertificateMaterial, clearForced: boolean): Promise<void> {
    const { api, namespace, secretName } = this.options;
    const secret = this.observed.secret;
    const { data, stepAt } = materialData(next);
    const annotations = { ...secret?.metadata.annotations };
    if (stepAt) annotations[secretAnnotations.stepAt] = stepAt;
    if (clearForced) delete annotations[secretAnnotations.rotate];
    const signal = this.stopping.signal;
    const written = secret
      ? // The resourceVersion read makes this a compare-and-swap: two leaders, however briefly, cannot both win.
        await api.request('PUT', `${this.secretsPath}/${secretName}`, { body: { ...secret, apiVersion: 'v1', kind: 'Secret', metadata: { ...secret.metadata, annotations }, data }, signal })
      : await api.request('POST', this.secretsPath, { body: { apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: secretName, namespace, annotations }, data }, signal });
    this.onSecret(written.body as Record<string, unknown>);
  }

  private async injectCaBundles(current: CertificateMaterial): Promise<void> {
    for (const target of this.targets) {
      const object = this.observed.targetObjects.get(target);
      if (!object) continue;
      const patch = caBundlePatch(target, object, current.caBundle.join(''));
      if (!patch) continue;
      // A rollover's steps change every caBundle on purpose; a repair is a caBundle that trusted the signing CA once
      // and no longer does (blanked, or re-applied from manifests with an old CA).
      const broken = !targetTrusts(target, object, current.signingCa.certPem);
      const repair = broken && this.observed.seenTrusting.has(target);
      try {
        const patched = await this.options.api.request('PATCH', `${target.collectionPath}/${target.name}`, { body: patch, contentType: 'application/json-patch+json', signal: this.stopping.signal });
        if (repair) this.metrics.caBundleRepairs.inc({ resource: target.resource });
        this.logger.info({ resource: target.resource, object: target.name }, repair ? 'caBundle repaired' : broken ? 'caBundle injected' : 'caBundle updated');
        this.onTarget(target, patched.body as Record<string, unknown>);
      } catch (error) {
        // A failed test (the object changed since it was read) is answered 422 or 409: its watch event brings the
        // new version, and the next reconcile patches that.
        if (error instanceof KubeApiError && (error.code === 409 || error.code === 422)) continue;
        throw error;
      }
    }
  }

  private secretName(): string {
    return `${this.options.namespace}/${this.options.secretName}`;
  }
}
