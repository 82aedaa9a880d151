import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Contract } from '../contract/contract-definition.ts';
import { dnsNameRules, isDns1123Label } from '../contract/values/dns-names.ts';
import { parseQuantity, quantityToNumber } from '../contract/values/quantity.ts';
import { serverMemoryFor } from '../render/server-memory.ts';
import { installNameProblem } from '../render/in-cluster-names.ts';
import { writeManifestDirectory } from '../render/manifest-directory.ts';
import { renderManifestFiles, renderManifestTree } from '../render/manifest-files.ts';
import { manifestDefaults, type ManifestOptions } from '../render/manifest-options.ts';
import { manifestsToYaml } from '../render/manifest-yaml.ts';
import { renderHelmChart } from '../render/helm/helm-chart.ts';
import { readInputFile } from './object-file.ts';
import { bundleIdentity, csvPresentation, writeOlmBundle } from './olm-bundle-flags.ts';
import { maxMigrationShards, viaStatusProblem } from '../render/storage-migration.ts';
import { compileContractPolicy } from '../policy/compile-policy.ts';
import { explainReach } from '../render/explain-reach.ts';
import { undeclaredReads } from '../render/undeclared-reads.ts';
import { crdResourceOf } from '../render/crd-reads.ts';
import { crdGateDefaults } from '../config.ts';
import { webhookReachProblems } from '../render/webhook-reach.ts';
import { summarizePolicyCoverage } from '../policy/policy-coverage.ts';
import { parseWebhookBaseUrl, WebhookUrlError } from '../render/webhook-base-url.ts';
import { positiveInteger, stringList, stringOption, UsageError, type Command, type ParsedValues } from './command.ts';
import { CommandError, commandWarningLine } from '../errors.ts';
import { checkContractRules, contractWarningLines, loadRegistry, locateContractModule } from './contracts.ts';
import { webhookOptions, webhookOptionsUsage, webhookSettings } from './webhook-options.ts';

