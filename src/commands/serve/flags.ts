import { resolve } from 'node:path';
import type { RotationPolicy } from '../../certs/self-managed/rotation.ts';
import { crdGateDefaults, manageCertsDefaults, serveDefaults } from '../../config.ts';
import { dnsNameRules, isDns1123Label } from '../../contract/values/dns-names.ts';
import type { ContractRegistry } from '../../contract/registry.ts';
import { hubHasScale } from '../../contract/scale-subresource.ts';
import { defaultInstallName, installNameProblem, serviceDnsNames } from '../../render/in-cluster-names.ts';
import { defaultClientCaEndpoints, webhookEndpoints, type WebhookEndpoint } from '../../server/app.ts';
import { externalContracts, ownerSchemaModes, type OwnerSchemaMode } from '../../server/owner-crds.ts';
import {
  durationOption,
  portOption,
  positiveInteger,
  stringList,
  stringOption,
  UsageError,
  type ParsedValues,
} from '../command.ts';

// `crdgate serve`'s flags, read and checked before anything is loaded, written or bound: a typo must not leave
// certificates behind. What the flags mean together with the contracts (which helpers run, which flags apply) is
// decided once the contracts are loaded (servedHelpers).

export interface ServeFlags {
  port: number;
  host: string;
  /** Resolved against the working directory. */
  certDir: string;
  /** --client-ca, resolved (an empty one is none); the endpoints it guards are checked whether or not it is given. */
  clientCaFile?: string;
  clientCaEndpoints: WebhookEndpoint[];
  limits: { admissionBytes: number; conversionBytes: number };
  drainDelayMs: number;
  logLevel: string;
  /** The --contract modules, as given. */
  contracts: string[];
  /** --kubeconfig and --context, as apiServerAccessFromFlags reads them. */
  kube: KubeFlags;
  /** --manage-certs: where the certificates live and how they rotate. */
  manageCerts?: ManageCertsFlags;
  /** Without --manage-certs: the flags of --manage-certs given anyway (some apply to other helpers). */
  certFlagsGiven: string[];
  /** --owner-schema as given; the contract's copy when absent. */
  ownerSchema?: OwnerSchemaMode;
  /** --crd-gate and its bounds. */
  crdGate?: CrdGateFlags;
}

export type KubeFlags = { kubeconfig?: string; context?: string };

export interface ManageCertsFlags {
  name: string;
  namespace: string;
  policy: RotationPolicy;
  leaseDurationMs: number;
}

export interface CrdGateFlags {
  maxObjects: number;
  readTimeoutMs: number;
  /** --crd-rules, as given (read against the working directory). */
  rulesFile?: string;
}

/** The helpers serve runs beside its server, as the flags and the contracts call for them. */
export interface ServedHelpers {
  /** A contract's hub has a scale subresource: /scale reviews read the object they scale. */
  readsStoredObjects: boolean;
  /** A contract's CRD is someone else's (crdOwner: 'external'): serve follows it in the API server. */
  followsOwnerCrds: boolean;
  /** Some helper talks to the API server. */
  needsApiServer: boolean;
}

const manageCertsFlags = [
  ...['name', 'namespace', 'kubeconfig', 'context', 'cert-dns', 'cert-ip'],
  ...['ca-validity', 'serving-validity', 'ca-overlap', 'lease-duration'],
];
const apiServerFlags = ['kubeconfig', 'context'];
const crdGateFlags = ['crd-gate-max-objects', 'crd-gate-read-timeout', 'crd-rules'];

