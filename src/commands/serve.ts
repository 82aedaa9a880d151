import { createServer } from 'node:net';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { hasServingCert } from '../certs/cert-dir-layout.ts';
import type { StoredObjectReader } from '../admission/scale.ts';
import type { CertificateManager, CertificateManagerOptions } from '../certs/self-managed/certificate-manager.ts';
import type { RotationPolicy } from '../certs/self-managed/rotation.ts';
import { secretAnnotations } from '../certs/self-managed/secret-material.ts';
import { dnsNameRules, isDns1123Label } from '../contract/dns-names.ts';
import { ownsCrd } from '../contract/define-contract.ts';
import { hubHasScale } from '../contract/scale-subresource.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { crdGateDefaults, developmentCertificate, manageCertsDefaults, serveDefaults } from '../config.ts';
import type { CrdGate } from '../crd-gate/crd-gate-route.ts';
import { crdRevisionOverrideAnnotation } from '../crd-gate/decide-crd-revision.ts';
import { defaultInstallName, installNameProblem, installNames, serviceDnsNames } from '../render/in-cluster-names.ts';
import type { ServingCertificate } from '../server/tls-files.ts';
import { createLogger, type Logger } from '../log.ts';
import { webhookEndpoints, type WebhookEndpoint } from '../server/app.ts';
import { startServer } from '../server/serve.ts';
import { externalContracts, ownerCrdName, ownerSchemaModes, type OwnerCrdTracker, type OwnerSchemaMode } from '../server/owner-crds.ts';
import type { KubeWatchApi } from '../kube/kube-api.ts';
import type { KubeObject } from '../contract/kube-object.ts';
import { durationOption, portOption, positiveInteger, stringList, stringOption, UsageError, type Command, type CommandIo, type ParsedValues } from './command.ts';
import { asSystemError } from './system-error.ts';
import { loadRegistry } from './contracts.ts';
import { keepValidatorsFromMaglev } from '../server/validator-jit.ts';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'run the HTTPS webhook server (validate, mutate, convert)',
  usage: `crdgate serve [--port ${serveDefaults.port}] [--cert-dir ${serveDefaults.certDir}] [--contract MODULE]... [--client-ca FILE]
              [--client-ca-endpoints validate,mutate,crd-gate] [--admission-body-limit BYTES] [--conversion-body-limit BYTES]
              [--drain-delay SECONDS] [--log-level LEVEL] [--owner-schema contract|live]
              [--crd-gate [--crd-gate-max-objects N] [--crd-gate-read-timeout DURATION] [--crd-rules FILE]]

  Serves POST /validate, /mutate, /convert and GET /healthz, /readyz, /metrics over HTTPS.
  Without tls.crt/tls.key in --cert-dir, development certificates (localhost, 127.0.0.1) are generated there.
  When a contract's hub version has a scale subresource, /scale reviews are judged on the object they scale,
  read from the API server with --kubeconfig [--context], else $KUBECONFIG, ~/.kube/config or the in-cluster
  service account (RBAC: get on that resource); without one they are denied.
  --client-ca FILE   require a client certificate signed by this CA (mTLS) on the endpoints named by
                     --client-ca-endpoints (default validate,mutate,crd-gate: kube-apiserver presents no client
                     certificate to conversion webhooks, so requiring one on convert breaks every read and
                     write through another version)
  --drain-delay N    seconds between SIGTERM (readiness fails) and closing the listener (default ${serveDefaults.drainDelaySeconds})
  --crd-gate         also serve POST /crd-gate, the gate on updates of CustomResourceDefinitions (crdgate manifests
                     --crd-gate renders its webhook for the CRDs it names): a revision the CRD revision rules
                     (--crd-rules FILE, as crdgate check takes it) or the CRD's live objects find unsafe is refused,
                     unless the write sets ${crdRevisionOverrideAnnotation} to a reason (good for that write only).
                     The live objects are read with the API client (RBAC: get and list, see --crd-gate of
                     manifests), at most --crd-gate-max-objects (default ${crdGateDefaults.maxObjects}) within --crd-gate-read-timeout
                     (default ${crdGateDefaults.readTimeoutMs / 1000}s, below the webhook's timeoutSeconds); past either, the revision is decided
                     on its own rules and a warning says so

  For a contract whose CRD someone else owns (crdOwner: 'external'), serve follows that CRD in the API server
  (list and watch of it by name; RBAC: get, list, watch on that customresourcedefinition) and reports where its
  schema differs from the contract's copy: a warning and crdgate_owner_crd_drift{crd,version}. Unreachable or
  forbidden, it keeps serving and says so (crdgate_owner_crd_watch_up 0).
  --owner-schema contract   validate with the contract's copy of the owner's schema (the default)
  --owner-schema live       validate with the owner's CRD as the API server holds it, swapped in at each change
                            (one that cannot be compiled keeps the schema in use); not ready until it was read

crdgate serve --manage-certs [--name ${defaultInstallName}] [--namespace NS] [--kubeconfig FILE] [--context NAME]
              [--cert-dns NAME,...] [--cert-ip ADDRESS,...] [--ca-validity 1095d] [--serving-validity 90d]
              [--ca-overlap 5m] [--lease-duration 15s] [other serve flags]

  The replicas keep their CA and serving pair in the Secret NAME-serving-cert of NS (default $POD_NAMESPACE) and
  follow it; the one holding the Lease NAME-certs fills it, renews the serving certificate when a third of its
  lifetime remains and rolls the CA over (the new CA joins every caBundle, the serving pair switches to it after
  --ca-overlap, the old CA leaves after another), and keeps the caBundle of the webhook configurations NAME and of
  each contract's CRD equal to the Secret's ca.crt. --cert-dir is not read. Ready only when the served
  certificate's CA is in every caBundle. The certificate names NAME.NS.svc and NAME.NS.svc.cluster.local, plus
  --cert-dns and --cert-ip (comma-separated; the leader's count). \`kubectl annotate secret NAME-serving-cert ${secretAnnotations.rotate}=ca\` (or =serving)
  rotates now. Without --kubeconfig: $KUBECONFIG, ~/.kube/config, or the in-cluster service account.`,
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'cert-dir': { type: 'string' },
    contract: { type: 'string', multiple: true },
    'client-ca': { type: 'string' },
    'client-ca-endpoints': { type: 'string' },
    'admission-body-limit': { type: 'string' },
    'conversion-body-limit': { type: 'string' },
    'drain-delay': { type: 'string' },
    'log-level': { type: 'string' },
    'manage-certs': { type: 'boolean' },
    name: { type: 'string' },
    namespace: { type: 'string' },
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    'cert-dns': { type: 'string' },
    'cert-ip': { type: 'string' },
    'ca-validity': { type: 'string' },
    'serving-validity': { type: 'string' },
    'ca-overlap': { type: 'string' },
    'lease-duration': { type: 'string' },
    'owner-schema': { type: 'string' },
    'crd-gate': { type: 'boolean' },
    'crd-gate-max-objects': { type: 'string' },
    'crd-gate-read-timeout': { type: 'string' },
    'crd-rules': { type: 'string' },
  },
  async run(values, io) {
    // Every flag is checked before anything is written or bound: a typo must not leave certificates behind.
    const port = portOption(values, 'port', serveDefaults.port);
    const host = stringOption(values, 'host') ?? '0.0.0.0';
    const certDir = resolve(io.cwd, stringOption(values, 'cert-dir') ?? serveDefaults.certDir);
    const clientCa = stringOption(values, 'client-ca');
    const clientCaEndpoints = endpointList(values, 'client-ca-endpoints');
    const limits = {
      admissionBytes: positiveInteger(values, 'admission-body-limit', serveDefaults.admissionBodyBytes),
      conversionBytes: positiveInteger(values, 'conversion-body-limit', serveDefaults.conversionBodyBytes),
    };
    const drainDelayMs = positiveInteger(values, 'drain-delay', serveDefaults.drainDelaySeconds, { allowZero: true }) * 1000;
    const logger = createLogger({ level: stringOption(values, 'log-level') ?? serveDefaults.logLevel });
    keepValidatorsFromMaglev();
    const registry = await loadRegistry(stringList(values, 'contract'), io.cwd);
    const selfManaged = values['manage-certs'] === true ? await selfManagedOptions(values, io, registry) : undefined;
    const readsStoredObjects = registry.contracts.some((compiled) => hubHasScale(compiled.contract));
    const followsOwnerCrds = externalContracts(registry).length > 0;
    const ownerSchema = ownerSchemaOption(values, followsOwnerCrds);
    const gatesCrds = values['crd-gate'] === true;
    if (!gatesCrds && ['crd-gate-max-objects', 'crd-gate-read-timeout', 'crd-rules'].some((flag) => values[flag] !== undefined)) {
      throw new UsageError('--crd-gate-max-objects, --crd-gate-read-timeout and --crd-rules only apply with --crd-gate');
    }
    if (!selfManaged) rejectSelfManagedFlags(values, readsStoredObjects || followsOwnerCrds || gatesCrds);
    for (const compiled of registry.contracts) {
      const { plural, group } = compiled.contract.identity;
      for (const warning of compiled.warnings) logger.warn({ contract: `${plural}.${group}`, warning }, 'the contract self-check warns');
    }
    const readStoredObject = readsStoredObjects ? await storedObjectReader(values, io, logger, selfManaged) : undefined;
    const ownerCrdApi = followsOwnerCrds ? await apiServerClient(values, io, selfManaged) : undefined;
    const crdGate = gatesCrds ? await crdGateOptions(values, io, logger, selfManaged) : undefined;
    await assertCanListen(port, host);

    if (!selfManaged && !(await hasServingCert(certDir))) {
      // node-forge is loaded only to make this certificate: a server given its certificate never carries it.
      const { writeCertDir } = await import('../certs/cert-dir.ts');
      const made = await writeCertDir(certDir, {
        dnsNames: [...developmentCertificate.dnsNames],
        ipAddresses: [...developmentCertificate.ipAddresses],
        days: developmentCertificate.days,
      }).catch((error: unknown) => asSystemError(error, `cannot write development certificates to ${certDir}`));
      logger.warn({ certDir, caCert: made.files.caCert }, 'no serving certificate found: generated a development certificate (for localhost and 127.0.0.1 only)');
    }

    let manager: CertificateManager | undefined;
    let ownerCrds: OwnerCrdTracker | undefined;
    const certificatesNotReady = selfManaged ? () => (manager ? manager.notReadyBecause() : 'the certificate manager has not started') : () => undefined;
    const server = await startServer({
      port,
      host,
      certDir,
      ...(selfManaged ? { certificate: selfManaged.placeholder } : {}),
      notReadyBecause: () => certificatesNotReady() ?? ownerCrds?.notReadyBecause(),
      ...(clientCa ? { clientCaFile: resolve(io.cwd, clientCa), clientCaEndpoints } : {}),
      registry,
      ...(readStoredObject ? { readStoredObject } : {}),
      ...(crdGate ? { crdGate } : {}),
      logger,
      limits,
      drainDelayMs,
    }).catch((error: unknown) => asSystemError(error, selfManaged ? `cannot serve on ${host}:${port}` : `cannot serve on ${host}:${port} with the certificates in ${certDir}`));
    if (selfManaged) {
      const { startCertificateManager } = await import('../certs/self-managed/certificate-manager.ts');
      const { placeholder: _placeholder, ...managerOptions } = selfManaged;
      manager = startCertificateManager({ ...managerOptions, serve: server.replaceCertificate, metrics: server.metrics.selfManaged, logger });
    }
    const stopFollowing = new AbortController();
    let following: Promise<void> | undefined;
    if (ownerCrdApi) {
      const { createOwnerCrdTracker, followOwnerCrds } = await import('../server/owner-crds.ts');
      let current = registry;
      ownerCrds = createOwnerCrdTracker({
        mode: ownerSchema,
        registry: () => current,
        replaceRegistry: (next) => {
          current = next;
          server.replaceRegistry(next);
        },
        metrics: server.metrics.ownerCrds,
        logger,
      });
      following = followOwnerCrds({ api: ownerCrdApi, tracker: ownerCrds, signal: stopFollowing.signal });
    }
    const kinds = crdNames(registry);
    logger.info(
      {
        port: server.port,
        ...(selfManaged ? { certificates: `secret ${selfManaged.namespace}/${selfManaged.secretName}`, identity: selfManaged.identity } : { certDir }),
        contracts: kinds,
        clientCertificateRequiredOn: clientCa ? clientCaEndpoints : [],
        ...(ownerCrds ? { ownerCrds: ownerCrds.contracts.map(ownerCrdName), ownerSchema } : {}),
      },
      'crdgate is serving',
    );

    const signal = await io.waitForStop();
    logger.info({ signal }, 'shutting down: readiness fails now, in-flight requests finish');
    // The Lease is given up at once, so that another replica takes over rotations without waiting for it to expire.
    stopFollowing.abort();
    await Promise.all([server.shutdown(), manager?.stop(), following]);
    logger.info('stopped');
    logger.flush();
    return 0;
  },
};