export const manifestsCommand: Command = {
  name: 'manifests',
  summary: 'render the CRDs, webhook configurations and in-cluster deployment as YAML',
  usage: `crdgate manifests [--name NAME] [--namespace NS] [--image IMG] [--ca-bundle FILE] [--url https://HOST:PORT] [--out DIR] [--contract MODULE --image IMG]...
                  [--format kustomize|helm|olm [--package NAME] [--channel NAME] [--version SEMVER] [--replaces SEMVER]]
                  [--migration-shards N] [--migration-via status] [--owner-crds] [--failure-policy Fail|Ignore]
                  [--timeout-seconds N] [--namespace-selector SELECTOR] [--object-selector SELECTOR] [--explain]
                  [--crd-reads PLURAL.GROUP]... [--crd-gate PLURAL.GROUP]...

  Renders, from the contracts: each CRD (with the conversion webhook when it has several versions), the
  validating and mutating webhook configurations, crdgate's Deployment, Service, PodDisruptionBudget and
  NetworkPolicy (for a contract whose hub has a scale subresource: a /scale webhook, and the ClusterRole
  NAME-scale-reads, token and egress with which the server reads the objects it scales), the storage-version
  migration Job and its RBAC, and for the policy-floor overlay a
  ValidatingAdmissionPolicy per contract (the FSA and deletion protections compiled to CEL,
  enforced by the API server itself) and a MutatingAdmissionPolicy per contract with defaults given as data
  (staticDefault, derivedDefault), which the API server sets itself. A contract with crdOwner: 'external' (its CRD installed by an operator's
  chart or OLM) gets no CRD, conversion, caBundle injection or migration Job: only its webhooks, which the API
  server calls in the hub version after converting through the owner's webhook. With --out, as a kustomize tree:
    DIR/kustomization.yaml, DIR/base/   kubectl apply --server-side -k DIR installs crdgate
    DIR/overlays/cert-manager/          the same with the serving certificate and caBundles from cert-manager
                                        (not rendered with --ca-bundle or --url)
    DIR/overlays/self-managed-certs/    the same with crdgate serve --manage-certs making, rotating and
                                        injecting its own certificates (an empty Secret and Lease it fills, RBAC
                                        limited to its own objects by name); not rendered with --ca-bundle
    DIR/overlays/monitoring/            a ServiceMonitor and the Grafana dashboard (not rendered with --url)
    DIR/overlays/policy-floor/          the install with both webhooks at failurePolicy: Ignore, plus the
                                        admission policies: during a crdgate outage writes go on, and the
                                        policies still refuse what they compile and set the defaults that
                                        compile (stderr says what; crdgate fsa --coverage); not rendered with
                                        --url without --ca-bundle
    DIR/migration/                      apply it when a storage version changes: the Jobs, their RBAC, and
                                        a FlowSchema and PriorityLevelConfiguration that keep the migration
                                        to a small share of the API server
  --name NAME        names every object of this install, cluster-scoped ones included (default
                     ${manifestDefaults.name}): the webhook configurations NAME, the Service and Deployment NAME, the
                     Secret NAME-serving-cert, the migration's ClusterRole NAME-migrate, the labels that select
                     the pods. Give each install in a cluster its own, or one overwrites the other's webhooks
  --namespace NS     where crdgate runs (default ${manifestDefaults.namespace})
  --image IMG        crdgate's image (default ${manifestDefaults.image}, which holds only the built-in example)
  --contract MODULE  render these contracts instead of the built-in example; the Deployment and the Job run
                     crdgate with the same --contract arguments (a file as a path relative to this directory,
                     which must be the image's working directory), so --image must name an image that holds
                     them, such as one built with the Dockerfile of \`crdgate init\` (not needed with --url:
                     no server runs in the cluster then, and the Job needs no contract)
  --ca-bundle FILE   PEM of the CA that signed the serving certificate, e.g. ca.crt from \`crdgate certs\`;
                     the Deployment mounts that certificate from the kubernetes.io/tls Secret NAME-serving-cert,
                     which must name NAME.NS.svc. Without it (and without --url), the webhooks have no caBundle
                     until an overlay fills it in, and stderr says so: the base alone refuses every write
  --url URL          the API server calls crdgate at https://HOST:PORT instead of through the in-cluster Service
                     (crdgate runs outside the cluster; the in-cluster server is then not rendered, and the
                     Namespace goes with the migration, the only thing left in it)
  --migration-shards N
                     run each migration Job as an Indexed Job of N pods (at most ${maxMigrationShards}), pod I migrating its
                     shard with --shard I/N and recording its result in the Job's ConfigMap (shipped empty);
                     storedVersions is trimmed once every shard has succeeded. Default 1: one pod, no shards
  --migration-via status
                     the Jobs write each object back through its status subresource (crdgate migrate --via
                     status), past webhooks that refuse updates of the main resource; their ClusterRole may
                     then update PLURAL/status. Every contract's storage version needs a status subresource
  --owner-crds       also render the CRDs of contracts with crdOwner: 'external' as their owners have them
                     (ownerCrd): for a local cluster without the operator (crdgate dev uses it), never for a real one
  --crd-reads PLURAL.GROUP
                     also render the ClusterRole NAME-crd-reads, with which crdgate check --from-cluster reads that
                     CRD (get, by name) and its objects in every namespace (list); repeatable. Bound to nobody:
                     bind it to your pipeline's identity
  --crd-gate PLURAL.GROUP
                     also render the CRD gate on that CRD (repeatable; docs/crd-gate.md): the webhook
                     crd-gate.crdgate.dev in the validating configuration NAME, reached only by updates of the
                     named CRDs that change their spec (failurePolicy Fail, timeoutSeconds ${crdGateDefaults.timeoutSeconds}), the ClusterRole
                     and binding NAME-crd-gate with which the server lists their objects, and serve --crd-gate in
                     the Deployment
  --memory-request QTY, --memory-limit QTY
                     the server container's memory (a Kubernetes quantity: 512Mi, 1Gi); by default the built-in
                     example's figures plus what the contracts' schemas hold (docs/operations.md, Memory), said on
                     stderr when the contracts add to them; the V8 heap cap follows the limit
  --out DIR          write the files there (generated files it no longer renders are removed); default: stdout
  --format helm      with --out: write a Helm chart instead of the kustomize tree, made from the same objects
                     (Chart.yaml, values.yaml, values.schema.json, templates/): helm install NAME DIR -n NS
                     --create-namespace installs it in NS. Certificates, the policy floor, monitoring and the
                     migration are values (docs/deploying.md); not with --url, --ca-bundle or --namespace
  --format olm       with --out: write a registry+v1 bundle for the Operator Lifecycle Manager instead
                     (docs/deploying.md, Through OLM): manifests/ (the ClusterServiceVersion with crdgate's
                     Deployment, permissions and webhooks; the CRDs the contracts own; the PodDisruptionBudget
                     and NetworkPolicy), metadata/annotations.yaml and bundle.Dockerfile. OLM makes and rotates
                     the serving certificate and creates the Service and webhook configurations; stderr lists
                     what the bundle cannot carry. Not with --url, --ca-bundle, --namespace or --owner-crds
  --package NAME     the bundle's package (default: --name); --channel NAME its channel (default stable)
  --version SEMVER   the bundle's version (required with --format olm): the CSV is PACKAGE.vVERSION
  --replaces SEMVER  the version of the same package this bundle upgrades (the CSV's spec.replaces)
  --example FILE     an object of a kind the bundle's CRDs define, for the CSV's alm-examples, which consoles
                     offer as a template (repeatable; crdgate init writes one in examples/)
  --icon FILE        the operator's icon for catalogs (.svg, .png, .jpeg or .gif)
  --explain          print instead, per webhook, which requests reach crdgate and why (the rest of each kind's
                     requests skip it: updates that change nothing a contract reads, deletes its rules cannot
                     refuse, status writes it judges nothing of), with the settings below
${webhookOptionsUsage}`,
  options: {
    name: { type: 'string' },
    namespace: { type: 'string' },
    image: { type: 'string' },
    'ca-bundle': { type: 'string' },
    url: { type: 'string' },
    out: { type: 'string' },
    contract: { type: 'string', multiple: true },
    'migration-shards': { type: 'string' },
    'migration-via': { type: 'string' },
    'owner-crds': { type: 'boolean' },
    'crd-reads': { type: 'string', multiple: true },
    'crd-gate': { type: 'string', multiple: true },
    'memory-request': { type: 'string' },
    'memory-limit': { type: 'string' },
    explain: { type: 'boolean' },
    format: { type: 'string' },
    package: { type: 'string' },
    channel: { type: 'string' },
    version: { type: 'string' },
    replaces: { type: 'string' },
    example: { type: 'string', multiple: true },
    icon: { type: 'string' },
    ...webhookOptions,
  },
  async run(values, io) {
    const modules = stringList(values, 'contract');
    const format = manifestFormat(values);
    const bundle = format === 'olm' ? bundleIdentity(values) : undefined;
    const options = await manifestOptions(values, io.cwd);
    const registry = await loadRegistry(modules, io.cwd);
    const contracts = registry.contracts.map((compiled) => compiled.contract);
    // Before anything is written: match conditions the API server would refuse, or that could run out of budget.
    const reachProblems = webhookReachProblems(contracts);
    if (reachProblems.length > 0)
      throw new CommandError(
        'CONTRACT_INVALID',
        `the webhooks' match conditions would not hold: ${reachProblems.join('; ')}`,
      );
    if (values['explain'] === true) {
      // The explanation says it too, in its section of the contract.
      const readsWarnings = undeclaredReadsWarnings(contracts);
      if (readsWarnings !== '') io.stderr(readsWarnings);
      io.stdout(explainReach(contracts, options.webhooks));
      return 0;
    }
    // Before anything is written: a CRD whose rules kube-apiserver would refuse is never rendered.
    const ruleWarnings = checkContractRules(registry);
    // After loading: the contracts' plurals are part of the Jobs' names, which the name must leave room for.
    const nameProblem = installNameProblem(options.name, contracts);
    if (nameProblem !== undefined) throw new UsageError(`--name ${nameProblem}`);
    const statusProblem = options.migration?.via === 'status' ? viaStatusProblem(contracts) : undefined;
    if (statusProblem !== undefined) throw new UsageError(`--migration-via status: ${statusProblem}`);
    const out = stringOption(values, 'out');
    // On stderr, so that the YAML on stdout stays applicable as it is.
    const warnings = contractWarningLines(registry) + undeclaredReadsWarnings(contracts) + ruleWarnings;
    if (warnings !== '') io.stderr(warnings);
    for (const contract of contracts) io.stderr(summarizePolicyCoverage(contract, compileContractPolicy(contract)));
    if (options.url === undefined) io.stderr(serverMemoryLines(contracts, options));
    if (format === 'helm') return writeHelmChart(contracts, options, resolve(io.cwd, out!), io);
    if (bundle !== undefined) {
      const presentation = await csvPresentation(values, io.cwd, contracts);
      return writeOlmBundle(
        contracts,
        options,
        bundle,
        presentation,
        resolve(io.cwd, out!),
        io,
        await crdgateVersion(),
      );
    }
    const caBundleWarning = missingCaBundleWarning(options, contracts, out);
    if (caBundleWarning !== undefined) io.stderr(caBundleWarning);
    if (out === undefined) {
      io.stdout(manifestsToYaml(renderManifestFiles(contracts, options).flatMap((file) => file.manifests)));
      return 0;
    }
    const dir = resolve(io.cwd, out);
    const { written, removed } = await writeManifestDirectory(dir, renderManifestTree(contracts, options));
    io.stdout(`wrote ${written.length} files to ${dir}: ${written.join(', ')}\n`);
    if (removed.length > 0) io.stdout(`removed files no longer generated: ${removed.join(', ')}\n`);
    return 0;
  },
};

