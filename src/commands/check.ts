import { stringify } from 'yaml';
import { collectCrds, CrdSourceError, isCrdObject, type CrdOrigin } from '../check/crd-kinds.ts';
import type { FieldValidation } from '../api-server-engine/engine.ts';
import { checkTree, type TreeCheckOptions, type TreeCheckReport } from '../check/check-tree.ts';
import { renderJsonReport } from '../check/json-report.ts';
import { renderJunitReport } from '../check/junit-report.ts';
import type { ManifestContents, ManifestObject } from '../check/manifest-documents.ts';
import { StartStateUnknownError } from '../check/previous-revision.ts';
import { ManifestReadError, readManifestTree, type TreeSource } from '../check/read-manifest-tree.ts';
import { describeInvalid, skippedCustomKindsNote, summarize, treePassed } from '../check/report-summary.ts';
import { renderTextReport } from '../check/text-report.ts';
import { CrdUnservableError, EngineUnavailableError } from '../api-server-engine/engine.ts';
import { judgeStoredObjects } from './check-stored-objects.ts';
import type { StoredObjectsCrd } from '../check/stored-objects.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import {
  durationOption,
  positiveInteger,
  positiveNumber,
  stringList,
  stringOption,
  UsageError,
  type Command,
  type CommandIo,
  type ParsedValues,
} from './command.ts';
import { CommandError } from '../errors.ts';
import { isDns1123Label } from '../contract/values/dns-names.ts';
import { checkContractRules, loadRegistry } from './contracts.ts';
import { compareContractCrds, comparedContractCrds } from '../check/contract-revisions.ts';
import { readStdin, type FileFormat } from './object-file.ts';
import { readCrdRules } from './crd-rules-file.ts';
import { weighCrdRevisions } from '../check/weigh-crd-revisions.ts';
import type { EvidencePolicy } from '../crd-revision/rule-config.ts';

type CrdManifest = ManifestObject & { origin: CrdOrigin };

const reportFormats = { text: renderTextReport, json: renderJsonReport, junit: renderJunitReport } as const;
type ReportFormat = keyof typeof reportFormats;

/** What check reads of the cluster (--from-cluster): bounded lists, a page at a time, at most --qps requests a second. */
const clusterDefaults = {
  qps: 20,
  maxObjects: 100_000,
  listTimeoutMs: 10 * 60_000,
  pageSize: 500,
  requestTimeoutMs: 30_000,
} as const;