/** The flags as serve uses them; a bad one is a UsageError naming it. `env` gives $POD_NAMESPACE. */
export function readServeFlags(values: ParsedValues, cwd: string, env: Record<string, string | undefined>): ServeFlags {
  const port = portOption(values, 'port', serveDefaults.port);
  const host = stringOption(values, 'host') ?? '0.0.0.0';
  const certDir = resolve(cwd, stringOption(values, 'cert-dir') ?? serveDefaults.certDir);
  const clientCa = stringOption(values, 'client-ca');
  const clientCaEndpoints = endpointList(values, 'client-ca-endpoints');
  const limits = {
    admissionBytes: positiveInteger(values, 'admission-body-limit', serveDefaults.admissionBodyBytes),
    conversionBytes: positiveInteger(values, 'conversion-body-limit', serveDefaults.conversionBodyBytes),
  };
  const drainDelaySeconds = positiveInteger(values, 'drain-delay', serveDefaults.drainDelaySeconds, {
    allowZero: true,
  });
  const manageCerts = values['manage-certs'] === true ? manageCertsOptions(values, env) : undefined;
  const ownerSchema = ownerSchemaOption(values);
  const crdGate = crdGateOptions(values);
  const kubeconfig = stringOption(values, 'kubeconfig');
  const context = stringOption(values, 'context');
  return {
    port,
    host,
    certDir,
    ...(clientCa ? { clientCaFile: resolve(cwd, clientCa) } : {}),
    clientCaEndpoints,
    limits,
    drainDelayMs: drainDelaySeconds * 1000,
    logLevel: logLevelOption(values),
    contracts: stringList(values, 'contract'),
    kube: { ...(kubeconfig !== undefined ? { kubeconfig } : {}), ...(context !== undefined ? { context } : {}) },
    ...(manageCerts ? { manageCerts } : {}),
    certFlagsGiven: manageCerts ? [] : manageCertsFlags.filter((flag) => values[flag] !== undefined),
    ...(ownerSchema ? { ownerSchema } : {}),
    ...(crdGate ? { crdGate } : {}),
  };
}

/**
 * Which helpers run, from the flags and the loaded contracts; a flag that applies to none of them (or an install
 * name the contracts' objects cannot carry) is a UsageError.
 */
export function servedHelpers(flags: ServeFlags, registry: ContractRegistry): ServedHelpers {
  if (flags.manageCerts) {
    const contracts = registry.contracts.map((compiled) => compiled.contract);
    const nameProblem = installNameProblem(flags.manageCerts.name, contracts);
    if (nameProblem) throw new UsageError(`--name ${nameProblem}`);
  }
  const readsStoredObjects = registry.contracts.some((compiled) => hubHasScale(compiled.contract));
  const followsOwnerCrds = externalContracts(registry).length > 0;
  if (flags.ownerSchema !== undefined && !followsOwnerCrds) {
    throw new UsageError(
      "--owner-schema only applies to a contract whose CRD someone else owns (crdOwner: 'external')",
    );
  }
  const needsApiServer =
    flags.manageCerts !== undefined || readsStoredObjects || followsOwnerCrds || flags.crdGate !== undefined;
  rejectCertFlags(flags.certFlagsGiven, needsApiServer);
  return { readsStoredObjects, followsOwnerCrds, needsApiServer };
}

/** The flags of --manage-certs given without it: an error, but for --kubeconfig and --context where a helper reads. */
function rejectCertFlags(certFlagsGiven: string[], needsApiServer: boolean): void {
  const given = certFlagsGiven.filter((flag) => !(needsApiServer && apiServerFlags.includes(flag)));
  if (given.length === 0) return;
  const apiServer = given.filter((flag) => apiServerFlags.includes(flag));
  const others = given.filter((flag) => !apiServerFlags.includes(flag));
  const flags = (list: string[]) => list.map((flag) => `--${flag}`).join(', ');
  throw new UsageError(
    [
      ...(others.length > 0 ? [`${flags(others)} only apply with --manage-certs`] : []),
      ...(apiServer.length > 0
        ? [
            `${flags(apiServer)} only apply with --manage-certs, --crd-gate, a contract whose hub has a scale subresource, or one whose CRD someone else owns (crdOwner: 'external')`,
          ]
        : []),
    ].join('; '),
  );
}