/** One READS_UNDECLARED line per contract that leaves its label or annotation reads out; empty when none does. */
function undeclaredReadsWarnings(contracts: readonly Contract[]): string {
  return contracts
    .flatMap((contract) => {
      const reads = undeclaredReads(contract);
      const name = `${contract.identity.plural}.${contract.identity.group}`;
      return reads === undefined ? [] : [commandWarningLine('READS_UNDECLARED', `contract ${name}: ${reads}`)];
    })
    .join('');
}

/**
 * kustomize (the default), a Helm chart or an OLM bundle: the two last are folders, and install crdgate in the
 * cluster with certificates of their own (the chart's values, OLM's).
 */
function manifestFormat(values: ParsedValues): 'kustomize' | 'helm' | 'olm' {
  const format = stringOption(values, 'format') ?? 'kustomize';
  if (format !== 'kustomize' && format !== 'helm' && format !== 'olm')
    throw new UsageError(`--format must be kustomize, helm or olm, got "${format}"`);
  const bundleFlags = ['package', 'channel', 'version', 'replaces', 'icon', 'example'].filter(
    (flag) => stringOption(values, flag) !== undefined || stringList(values, flag).length > 0,
  );
  if (format !== 'olm' && bundleFlags.length > 0)
    throw new UsageError(`--${bundleFlags[0]} names an OLM bundle: it needs --format olm`);
  if (format === 'olm') {
    if (stringOption(values, 'out') === undefined)
      throw new UsageError('--format olm needs --out DIR: a bundle is a folder');
    for (const [flag, why] of [
      ['url', 'OLM runs crdgate inside the cluster'],
      ['ca-bundle', 'OLM makes the serving certificate and gives the webhooks its CA'],
      ['namespace', "OLM installs into the OperatorGroup's namespace"],
    ] as const)
      if (stringOption(values, flag) !== undefined) throw new UsageError(`--format olm: not with --${flag}: ${why}`);
    if (values['owner-crds'] === true)
      throw new UsageError("--format olm: not with --owner-crds: a bundle's CRDs are the ones its operator owns");
  }
  if (format === 'helm') {
    if (stringOption(values, 'out') === undefined)
      throw new UsageError('--format helm needs --out DIR: a chart is a folder');
    if (stringOption(values, 'url') !== undefined)
      throw new UsageError('--format helm installs crdgate inside the cluster: it cannot be rendered with --url');
    if (stringOption(values, 'ca-bundle') !== undefined)
      throw new UsageError(
        '--format helm takes the CA as the value certificates.caBundle (with certificates.mode secret), not --ca-bundle',
      );
    if (stringOption(values, 'namespace') !== undefined)
      throw new UsageError(
        "--format helm installs into the release's namespace (helm install --namespace NS), not --namespace",
      );
  }
  return format;
}