function crdNames(registry: ContractRegistry, { ownedOnly = false } = {}): string[] {
  return registry.contracts.filter((c) => !ownedOnly || ownsCrd(c.contract)).map((c) => `${c.contract.identity.plural}.${c.contract.identity.group}`);
}

const selfManagedFlags = ['name', 'namespace', 'kubeconfig', 'context', 'cert-dns', 'cert-ip', 'ca-validity', 'serving-validity', 'ca-overlap', 'lease-duration'];
const apiServerFlags = ['kubeconfig', 'context'];

function rejectSelfManagedFlags(values: ParsedValues, readsStoredObjects: boolean): void {
  const given = selfManagedFlags.filter((flag) => values[flag] !== undefined && !(readsStoredObjects && apiServerFlags.includes(flag)));
  if (given.length === 0) return;
  const apiServer = given.filter((flag) => apiServerFlags.includes(flag));
  const others = given.filter((flag) => !apiServerFlags.includes(flag));
  const flags = (list: string[]) => list.map((flag) => `--${flag}`).join(', ');
  throw new UsageError(
    [
      ...(others.length > 0 ? [`${flags(others)} only apply with --manage-certs`] : []),
      ...(apiServer.length > 0
        ? [`${flags(apiServer)} only apply with --manage-certs, --crd-gate, a contract whose hub has a scale subresource, or one whose CRD someone else owns (crdOwner: 'external')`]
        : []),
    ].join('; '),
  );
}

