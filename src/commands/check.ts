import { randomUUID } from 'node:crypto';
import { applyJsonPatch } from '../admission/json-patch.ts';
import { decideMutation } from '../admission/mutate.ts';
import type { AdmissionRequest, Operation } from '../admission/review.ts';
import { decideValidation } from '../admission/validate.ts';
import { sanitizeWarnings, type Verdict } from '../admission/verdict.ts';
import { formatFieldError } from '../contract/field-error.ts';
import { splitApiVersion, type KubeObject } from '../contract/kube-object.ts';
import type { ContractRegistry } from '../contract/registry.ts';
import { requiredString, stringList, stringOption, UsageError, type Command } from './command.ts';
import { loadRegistry } from './contracts.ts';
import { readObjectFile } from './object-file.ts';

export const checkCommand: Command = {
  name: 'check',
  summary: 'decide offline what the webhooks would decide for an object (for CI and GitOps pipelines)',
  usage: `crdgate check -f FILE [--old FILE] [--operation CREATE|UPDATE|DELETE] [--contract MODULE]...

  Runs the mutating webhook (defaults) and then the validating webhook, as the API server would.
  The operation defaults to UPDATE with --old, else CREATE. For DELETE, -f is the object being deleted.
  Exit code 0: allowed; 1: denied (the reasons are printed); 2: bad usage or an unreadable file.`,
  options: {
    file: { type: 'string', short: 'f' },
    old: { type: 'string' },
    operation: { type: 'string' },
    contract: { type: 'string', multiple: true },
  },
  async run(values, io) {
    const file = requiredString(values, 'file');
    const oldFile = stringOption(values, 'old');
    const operation = (stringOption(values, 'operation') ?? (oldFile ? 'UPDATE' : 'CREATE')).toUpperCase();
    if (operation !== 'CREATE' && operation !== 'UPDATE' && operation !== 'DELETE') {
      throw new UsageError(`--operation must be CREATE, UPDATE or DELETE, got "${operation}"`);
    }
    if (operation === 'UPDATE' && !oldFile) throw new UsageError('--operation UPDATE needs --old FILE');
    const { object } = await readObjectFile(file, io.cwd);
    const oldObject = oldFile ? (await readObjectFile(oldFile, io.cwd)).object : null;
    const registry = await loadRegistry(stringList(values, 'contract'), io.cwd);

    const result = checkObject(registry, operation, object, oldObject);
    for (const warning of result.warnings) io.stdout(`warning: ${warning}\n`);
    if (result.denied) {
      io.stdout(`denied: ${result.denied.message}\n`);
      return 1;
    }
    io.stdout(result.defaultedFields > 0 ? `allowed (defaults would set ${result.defaultedFields} field(s))\n` : 'allowed\n');
    return 0;
  },
};

interface CheckResult {
  denied?: { message: string };
  warnings: string[];
  defaultedFields: number;
}

/** The API server's order: the mutating webhook's patch is applied, then the validating webhook decides. */
function checkObject(registry: ContractRegistry, operation: Operation, object: KubeObject, oldObject: KubeObject | null): CheckResult {
  const request = (obj: KubeObject | null, old: KubeObject | null): AdmissionRequest => {
    const subject = (obj ?? old)!;
    const { group, version } = splitApiVersion(String(subject.apiVersion));
    return {
      uid: randomUUID(),
      kind: { group, version, kind: String(subject.kind) },
      operation,
      object: obj,
      oldObject: old,
      ...(subject.metadata?.name ? { name: subject.metadata.name } : {}),
      ...(subject.metadata?.namespace ? { namespace: subject.metadata.namespace } : {}),
    };
  };
  if (operation === 'DELETE') return summarize(decideValidation(registry, request(null, object)), 0, []);
  const mutation = decideMutation(registry, request(object, oldObject));
  if (!mutation.allowed) return summarize(mutation, 0, []);
  const defaulted = mutation.patch ? applyJsonPatch(object, mutation.patch) : object;
  return summarize(decideValidation(registry, request(defaulted, oldObject)), mutation.patch?.length ?? 0, mutation.warnings);
}

function summarize(verdict: Verdict, defaultedFields: number, earlierWarnings: string[]): CheckResult {
  const warnings = sanitizeWarnings([...earlierWarnings, ...verdict.warnings]);
  if (verdict.allowed) return { warnings, defaultedFields };
  const causes = verdict.causes ?? [];
  // One line per cause reads better in a pipeline log than the API server's single comma-joined message.
  const message = causes.length > 0 ? `${verdict.code}\n${causes.map((c) => `  ${formatFieldError(c)}`).join('\n')}` : `${verdict.code}: ${verdict.message}`;
  return { denied: { message }, warnings, defaultedFields };
}