async function writeHelmChart(
  contracts: readonly Contract[],
  options: ManifestOptions,
  dir: string,
  io: { stdout: (text: string) => void },
): Promise<number> {
  const version = await crdgateVersion();
  const { written, removed } = await writeManifestDirectory(dir, renderHelmChart(contracts, options, { version }));
  io.stdout(
    `wrote the Helm chart ${options.name} (${written.length} files) to ${dir}: helm install ${options.name} ${dir} --namespace NS --create-namespace\n`,
  );
  if (removed.length > 0) io.stdout(`removed files no longer generated: ${removed.join(', ')}\n`);
  return 0;
}

/** The version of crdgate rendering: a chart's and a bundle's builder say it. */
export async function crdgateVersion(): Promise<string> {
  const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return version;
}

async function manifestOptions(values: ParsedValues, cwd: string): Promise<ManifestOptions> {
  const name = stringOption(values, 'name') ?? manifestDefaults.name;
  const namespace = stringOption(values, 'namespace') ?? manifestDefaults.namespace;
  if (!isDns1123Label(namespace))
    throw new UsageError(`--namespace "${namespace}" must be ${dnsNameRules.dns1123Label}`);
  const modules = stringList(values, 'contract');
  const givenImage = stringOption(values, 'image');
  const url = stringOption(values, 'url');
  // The default image holds no contract of the user's: as rendered, every write of their kind would be refused.
  // Called by URL, no server runs in the cluster, and the migration Job needs no contract: any image will do.
  if (modules.length > 0 && givenImage === undefined && url === undefined) {
    throw new UsageError(
      `--contract needs --image: the image that holds your contracts (the default ${manifestDefaults.image} serves only the built-in example)`,
    );
  }
  const image = givenImage ?? manifestDefaults.image;
  if (image === '' || /\s/.test(image))
    throw new UsageError(`--image "${image}" must be an image reference without spaces`);
  const caBundle = stringOption(values, 'ca-bundle');
  const shards = positiveInteger(values, 'migration-shards', 1);
  if (shards > maxMigrationShards)
    throw new UsageError(
      `--migration-shards must be at most ${maxMigrationShards} (every shard lists the whole resource), got ${shards}`,
    );
  const via = stringOption(values, 'migration-via');
  if (via !== undefined && via !== 'status') throw new UsageError(`--migration-via must be status, got "${via}"`);
  const webhooks = webhookSettings(values);
  const crdReads = crdNames(values, 'crd-reads');
  const crdGate = crdNames(values, 'crd-gate');
  const memoryRequest = memoryMi(values, 'memory-request');
  const memoryLimit = memoryMi(values, 'memory-limit');
  if (memoryRequest !== undefined && memoryLimit !== undefined && memoryRequest > memoryLimit)
    throw new UsageError(`--memory-request ${memoryRequest}Mi is more than --memory-limit ${memoryLimit}Mi`);
  return {
    name,
    namespace,
    image,
    ...(url !== undefined ? { url: webhookBaseUrl(url) } : {}),
    ...(caBundle !== undefined ? { caBundlePem: await readCaBundle(caBundle, cwd) } : {}),
    ...(modules.length > 0 ? { contracts: modules.map((module) => locateContractModule(module, cwd).argument) } : {}),
    ...(shards > 1 || via !== undefined ? { migration: { shards, ...(via !== undefined ? { via } : {}) } } : {}),
    ...(values['owner-crds'] === true ? { ownerCrds: true } : {}),
    ...(Object.keys(webhooks).length > 0 ? { webhooks } : {}),
    ...(crdReads.length > 0 ? { crdReads } : {}),
    ...(crdGate.length > 0 ? { crdGate } : {}),
    ...(memoryRequest !== undefined || memoryLimit !== undefined
      ? {
          serverMemory: {
            ...(memoryRequest !== undefined ? { requestMi: memoryRequest } : {}),
            ...(memoryLimit !== undefined ? { limitMi: memoryLimit } : {}),
          },
        }
      : {}),
  };
}