/**
 * The reader of the objects behind /scale reviews: the certificate manager's client when there is one, else one
 * over the kubeconfig (--kubeconfig, $KUBECONFIG, ~/.kube/config or the in-cluster service account). A kubeconfig
 * named on the command line must load now; a default one that cannot be loaded yet is tried again at each /scale
 * review (each denied until it loads), so a server started before its API server reads once it is up.
 */
async function storedObjectReader(values: ParsedValues, io: CommandIo, logger: Logger, selfManaged: SelfManagedOptions | undefined): Promise<StoredObjectReader> {
  const { createStoredObjectReader, storedObjectReadTimeoutMs } = await import('../kube/stored-object-reader.ts');
  if (selfManaged) return createStoredObjectReader(selfManaged.api);
  const { kubeConfigFromFlags } = await import('./kube-options.ts');
  const { createKubeApi } = await import('../kube/kube-api.ts');
  const file = stringOption(values, 'kubeconfig');
  const context = stringOption(values, 'context');
  const makeApi = async () => createKubeApi(await kubeConfigFromFlags(values, io.cwd), { timeoutMs: storedObjectReadTimeoutMs });
  try {
    return createStoredObjectReader(await makeApi());
  } catch (error) {
    if (file !== undefined || context !== undefined) throw error;
    logger.warn({ reason: (error as Error).message }, 'no API server client: /scale reviews are denied until one loads (tried again at each)');
    return createStoredObjectReader(makeApi);
  }
}