function manageCertsOptions(values: ParsedValues, env: Record<string, string | undefined>): ManageCertsFlags {
  const name = stringOption(values, 'name') ?? defaultInstallName;
  if (values['cert-dir'] !== undefined)
    throw new UsageError('--cert-dir does not apply with --manage-certs: the certificate comes from the Secret');
  const namespace = stringOption(values, 'namespace') ?? env.POD_NAMESPACE;
  if (!namespace)
    throw new UsageError('--manage-certs needs --namespace (or $POD_NAMESPACE, which the rendered Deployment sets)');
  if (!isDns1123Label(namespace))
    throw new UsageError(`--namespace must be ${dnsNameRules.dns1123Label}, got "${namespace}"`);
  const policy: RotationPolicy = {
    caValidityMs: durationOption(values, 'ca-validity', manageCertsDefaults.caValidityMs),
    servingValidityMs: durationOption(values, 'serving-validity', manageCertsDefaults.servingValidityMs),
    caOverlapMs: durationOption(values, 'ca-overlap', manageCertsDefaults.caOverlapMs),
    dnsNames: [...serviceDnsNames({ name, namespace }), ...commaList(values, 'cert-dns')],
    ipAddresses: commaList(values, 'cert-ip'),
    commonName: name,
  };
  if (policy.servingValidityMs >= policy.caValidityMs)
    throw new UsageError('--serving-validity must be shorter than --ca-validity');
  const leaseDurationMs = durationOption(values, 'lease-duration', manageCertsDefaults.leaseDurationMs);
  // Replicas renew every 2/15 of it: below a few seconds they would spend their time writing the Lease.
  if (leaseDurationMs < 2000) throw new UsageError('--lease-duration must be at least 2s');
  return { name, namespace, policy, leaseDurationMs };
}

function ownerSchemaOption(values: ParsedValues): OwnerSchemaMode | undefined {
  const text = stringOption(values, 'owner-schema');
  if (text === undefined) return undefined;
  if (!(ownerSchemaModes as readonly string[]).includes(text))
    throw new UsageError(`--owner-schema takes ${ownerSchemaModes.join(' or ')}, got "${text}"`);
  return text as OwnerSchemaMode;
}

function crdGateOptions(values: ParsedValues): CrdGateFlags | undefined {
  if (values['crd-gate'] !== true) {
    if (crdGateFlags.some((flag) => values[flag] !== undefined)) {
      throw new UsageError(
        '--crd-gate-max-objects, --crd-gate-read-timeout and --crd-rules only apply with --crd-gate',
      );
    }
    return undefined;
  }
  const maxObjects = positiveInteger(values, 'crd-gate-max-objects', crdGateDefaults.maxObjects);
  const readTimeoutMs = durationOption(values, 'crd-gate-read-timeout', crdGateDefaults.readTimeoutMs);
  if (readTimeoutMs >= crdGateDefaults.timeoutSeconds * 1000) {
    throw new UsageError(
      `--crd-gate-read-timeout must be below the gate webhook's timeoutSeconds (${crdGateDefaults.timeoutSeconds}s)`,
    );
  }
  const rulesFile = stringOption(values, 'crd-rules');
  return { maxObjects, readTimeoutMs, ...(rulesFile !== undefined ? { rulesFile } : {}) };
}

function commaList(values: ParsedValues, name: string): string[] {
  return (stringOption(values, name) ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function endpointList(values: ParsedValues, name: string): WebhookEndpoint[] {
  const text = stringOption(values, name);
  if (text === undefined) return [...defaultClientCaEndpoints];
  const names = text.split(',').map((part) => part.trim().replace(/^\//, ''));
  const unknown = names.filter((part) => !(webhookEndpoints as readonly string[]).includes(part));
  if (unknown.length > 0 || names.length === 0) {
    throw new UsageError(`--${name} takes a list of ${webhookEndpoints.join(', ')}, got "${text}"`);
  }
  return names as WebhookEndpoint[];
}

// pino's levels: pino throws on any other, with a stack, from inside the logger it is making.
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function logLevelOption(values: ParsedValues): string {
  const level = stringOption(values, 'log-level') ?? serveDefaults.logLevel;
  if (!(logLevels as readonly string[]).includes(level)) {
    throw new UsageError(`--log-level takes one of ${logLevels.join(', ')}, got "${level}"`);
  }
  return level;
}