/** A memory flag's quantity in whole MiB (rounded up), or undefined when not given. */
function memoryMi(values: ParsedValues, flag: string): number | undefined {
  const text = stringOption(values, flag);
  if (text === undefined) return undefined;
  const quantity = parseQuantity(text);
  const bytes = quantity === undefined ? Number.NaN : quantityToNumber(quantity);
  if (!(bytes >= 64 * 1024 * 1024))
    throw new UsageError(`--${flag} must be a memory quantity of at least 64Mi (512Mi, 1Gi), got "${text}"`);
  return Math.ceil(bytes / (1024 * 1024));
}

/**
 * What the server's container is given, on stderr: when the contracts add to the built-in example's figures, or a
 * flag set them; with a warning when a limit given is below what the contracts' schemas are measured to hold.
 */
function serverMemoryLines(contracts: readonly Contract[], options: ManifestOptions): string {
  const crdGate = (options.crdGate ?? []).length > 0;
  const plan = serverMemoryFor(contracts, { crdGate, ...options.serverMemory });
  const given = options.serverMemory !== undefined;
  if (plan.addedMi === 0 && !given) return '';
  const kinds = `${contracts.length} kind${contracts.length === 1 ? '' : 's'}`;
  const schemas = `${(plan.schemaBytes / 1024).toFixed(0)} KiB of schemas`;
  const said =
    `crdgate: the server's memory: request ${plan.requestMi}Mi, limit ${plan.limitMi}Mi, heap cap ${plan.heapMi} MiB, ` +
    (given
      ? `as given (for ${kinds}, ${schemas})`
      : `for ${kinds} (${schemas}: ${plan.addedMi} MiB over the built-in example's); --memory-request and --memory-limit set it`);
  // Without flags the plan is the estimate; with them, the estimate is what the flags replaced.
  const estimate = given ? serverMemoryFor(contracts, { crdGate }) : plan;
  const warning =
    plan.limitMi < estimate.limitMi
      ? commandWarningLine(
          'MEMORY_BELOW_ESTIMATE',
          `--memory-limit ${plan.limitMi}Mi is below the ${estimate.limitMi}Mi measured for these contracts: a pod past its limit is killed, and with failurePolicy Fail every write of its kinds is refused meanwhile`,
        )
      : '';
  return `${said}\n${warning}`;
}