/**
 * The client that follows the owners' CRDs: the certificate manager's when there is one, else one over the kubeconfig.
 * A kubeconfig named on the command line must load now; a default one that cannot load yet is tried again by the
 * follower (serve keeps serving with the contracts' schemas meanwhile, and says why it cannot follow).
 */
async function apiServerClient(values: ParsedValues, io: CommandIo, selfManaged: SelfManagedOptions | undefined): Promise<() => Promise<KubeWatchApi>> {
  if (selfManaged) return async () => selfManaged.api;
  const { kubeConfigFromFlags } = await import('./kube-options.ts');
  const { createKubeApi } = await import('../kube/kube-api.ts');
  // No timeout shorter than a watch's: requests here are a list of one object and watches, which TCP keepalive ends.
  const timeoutMs = 30_000;
  if (stringOption(values, 'kubeconfig') === undefined && stringOption(values, 'context') === undefined) {
    // The follower logs each failure and tries again: a kubeconfig that does not load (yet) is a KubeconfigError,
    // which it logs as a reason, no stack.
    const { loadKubeConfig } = await import('../kube/kube-config.ts');
    return async () => createKubeApi(await loadKubeConfig(undefined, undefined, io.cwd), { timeoutMs });
  }
  const api = createKubeApi(await kubeConfigFromFlags(values, io.cwd), { timeoutMs });
  return async () => api;
}