export const checkCommand: Command = {
  name: 'check',
  summary: 'decide offline what the webhooks would decide for a manifest tree (for CI and GitOps pipelines)',
  usage: `crdgate check -f PATH... [--crd PATH...] [--old PATH... | --from-cluster [--kubeconfig FILE] [--context NAME]] [--old-contract MODULE...] [--stored PATH...] [--crd-rules FILE] [--state STATE] [-n NAMESPACE] [--strict-kinds] [--field-validation Strict|Warn|Ignore] [-o text|json|junit] [--defaulted yaml|json] [--contract MODULE]...

  Decides every object whose kind a contract declares, as the API server would admit it: kube-apiserver's own
  pruning, defaulting and validation (schema, CEL rules, ratcheting) of the contract's CRD, with the mutating
  webhook (defaults) in between, then the validating webhook. Objects of a kind no contract declares whose
  CustomResourceDefinition is in the tree or given with --crd are decided by kube-apiserver's pipeline on that CRD
  alone (schema, pruning, defaults, CEL rules, ratcheting, transition rules against --old); where a contract and a
  CRD declare the same kind, the contract decides. An object of a resource a contract serves whose kind is not
  the contract's (a CRD that says postgresql where the contract says Postgresql), or an unknown kind of a group
  whose CRDs crdgate owns, is denied (KIND_MISMATCH, KIND_UNKNOWN), never skipped. Other kinds (built-in ones, an
  operator's other kinds beside the one a contract guards) are skipped and counted in the summary.
  -f PATH          a file, a folder (walked recursively for .yaml, .yml and .json; hidden entries left out) or -
                   for standard input; repeatable. Multi-document YAML and Lists (kind: List) are read whole.
  --crd PATH       a file or folder (walked recursively) of CustomResourceDefinitions whose custom resources are to
                   be decided; repeatable. Other kinds in it are passed over. A CRD kube-apiserver would refuse, or
                   a path holding none, is an error (exit 2).
  --old PATH       the previous revision's tree (a checkout of the target branch), repeatable. An object in both
                   (same group, kind, namespace, name) is an UPDATE, judged by the FSA; one only in
                   the new tree a CREATE; one only in the old tree a DELETE (deletion protection). A
                   CustomResourceDefinition in both (same metadata.name) is compared with its previous revision,
                   rule by rule (docs/check.md, "Checking a CRD revision"): a finding of error severity fails.
                   The objects the old tree holds of a CRD whose spec changed are then judged as stored objects
                   through its new revision (see --stored).
  --old-contract MODULE  the previous revision of a --contract module (a file of a checkout of the target
                   branch, its dependencies installed), repeatable: the CRD each --contract renders (as crdgate
                   manifests renders it) is compared with the one the old module of the same CRD name renders,
                   rule by rule, as CRDs in both trees are; -f is then optional
  --from-cluster   the previous revision of each CustomResourceDefinition of the tree is the one the cluster holds
                   (read with --kubeconfig [--context], else $KUBECONFIG, ~/.kube/config or the in-cluster service
                   account; get on those CRDs, which crdgate manifests --crd-reads renders): compared as with --old,
                   its status.storedVersions counting. Not with --old. The live objects of each CRD whose spec
                   changed are judged as stored objects (see --stored), listed a page at a time in its storage
                   version (list on the resource, also in the ClusterRole of --crd-reads), at most --qps requests
                   a second (default ${clusterDefaults.qps}), stopping past --max-objects per CRD (default ${clusterDefaults.maxObjects}) or
                   --list-timeout (default ${clusterDefaults.listTimeoutMs / 60_000}m) with a warning on stderr naming the CRD and
                   the objects left unjudged. A read refused or failed exits 2 (CLUSTER_UNREADABLE), naming what
                   was read and the permission it takes. With --old-contract, the CRD of each contract compared
                   is read too, for its status.storedVersions: the versions the old revision stored objects in,
                   which a revision may take out only once crdgate migrate has moved them and trimmed the list.
  --stored PATH    objects as the cluster stores them (\`kubectl get KIND -A -o yaml\` or -o json, a backup): a
                   file, a folder (walked as -f walks one) or - for standard input; repeatable. Each is put through
                   the new revision of its CRD (the tree's or --crd's, against the old tree's revision when --old
                   has one, else against itself): reads in every served version, a write that changes nothing, a
                   write that adds a label, a create from scratch (docs/check.md, "The objects a revision must keep
                   serving"); findings are counted per CRD with the first examples, a finding of error severity
                   fails. Files are read one at a time; a document not valid YAML or JSON in them is an error (exit 2)
  --crd-rules FILE  sets CRD revision rules and stored-object rules to error, warning or off (YAML or JSON:
                   rules: {RULE: SETTING}), and what decides where the stored objects are known (evidence: objects,
                   the default: a rule finding no known object is affected by is a warning, unless the API server
                   refuses the revision or clients break regardless; evidence: rules: the rules alone); a file
                   that cannot be read, or names an unknown rule, key or setting, is an error (exit 2)
  --state STATE    the FSA's state for an old object that records none (no phase, or nothing the
                   contract's readState reads in its status); by default the contract's steady state (GeoDatabase:
                   Ready). A state the old manifest's status records is read as the webhook reads it, and decides
  -n, --namespace NS  the namespace of a namespaced object whose manifest names none, as kubectl apply -n puts it
                   there (default: default): a manifest naming it and one leaving it out are the same object
  --strict-kinds   accepted for scripts that pass it: what it did is the default now (an unknown kind in a group
                   whose CRDs crdgate owns is denied, KIND_UNKNOWN)
  --field-validation MODE  what an unknown or duplicate field makes of an object, as kubectl's --validate sends it:
                   Strict (the default, kubectl's) denies it, Warn prunes the field with a warning, Ignore prunes it
                   in silence
  -o FORMAT        the report: text (default), json, or junit (one testcase per object)
  --defaulted FMT  print the new tree as it would be stored (defaults applied) as yaml or json on standard output
                   when every object is allowed; the report then goes to standard error
  --delete         decide every object of -f as being deleted (its deletion rules and protection), not written
  A document that is not valid YAML (or a file not valid JSON) fails as MANIFEST_NOT_YAML (MANIFEST_NOT_JSON), in
  every report format, and the rest is still checked. Empty files, comment-only files and documents, empty
  documents and empty Lists are skipped and counted in the summary.
  Exit code 0: every object allowed; 1: any denied, any document not valid YAML or JSON, a CRD revision finding
  or a stored-object finding of error severity; 2: bad usage, a bad --crd-rules file, a path
  that does not exist or cannot be read, or a CRD (in the tree or with --crd) that kube-apiserver would refuse.`,
  options: {
    file: { type: 'string', short: 'f', multiple: true },
    crd: { type: 'string', multiple: true },
    old: { type: 'string', multiple: true },
    stored: { type: 'string', multiple: true },
    'from-cluster': { type: 'boolean' },
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    qps: { type: 'string' },
    'max-objects': { type: 'string' },
    'list-timeout': { type: 'string' },
    'crd-rules': { type: 'string' },
    state: { type: 'string' },
    namespace: { type: 'string', short: 'n' },
    'strict-kinds': { type: 'boolean' },
    'field-validation': { type: 'string' },
    output: { type: 'string', short: 'o' },
    defaulted: { type: 'string' },
    delete: { type: 'boolean' },
    contract: { type: 'string', multiple: true },
    'old-contract': { type: 'string', multiple: true },
  },
  async run(values, io) {
    const files = stringList(values, 'file');
    const oldContracts = stringList(values, 'old-contract');
    if (files.length === 0 && oldContracts.length === 0)
      throw new UsageError('--file is required (-f PATH, repeatable)');
    if (oldContracts.length > 0 && stringList(values, 'contract').length === 0)
      throw new UsageError('--old-contract needs --contract MODULE: the new revision to compare it with');
    const oldFiles = stringList(values, 'old');
    const fromCluster = values['from-cluster'] === true;
    if (fromCluster && oldFiles.length > 0)
      throw new UsageError('--from-cluster and --old are two sources of the previous revision: give one');
    const clusterFlags = ['kubeconfig', 'context', 'qps', 'max-objects', 'list-timeout'].filter(
      (flag) => values[flag] !== undefined,
    );
    if (!fromCluster && clusterFlags.length > 0)
      throw new UsageError(`${clusterFlags.map((flag) => `--${flag}`).join(', ')} only apply with --from-cluster`);
    const cluster = fromCluster ? await clusterReader(values, io) : undefined;
    const report = reportFormat(stringOption(values, 'output'));
    const defaulted = defaultedFormat(stringOption(values, 'defaulted'));
    const options: TreeCheckOptions = {
      fieldValidation: fieldValidationMode(stringOption(values, 'field-validation')),
      ...namespaceOption(stringOption(values, 'namespace')),
      ...deleteOption(values.delete === true, oldFiles),
    };
    const crdPaths = stringList(values, 'crd');
    const storedPaths = stringList(values, 'stored');
    if ([...files, ...oldFiles, ...crdPaths, ...storedPaths].filter((path) => path === '-').length > 1)
      throw new UsageError('standard input (-) can be read only once');
    const contracts = stringList(values, 'contract');
    const registry = await loadRegistry(contracts, io.cwd);
    const oldRegistry = oldContracts.length > 0 ? await loadOldContracts(oldContracts, io.cwd) : undefined;
    const ruleWarnings = checkContractRules(registry);
    if (ruleWarnings !== '') io.stderr(ruleWarnings);
    const crdRulesFile = stringOption(values, 'crd-rules');
    let evidence: EvidencePolicy = 'objects';
    if (crdRulesFile !== undefined) {
      const config = await readCrdRules(crdRulesFile, io.cwd);
      options.crdRules = config.rules;
      evidence = config.evidence;
    }
    const state = stringOption(values, 'state');
    if (state !== undefined) options.state = knownState(registry, state);

    const source: TreeSource = { cwd: io.cwd, readStdin };
    const tree = files.length > 0 ? await readTree(files, source) : noManifests;
    const oldTree = cluster
      ? await cluster.revisions(tree)
      : oldFiles.length > 0
        ? await readTree(oldFiles, source)
        : undefined;
    // A pipeline pointed at the wrong folder must not pass for want of anything to check; a tree whose manifests
    // cannot be parsed has something to check, and fails with a report saying why.
    const found = (contents: ManifestContents | undefined) =>
      (contents?.objects.length ?? 0) + (contents?.invalid.length ?? 0);
    if (found(tree) === 0 && found(oldTree) === 0 && oldRegistry === undefined) {
      throw new UsageError(
        `no Kubernetes object (a document with apiVersion and kind) in ${[...files, ...oldFiles].join(', ')}`,
      );
    }
    let result: TreeCheckReport;
    try {
      const crdManifests = await readCrdManifests(tree, crdPaths, source);
      options.crds = collectCrds(registry, crdManifests);
      result = checkTree(registry, tree, oldTree, options);
      if (oldRegistry) {
        const now = { registry, modules: contracts };
        const old = { registry: oldRegistry, modules: oldContracts };
        const storedVersions = cluster
          ? await cluster.storedVersions(comparedContractCrds(now, old))
          : new Map<string, string[]>();
        const contractRevisions = compareContractCrds(now, old, options.crdRules ?? {}, storedVersions);
        result = { ...result, crdRevisions: [...contractRevisions, ...result.crdRevisions] };
      }
      const stored = await judgeStoredObjects(registry, {
        crdManifests,
        oldTree,
        storedPaths,
        source,
        ...(options.namespace ? { namespace: options.namespace } : {}),
        ...(options.crdRules ? { settings: options.crdRules } : {}),
        ...(cluster ? { visitLiveObjects: cluster.visitLiveObjects } : {}),
      });
      if (stored !== undefined) result.storedObjects = stored;
      result = { ...result, crdRevisions: weighCrdRevisions(result.crdRevisions, stored, evidence) };
    } catch (error) {
      if (error instanceof StartStateUnknownError) throw new UsageError(error.message);
      if (error instanceof EngineUnavailableError) throw new CommandError('ENGINE_UNAVAILABLE', error.message);
      if (error instanceof CrdSourceError || error instanceof CrdUnservableError)
        throw new CommandError('INPUT_INVALID', error.message);
      throw error;
    }
    const summary = summarize(result);
    const allowed = treePassed(summary);
    // With --defaulted, standard output carries the objects alone, so that they can be piped on.
    (defaulted === undefined ? io.stdout : io.stderr)(reportFormats[report](result));
    const skippedNote = skippedCustomKindsNote(summary);
    if (skippedNote !== undefined) io.stderr(`${skippedNote}\n`);
    if (defaulted !== undefined && allowed) io.stdout(formatStored(result.stored, defaulted));
    return allowed ? 0 : 1;
  },
};