/** CRD names given with a repeatable flag, each checked, each once. */
function crdNames(values: ParsedValues, flag: string): string[] {
  const names = [...new Set(stringList(values, flag))];
  for (const name of names) {
    const resource = crdResourceOf(name);
    if ('problem' in resource) throw new UsageError(`--${flag} ${resource.problem}`);
  }
  return names;
}

/**
 * Webhooks called through the in-cluster Service with no caBundle are never trusted: the API server knows no CA for
 * `NAME.NS.svc`, so every call fails and every write of the kinds is refused. Said on stderr, with the ways to give
 * one. Called by --url, the API server's own root CAs may trust crdgate's certificate: nothing is said.
 */
function missingCaBundleWarning(
  options: ManifestOptions,
  contracts: readonly Contract[],
  out: string | undefined,
): string | undefined {
  if (options.caBundlePem !== undefined || options.url !== undefined) return undefined;
  const kinds = contracts.map((contract) => `${contract.identity.kind}.${contract.identity.group}`).join(', ');
  const refused = `the API server cannot trust crdgate's serving certificate, so every write of ${kinds} is refused until one is there`;
  const givenCa = '--ca-bundle FILE (the CA that signed the serving certificate, such as ca.crt from crdgate certs)';
  return out === undefined
    ? `warning: the webhook configurations have no caBundle: ${refused}; render with ${givenCa}, or with --out DIR and apply its overlays/cert-manager or overlays/self-managed-certs, which fill it in\n`
    : `warning: ${out}/base, which kubectl apply -k ${out} installs, has no caBundle: ${refused}; apply ${out}/overlays/cert-manager or ${out}/overlays/self-managed-certs instead, which fill it in, or render with ${givenCa}\n`;
}

function webhookBaseUrl(text: string): string {
  try {
    return parseWebhookBaseUrl(text);
  } catch (error) {
    if (error instanceof WebhookUrlError) throw new UsageError(`--url ${error.message}`);
    throw error;
  }
}

async function readCaBundle(given: string, cwd: string): Promise<string> {
  const pem = (await readInputFile(given, cwd, `--ca-bundle ${given}`)).toString('utf8');
  // The API server would accept any bytes and only fail later, at the first TLS handshake: check them now.
  try {
    new X509Certificate(pem);
  } catch {
    throw new CommandError('INPUT_INVALID', `--ca-bundle ${given}: not a PEM certificate`);
  }
  return pem;
}