async function crdGateOptions(values: ParsedValues, io: CommandIo, logger: Logger, selfManaged: SelfManagedOptions | undefined): Promise<CrdGate> {
  const maxObjects = positiveInteger(values, 'crd-gate-max-objects', crdGateDefaults.maxObjects);
  const timeoutMs = durationOption(values, 'crd-gate-read-timeout', crdGateDefaults.readTimeoutMs);
  if (timeoutMs >= crdGateDefaults.timeoutSeconds * 1000) throw new UsageError(`--crd-gate-read-timeout must be below the gate webhook's timeoutSeconds (${crdGateDefaults.timeoutSeconds}s)`);
  const rulesFile = stringOption(values, 'crd-rules');
  const rules = rulesFile === undefined ? undefined : await (await import('./crd-rules-file.ts')).readCrdRules(rulesFile, io.cwd);
  const api = await apiServerClient(values, io, selfManaged);
  const { readLiveObjects } = await import('../crd-gate/read-live-objects.ts');
  const { liveObjectJudge, warmLiveObjectJudge } = await import('../crd-gate/live-object-judge.ts');
  const cannotJudge = warmLiveObjectJudge();
  if (cannotJudge !== undefined) logger.warn({ reason: cannotJudge }, 'the CRD gate cannot judge live objects: it decides CRD revisions on their own rules, with a warning saying so');
  const reads = { api, bounds: { maxObjects, timeoutMs, pageSize: Math.min(crdGateDefaults.pageSize, maxObjects) }, judgeFor: (oldCrd: KubeObject, newCrd: KubeObject) => liveObjectJudge(oldCrd, newCrd, rules) };
  return { ...(rules ? { rules } : {}), readLive: (oldCrd: KubeObject, newCrd: KubeObject) => readLiveObjects(reads, oldCrd, newCrd) };
}

function ownerSchemaOption(values: ParsedValues, followsOwnerCrds: boolean): OwnerSchemaMode {
  const text = stringOption(values, 'owner-schema');
  if (text === undefined) return 'contract';
  if (!(ownerSchemaModes as readonly string[]).includes(text)) throw new UsageError(`--owner-schema takes ${ownerSchemaModes.join(' or ')}, got "${text}"`);
  if (!followsOwnerCrds) throw new UsageError("--owner-schema only applies to a contract whose CRD someone else owns (crdOwner: 'external')");
  return text as OwnerSchemaMode;
}

type SelfManagedOptions = Omit<CertificateManagerOptions, 'serve' | 'metrics' | 'logger'> & { placeholder: ServingCertificate };