const noManifests: ManifestContents = { objects: [], notObjects: [], invalid: [], empty: [] };

/** The previous revision's contracts, loaded as --contract's are; what is wrong with one names --old-contract. */
async function loadOldContracts(modules: string[], cwd: string): Promise<ContractRegistry> {
  try {
    return await loadRegistry(modules, cwd);
  } catch (error) {
    if (error instanceof CommandError)
      throw new CommandError(error.code, error.message.replace(/^--contract /, '--old-contract '));
    throw error;
  }
}

async function readTree(paths: string[], source: TreeSource): Promise<ManifestContents> {
  try {
    return await readManifestTree(paths, source);
  } catch (error) {
    if (error instanceof ManifestReadError) throw new CommandError('INPUT_INVALID', error.message);
    throw error;
  }
}

interface ClusterReader {
  /** The previous revisions the cluster holds of the tree's CRDs (cluster-revisions.ts). */
  revisions(tree: ManifestContents): Promise<ManifestContents>;
  /** status.storedVersions of the named CRDs the cluster holds, for a contract's revision (--old-contract). */
  storedVersions(names: readonly string[]): Promise<Map<string, string[]>>;
  /** Every live object of a changed CRD handed to `judge`; a bound passed is said on stderr, and in the answer. */
  visitLiveObjects(crd: StoredObjectsCrd, judge: (object: KubeObject) => void): Promise<{ complete: boolean }>;
}

