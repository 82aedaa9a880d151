import { secretAnnotations } from '../../certs/self-managed/secret-material.ts';
import { crdGateDefaults, serveDefaults } from '../../config.ts';
import { crdRevisionOverrideAnnotation } from '../../crd-gate/decide-crd-revision.ts';
import { createLogger } from '../../log.ts';
import { defaultInstallName } from '../../render/in-cluster-names.ts';
import { releaseStartUpGarbage } from '../../server/start-up-memory.ts';
import { keepValidatorsFromMaglev } from '../../server/validator-jit.ts';
import type { Command } from '../command.ts';
import { loadRegistry } from '../contracts.ts';
import { readServeFlags, servedHelpers } from './flags.ts';
import { startServing } from './serving.ts';

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
    const flags = readServeFlags(values, io.cwd, process.env);
    const logger = createLogger({ level: flags.logLevel });
    keepValidatorsFromMaglev();
    const registry = await loadRegistry(flags.contracts, io.cwd);
    const helpers = servedHelpers(flags, registry);
    for (const compiled of registry.contracts) {
      const { plural, group } = compiled.contract.identity;
      for (const warning of compiled.warnings)
        logger.warn({ contract: `${plural}.${group}`, warning }, 'the contract self-check warns');
    }
    releaseStartUpGarbage();
    const serving = await startServing(flags, helpers, registry, { cwd: io.cwd, logger });

    const signal = await io.waitForStop();
    logger.info({ signal }, 'shutting down: readiness fails now, in-flight requests finish');
    await serving.stop();
    logger.info('stopped');
    logger.flush();
    return 0;
  },
};