async function selfManagedOptions(values: ParsedValues, io: CommandIo, registry: ContractRegistry): Promise<SelfManagedOptions> {
  const name = stringOption(values, 'name') ?? defaultInstallName;
  const nameProblem = installNameProblem(name, registry.contracts.map((c) => c.contract));
  if (nameProblem) throw new UsageError(`--name ${nameProblem}`);
  if (values['cert-dir'] !== undefined) throw new UsageError('--cert-dir does not apply with --manage-certs: the certificate comes from the Secret');
  const namespace = stringOption(values, 'namespace') ?? process.env.POD_NAMESPACE;
  if (!namespace) throw new UsageError('--manage-certs needs --namespace (or $POD_NAMESPACE, which the rendered Deployment sets)');
  if (!isDns1123Label(namespace)) throw new UsageError(`--namespace must be ${dnsNameRules.dns1123Label}, got "${namespace}"`);
  const policy: RotationPolicy = {
    caValidityMs: durationOption(values, 'ca-validity', manageCertsDefaults.caValidityMs),
    servingValidityMs: durationOption(values, 'serving-validity', manageCertsDefaults.servingValidityMs),
    caOverlapMs: durationOption(values, 'ca-overlap', manageCertsDefaults.caOverlapMs),
    dnsNames: [...serviceDnsNames({ name, namespace }), ...commaList(values, 'cert-dns')],
    ipAddresses: commaList(values, 'cert-ip'),
    commonName: name,
  };
  if (policy.servingValidityMs >= policy.caValidityMs) throw new UsageError('--serving-validity must be shorter than --ca-validity');
  const leaseDurationMs = durationOption(values, 'lease-duration', manageCertsDefaults.leaseDurationMs);
  // Replicas renew every 2/15 of it: below a few seconds they would spend their time writing the Lease.
  if (leaseDurationMs < 2000) throw new UsageError('--lease-duration must be at least 2s');
  const placeholder = await placeholderCertificate(policy);
  const { kubeConfigFromFlags } = await import('./kube-options.ts');
  const { createKubeApi } = await import('../kube/kube-api.ts');
  const kubeConfig = await kubeConfigFromFlags(values, io.cwd);
  const names = installNames(name);
  return {
    api: createKubeApi(kubeConfig, { timeoutMs: 30_000 }),
    namespace,
    secretName: names.servingCertSecret,
    leaseName: names.certLease,
    webhookConfigurationName: names.webhookConfiguration,
    // The CRDs crdgate installs: one its owner installs holds the owner's conversion webhook and caBundle.
    crdNames: crdNames(registry, { ownedOnly: true }),
    identity: process.env.POD_NAME || `${hostname()}-${process.pid}`,
    policy,
    leaseDurationMs,
    placeholder,
  };
}

function commaList(values: ParsedValues, name: string): string[] {
  return (stringOption(values, name) ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/**
 * What the server presents until the shared Secret has a pair: a self-signed certificate nobody trusts, so that the
 * port and the liveness probe answer while readiness says no. It carries the names asked for, so that a name no
 * certificate can carry (`--cert-ip localhost`) is a usage error now, not a renewal that fails every few seconds.
 */
async function placeholderCertificate(policy: RotationPolicy): Promise<ServingCertificate> {
  const { createCertificateAuthority, issueCertificate } = await import('../certs/pki.ts');
  const ca = createCertificateAuthority({ commonName: 'crdgate placeholder', days: 1 });
  try {
    const pair = issueCertificate(ca, { commonName: 'crdgate placeholder', dnsNames: policy.dnsNames, ipAddresses: policy.ipAddresses, days: 1, usage: 'server' });
    return { cert: Buffer.from(pair.certPem), key: Buffer.from(pair.keyPem) };
  } catch (error) {
    throw new UsageError(`--cert-dns/--cert-ip: ${(error as Error).message}`);
  }
}

function endpointList(values: ParsedValues, name: string): WebhookEndpoint[] {
  const text = stringOption(values, name);
  if (text === undefined) return ['validate', 'mutate'];
  const names = text.split(',').map((part) => part.trim().replace(/^\//, ''));
  const unknown = names.filter((part) => !(webhookEndpoints as readonly string[]).includes(part));
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(`--${name} takes a list of ${webhookEndpoints.join(', ')}, got "${text}"`);
  }
  return names as WebhookEndpoint[];
}

/**
 * Binds the address once and lets it go, so a port in use is reported before development certificates are
 * written. The real listener binds it again a moment later; losing that race is reported the same way.
 */
async function assertCanListen(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  }).catch((error: unknown) => asSystemError(error, `cannot listen on ${host}:${port}`));
}