/** The cluster's side of --from-cluster, over the kubeconfig of the flags; its failures are command errors that name the read. */
async function clusterReader(values: ParsedValues, io: CommandIo): Promise<ClusterReader> {
  const qps = positiveNumber(values, 'qps', clusterDefaults.qps);
  const maxObjects = positiveInteger(values, 'max-objects', clusterDefaults.maxObjects);
  const timeoutMs = durationOption(values, 'list-timeout', clusterDefaults.listTimeoutMs);
  const { apiServerAccessFromFlags } = await import('./kube-options.ts');
  const { createKubeApi } = await import('../kube/kube-api.ts');
  const { KubeconfigError } = await import('../kube/kubeconfig-error.ts');
  const { LiveReadError } = await import('../kube/live-read-error.ts');
  const { readClusterRevisions, readStoredVersions } = await import('../check/cluster-revisions.ts');
  const { forEachLiveObject, liveResourceOf, liveResourceName } = await import('../kube/list-live-objects.ts');
  const { createRateLimiter } = await import('../migrate/rate-limiter.ts');
  const api = createKubeApi(await apiServerAccessFromFlags(values, io.cwd), {
    timeoutMs: clusterDefaults.requestTimeoutMs,
  });
  const limiter = createRateLimiter({ qps, burst: Math.max(1, Math.ceil(qps)) });
  const failing = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (error) {
      if (error instanceof KubeconfigError) throw new CommandError('KUBECONFIG_INVALID', error.message);
      if (error instanceof LiveReadError) throw new CommandError('CLUSTER_UNREADABLE', error.message);
      throw error;
    }
  };
  return {
    revisions: (tree) => failing(() => readClusterRevisions(api, tree)),
    storedVersions: (names) => failing(() => readStoredVersions(api, names)),
    async visitLiveObjects(crd, judge) {
      const resource = liveResourceOf(crd.old);
      if (resource === undefined) return { complete: false };
      const bounds = { pageSize: Math.min(clusterDefaults.pageSize, maxObjects), maxObjects, timeoutMs, limiter };
      const end = await failing(() => forEachLiveObject(api, resource, (page) => page.forEach(judge), bounds));
      if (!end.complete) {
        const bound =
          end.stoppedBy === 'count' ? `--max-objects ${maxObjects}` : `--list-timeout (${timeoutMs / 1000} s)`;
        io.stderr(
          `warning: ${liveResourceName(resource)}: stopped listing at ${bound} after ${end.listed} objects: the rest were not judged\n`,
        );
      }
      return { complete: end.complete };
    },
  };
}

/**
 * The CRDs of the run: those among the tree's objects, then those in the --crd paths (other kinds there passed
 * over); collectCrds compiles each as kube-apiserver would create it. A --crd path that cannot be read, is not
 * valid YAML or JSON, or holds no CRD is a usage error, as is a CRD the API server would refuse.
 */
async function readCrdManifests(tree: ManifestContents, paths: string[], source: TreeSource): Promise<CrdManifest[]> {
  const found: CrdManifest[] = tree.objects
    .filter(({ object }) => isCrdObject(object))
    .map((entry) => ({ ...entry, origin: 'tree' }));
  for (const path of paths) {
    const contents = await readTree([path], source).catch((error: unknown) => {
      throw error instanceof CommandError ? new CommandError(error.code, `--crd ${error.message}`) : error;
    });
    const [invalid] = contents.invalid;
    if (invalid) throw new CommandError('INPUT_INVALID', `--crd ${describeInvalid({ ...invalid, tree: 'new' })}`);
    const crds = contents.objects.filter(({ object }) => isCrdObject(object));
    if (crds.length === 0) {
      const kinds = [...new Set(contents.objects.map(({ object }) => String(object.kind)))];
      throw new CommandError(
        'INPUT_INVALID',
        `--crd ${path}: no CustomResourceDefinition in it${kinds.length > 0 ? ` (it has: ${kinds.join(', ')})` : ''}`,
      );
    }
    found.push(...crds.map((entry) => ({ ...entry, origin: 'crd-flag' as const })));
  }
  return found;
}

function reportFormat(text: string | undefined): ReportFormat {
  if (text === undefined) return 'text';
  if (Object.hasOwn(reportFormats, text)) return text as ReportFormat;
  throw new UsageError(
    `-o must be text, json or junit, got "${text}" (the defaulted objects are printed with --defaulted yaml|json)`,
  );
}

const fieldValidationModes: readonly FieldValidation[] = ['Strict', 'Warn', 'Ignore'];

function fieldValidationMode(text: string | undefined): FieldValidation {
  if (text === undefined) return 'Strict';
  const mode = fieldValidationModes.find((candidate) => candidate.toLowerCase() === text.toLowerCase());
  if (mode === undefined) throw new UsageError(`--field-validation must be Strict, Warn or Ignore, got "${text}"`);
  return mode;
}

function defaultedFormat(text: string | undefined): FileFormat | undefined {
  if (text === undefined || text === 'yaml' || text === 'json') return text;
  throw new UsageError(`--defaulted must be yaml or json, got "${text}"`);
}

/** --delete: a deleted object has no new revision to compare with a previous one. */
function deleteOption(deleteAll: boolean, oldFiles: string[]): Pick<TreeCheckOptions, 'deleteAll'> {
  if (!deleteAll) return {};
  if (oldFiles.length > 0) throw new UsageError('--delete takes no --old: the objects of -f are deleted, not changed');
  return { deleteAll: true };
}

/** A namespace as the API server takes one: a DNS-1123 label. */
function namespaceOption(text: string | undefined): Pick<TreeCheckOptions, 'namespace'> {
  if (text === undefined) return {};
  if (!isDns1123Label(text))
    throw new UsageError(`--namespace must be a namespace name (a DNS-1123 label), got "${text}"`);
  return { namespace: text };
}

/** A phase no machine knows would deny every change as an unknown state: a typo is better caught at once. */
function knownState(registry: ContractRegistry, state: string): string {
  const machines = registry.contracts.flatMap((c) => (c.contract.transitions ? [c.contract.transitions] : []));
  if (machines.some((machine) => (machine.states as readonly string[]).includes(state))) return state;
  const known = machines.map((machine) => `${machine.name}: ${machine.states.join(', ')}`).join('; ');
  throw new UsageError(`--state ${state} is not a state of any contract's FSA (${known || 'no contract has one'})`);
}

/** One object as itself (as `check -f FILE` always printed it); several as YAML documents or a JSON List. */
function formatStored(objects: KubeObject[], format: FileFormat): string {
  if (format === 'yaml') return objects.map((object) => stringify(object)).join('---\n');
  const value = objects.length === 1 ? objects[0] : { apiVersion: 'v1', kind: 'List', items: objects };
  return `${JSON.stringify(value, null, 2)}\n`;
}
