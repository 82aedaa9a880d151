// The host of the API server engine: kube-apiserver's own custom-resource pipeline, compiled to WebAssembly from
// ./go (k8s.io/apiextensions-apiserver at the release of crdgate's test control plane). It judges an object that has
// not been through an API server (`crdgate check`, crdgate/testing's contractTester) as kube-apiserver would:
// decoding, pruning and defaulting it, then validating it with the OpenAPI schema, the CEL rules and ratcheting. It
// also evaluates a single CEL expression in the environment of a CRD's rules (evaluateCel), for tests of CEL itself.
//
// The admission and conversion webhook never loads it: the API server has done all of this before it calls a
// webhook. The CRD gate (`serve --crd-gate`) does, to judge the live objects against a revision. Everything here is
// synchronous, so that contractTester(...).check() stays synchronous. The engine runs as a native process where Go
// built one beside this file, else as WebAssembly inside Node (backend/choose-backend.ts); it is started on first
// use, once per process, and each CRD is compiled once.
import { existsSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { isFieldErrorType, type FieldError, type FieldErrorType } from '../contract/values/field-error.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import {
  chooseBackend,
  ENGINE_NATIVE_PATH,
  ENGINE_WASM_PATH,
  engineSettingsOf,
  type EngineLog,
} from './backend/choose-backend.ts';
import {
  engineName,
  EngineFailedError,
  Operation,
  type EngineBackend,
  type EngineKind,
} from './backend/engine-backend.ts';
import { EngineUnrunnableError } from './backend/native-backend.ts';
import { WasmBackend } from './backend/wasm-backend.ts';

export { ENGINE_NATIVE_PATH, ENGINE_WASM_PATH, EngineFailedError, type EngineKind, type EngineLog };

/** The largest object (or CRD) handed to the engine, in bytes of JSON: kube-apiserver's own limit on a request body. */
export const MAX_ENGINE_INPUT_BYTES = 3 * 1024 * 1024;

/** The engine is not there (a checkout where it was never built, or a copy compiled without Go). */
export class EngineUnavailableError extends Error {
  override name = 'EngineUnavailableError';
}

/** A CRD kube-apiserver could not serve at all: a schema that is not structural, or no served version. */
export class CrdUnservableError extends Error {
  override name = 'CrdUnservableError';
  /** What the API server would refuse the CRD with, when it would. */
  readonly refusal: FieldError[];

  constructor(message: string, refusal: FieldError[]) {
    super(
      refusal.length > 0
        ? `${message}; kube-apiserver would refuse the CRD: ${refusal.map((e) => `${e.field}: ${e.message}`).join(', ')}`
        : message,
    );
    this.refusal = refusal;
  }
}

/** A CustomResourceDefinition compiled by the engine, served versions and all. */
export interface EngineCrd {
  readonly group: string;
  readonly kind: string;
  readonly versions: readonly string[];
  /** What kube-apiserver would answer to creating this CRD, in its words; empty when it would accept it. */
  readonly refusal: readonly FieldError[];
  /** @internal the CRD as given, to compile it again in a new instance */
  readonly json: string;
  /** @internal the engine's handle, valid in the engine `engine` and its start `start` only */
  handle: number;
  engine: EngineBackend;
  start: number;
}

/**
 * What a client asks of unknown and duplicate fields, as kubectl's --validate sends it: Strict refuses the object
 * (400), Warn lets it on pruned with a warning per field, Ignore prunes them in silence.
 */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface JudgeInput {
  operation: 'CREATE' | 'UPDATE';
  object: unknown;
  /** The stored object an UPDATE replaces, read as the API server reads it back from storage. */
  oldObject?: unknown;
  /**
   * `Strict` (kubectl's default): an unknown or duplicate field refuses the request with 400. `Ignore`: they are
   * pruned silently, as the API server treats what a mutating webhook's patch brings.
   */
  fieldValidation?: FieldValidation;
  /** Only decode, prune and default: the object as a mutating admission webhook receives it. */
  decodeOnly?: boolean;
  /** Only read it as a stored object is read back (see readAsStored). */
  asStored?: boolean;
  /**
   * `status`: an UPDATE through the status subresource (PUT .../status), as the API server's status strategy takes
   * it: everything but the status kept from `oldObject`, the status judged against the status schema (ratcheted)
   * and the CEL rules of the whole object. A version without the status subresource answers 404.
   */
  subresource?: 'status';
  /** Judge the object as it stands (see judgeAsItStands). */
  asItStands?: boolean;
  /** The request's namespace; by default the object's, else `default` for a namespaced kind. */
  namespace?: string;
}

export interface Judgement {
  allowed: boolean;
  /** On a refusal: the HTTP status (400 for a body the API server cannot take, 422 for an invalid object). */
  code?: number;
  reason?: string;
  /** On a refusal, kube-apiserver's own message: `Kind.group "name" is invalid: field: detail, ...`. */
  message?: string;
  /** One per bad field (for a 400 of unknown fields, one per unknown field). */
  causes: FieldError[];
  /** The unknown fields a strict read found, as paths: `spec.foo`. */
  unknownFields: string[];
  warnings: string[];
  /** When allowed: the object pruned and defaulted (and, unless decodeOnly, as create or update prepares it). */
  object?: KubeObject;
}

interface RawProblem {
  type: string;
  field: string;
  detail: string;
}

/** The engine chosen on first use; undefined before it, and after a failure of its settings. */
let active: { backend: EngineBackend; chosenFor: 'auto' | 'asked' | 'fallback' } | undefined;
/** CRDs compiled so far, by their JSON: the same CRD is compiled once per process. */
const compiled = new Map<string, EngineCrd>();
let engineLog: EngineLog = {
  info: () => {},
  warn: (line) => process.stderr.write(`crdgate: ${line}\n`),
};
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Why the engine is missing and how to get it, true for where this copy of crdgate is: a checkout runs from src/
 * (`npm ci` builds the engine where Go is present), anything compiled runs from dist/ (the package a tarball or a
 * git URL installs, crdgate's image), which carries the engine only when Go was present where it was built (the
 * image always builds it, in a Go stage of its own).
 */
export function engineMissingMessage(path: string): string {
  const missing = `crdgate's API server engine is not there (${path} is missing)`;
  if (basename(dirname(dirname(path))) === 'src') {
    return `${missing}: this checkout of crdgate has not built it; run \`npm run build:engine\` (needs Go >= 1.26; \`npm ci\` builds it where Go is present)`;
  }
  return (
    `${missing}: this compiled crdgate was built without it, where Go >= 1.26 was absent or its build failed (an install ` +
    'from a git URL builds the engine only where Go is present; an image built from a Dockerfile other than ' +
    "crdgate's may leave it out): install crdgate on a machine with Go >= 1.26, or from a tarball made by `npm pack`, which always " +
    'carries it (in a checkout: `npm run build:engine && npm run build`)'
  );
}

/**
 * Where the engine's log goes: which engine runs (info, once), what it writes to its standard error and what goes
 * wrong around it (warn). By default, warnings to standard error; the server gives its logger.
 */
export function setEngineLog(log: EngineLog): void {
  engineLog = log;
}

function missingMessage(kind: EngineKind | 'any'): string {
  if (kind === 'any') return engineMissingMessage(ENGINE_WASM_PATH);
  const path = kind === 'native' ? ENGINE_NATIVE_PATH : ENGINE_WASM_PATH;
  return `CRDGATE_ENGINE=${kind}, and ${engineName(kind)} is not there (${path} is missing): unset CRDGATE_ENGINE to run the engine that is built, or build it (npm run build:engine, needs Go >= 1.26)`;
}

function engine(): EngineBackend {
  if (active) return active.backend;
  const settings = engineSettingsOf(process.env);
  if (typeof settings === 'string') throw new EngineUnavailableError(settings);
  const choice = chooseBackend(settings, engineLog);
  if ('unavailable' in choice) throw new EngineUnavailableError(missingMessage(choice.unavailable));
  active = { backend: choice.backend, chosenFor: settings.asked === undefined ? 'auto' : 'asked' };
  const how = choice.backend.kind === 'native' ? 'natively' : 'as WebAssembly';
  engineLog.info(`the API server engine runs ${how}: ${choice.why}`);
  return choice.backend;
}

/**
 * Runs `use` on the engine. A native engine chosen because it is built but that cannot be run here (copied from
 * another machine, say) gives way to the WebAssembly build, once, with a warning; one asked for by CRDGATE_ENGINE
 * does not. Any failure of the engine drops what was compiled in it.
 */
function withEngine<T>(use: (backend: EngineBackend) => T): T {
  const backend = engine();
  try {
    return use(backend);
  } catch (error) {
    if (!(error instanceof EngineFailedError)) throw error;
    compiled.clear();
    // Only to a WebAssembly build that is there: without one, the native engine's own error says what is wrong.
    if (error instanceof EngineUnrunnableError && active?.chosenFor === 'auto' && existsSync(ENGINE_WASM_PATH)) {
      const wasm = new WasmBackend(ENGINE_WASM_PATH);
      active = { backend: wasm, chosenFor: 'fallback' };
      engineLog.warn(
        `${engineName('native')} cannot run here, so ${engineName('wasm')} runs instead: ${error.message}`,
      );
      return use(wasm);
    }
    throw error;
  }
}

/** One request: the JSON in, the engine's JSON answer out. */
function call<T>(backend: EngineBackend, what: string, operation: Operation, handle: number, input: string): T {
  const bytes = encoder.encode(input);
  if (bytes.length > MAX_ENGINE_INPUT_BYTES) {
    throw new RangeError(
      `${what} is ${bytes.length} bytes of JSON; the API server takes at most ${MAX_ENGINE_INPUT_BYTES}`,
    );
  }
  return JSON.parse(decoder.decode(backend.call(operation, handle, bytes, what))) as T;
}

/** @internal The engine running now (undefined before the first call), for tests of the engine itself. */
export function runningEngine(): EngineBackend | undefined {
  return active?.backend;
}

/**
 * @internal The engine's memory in bytes (0 before its first call): WebAssembly's linear memory, which only grows
 * and stops at 4 GiB, or the native process's resident set. A run over any number of objects must leave it where
 * its first calls took it.
 */
export function engineMemoryBytes(): number {
  return active?.backend.memoryBytes() ?? 0;
}

/**
 * Compiles a CustomResourceDefinition (apiextensions.k8s.io/v1) for judging its objects, once per process for the
 * same CRD. Its `refusal` says what kube-apiserver would answer to creating it. Throws CrdUnservableError when it
 * cannot be served at all, EngineUnavailableError when the engine is not built.
 */
export function loadCrd(crd: unknown): EngineCrd {
  const json = JSON.stringify(crd);
  const known = compiled.get(json);
  if (known) return known;
  const loaded = withEngine((backend) => compileCrd(backend, json));
  compiled.set(json, loaded);
  return loaded;
}

function compileCrd(backend: EngineBackend, json: string): EngineCrd {
  const start = backend.start();
  const answer = call<{
    handle?: number;
    group?: string;
    kind?: string;
    versions?: string[];
    refusal: RawProblem[];
    error?: string;
  }>(backend, 'the CRD', Operation.load, 0, json);
  const refusal = answer.refusal.map(toFieldError);
  if (answer.error !== undefined || answer.handle === undefined)
    throw new CrdUnservableError(answer.error ?? 'the engine gave no handle', refusal);
  return {
    json,
    handle: answer.handle,
    engine: backend,
    start,
    group: answer.group ?? '',
    kind: answer.kind ?? '',
    versions: answer.versions ?? [],
    refusal,
  };
}

interface RawJudgement {
  allowed: boolean;
  status?: { code: number; reason: string; message: string; causes?: RawProblem[] };
  unknownFields?: string[];
  strictErrors?: string[];
  warnings?: string[];
  object?: KubeObject;
  error?: string;
}

/**
 * Drops a compiled CRD from the engine. Each compiled CRD stays in the engine's memory, which only grows and stops
 * at 4 GiB, so what compiles revisions without end (the CRD gate in a long-running server, a run over hundreds of
 * revisions) forgets each when done. Safe whoever else holds it: a later judge of a forgotten CRD compiles it again.
 */
export function forgetCrd(crd: EngineCrd): void {
  if (crd.handle >= 0 && crd.engine.current() === crd.start) {
    // Nothing to lose if the engine fails now: what it held is gone with it.
    try {
      crd.engine.call(Operation.forget, crd.handle, new Uint8Array(), 'forgetting a CRD');
    } catch (error) {
      if (!(error instanceof EngineFailedError)) throw error;
      compiled.clear();
    }
  }
  crd.handle = -1;
  if (compiled.get(crd.json) === crd) compiled.delete(crd.json);
}

/** Forgets the compiled CRD that loadCrd holds for this CRD, if it holds one (see forgetCrd); compiles nothing. */
export function forgetCompiledCrd(crd: unknown): void {
  const known = compiled.get(JSON.stringify(crd));
  if (known) forgetCrd(known);
}

/** What kube-apiserver answers to a create or an update of `object`, up to storing it. */
export function judge(crd: EngineCrd, input: JudgeInput): Judgement {
  const request = {
    operation: input.operation,
    object: input.object,
    ...(input.oldObject !== undefined ? { oldObject: input.oldObject } : {}),
    ...(input.fieldValidation ? { fieldValidation: input.fieldValidation } : {}),
    ...(input.decodeOnly ? { decodeOnly: true } : {}),
    ...(input.asStored ? { asStored: true } : {}),
    ...(input.subresource ? { subresource: input.subresource } : {}),
    ...(input.asItStands ? { asItStands: true } : {}),
    ...(input.namespace ? { namespace: input.namespace } : {}),
  };
  const answer = withEngine((backend) => {
    if (crd.engine !== backend || crd.engine.current() !== crd.start || crd.handle < 0) {
      // Compiled in an engine that has since failed or given way, or forgotten: compile it again in the one the
      // call runs in. Its own handle, not the cache's: a handle shared by two holders would outlive the first one's
      // forgetCrd.
      const again = compileCrd(backend, crd.json);
      crd.handle = again.handle;
      crd.engine = backend;
      crd.start = again.start;
    }
    return call<RawJudgement>(backend, 'the object', Operation.judge, crd.handle, JSON.stringify(request));
  });
  if (answer.error !== undefined) throw new Error(`the API server engine failed: ${answer.error}`);
  const unknownFields = answer.unknownFields ?? [];
  const causes = answer.status?.causes?.map(toFieldError) ?? [
    ...unknownFields.map((path) => ({
      field: path,
      type: 'FieldValueUnknown' as const,
      message: `unknown field ${JSON.stringify(lastStep(path))}`,
    })),
    ...(answer.strictErrors ?? []).map((text) => ({ field: '', type: 'FieldValueInvalid' as const, message: text })),
  ];
  return {
    allowed: answer.allowed,
    ...(answer.status
      ? { code: answer.status.code, reason: answer.status.reason, message: answer.status.message }
      : {}),
    causes: answer.allowed ? [] : causes,
    unknownFields,
    warnings: answer.warnings ?? [],
    ...(answer.object ? { object: answer.object } : {}),
  };
}

/**
 * `object` as kube-apiserver holds it once stored, which is how an update's old object reaches its webhooks and
 * rules: read back leniently, pruned, with the schema's defaults. A refusal (a body no API server could have
 * stored) is the judgement's.
 */
export function readAsStored(crd: EngineCrd, object: unknown): Judgement {
  return judge(crd, { operation: 'CREATE', object, asStored: true });
}

/**
 * Every field of a stored `object` that its version's schema and rules refuse as it stands: read as stored (pruned,
 * defaulted), then judged whole, status included, as a create judges an object, but without a create's preparation
 * (which would drop the status) and without ratcheting (there is no old object; transition rules do not run). What
 * a write that changes those fields meets; a write that leaves them as they are is spared by ratcheting.
 */
export function judgeAsItStands(crd: EngineCrd, object: unknown): Judgement {
  const judged = judge(crd, { operation: 'CREATE', object, asItStands: true });
  // The schema's walk of an object's properties follows Go's map order, which changes from run to run: a stored
  // object's findings are listed by field, so that a report and its tests read the same every time.
  return { ...judged, causes: [...judged.causes].sort((a, b) => (a.field < b.field ? -1 : a.field > b.field ? 1 : 0)) };
}

function toFieldError(problem: RawProblem): FieldError {
  const type: FieldErrorType = isFieldErrorType(problem.type) ? problem.type : 'FieldValueInvalid';
  // A path-less error (the one saying the rules were not checked) names the field `<nil>`: crdgate says '' for that.
  return { field: problem.field === '<nil>' ? '' : problem.field, type, message: problem.detail };
}

/** `spec.a.b` → `b`; `spec.m[k]` → `k`. */
function lastStep(path: string): string {
  const bracket = /\[([^\]]*)\]$/.exec(path);
  if (bracket) return bracket[1]!;
  return path.slice(path.lastIndexOf('.') + 1);
}

/** A message of cel.expr (Value, Type, Decl) in its protobuf JSON form, as CEL's conformance tests write them. */
export type CelProtoJson = { readonly [field: string]: unknown };

export interface CelExpression {
  expr: string;
  /** A namespace names resolve in (CEL's container); CRD rules have none. */
  container?: string;
  /** The variables (and functions, for checking only) the expression may name: cel.expr.Decl. */
  typeEnv?: readonly CelProtoJson[];
  /** The variables' values: cel.expr.Value by name. */
  bindings?: Readonly<Record<string, CelProtoJson>>;
  /** Parse and type-check only. */
  checkOnly?: boolean;
}

export interface CelEvaluation {
  /** The checked type of the expression (cel.expr.Type), once it compiled. */
  type?: CelProtoJson;
  /**
   * The result (cel.expr.Value). That message has no optional values: cel-go writes optional.of(x) as x in a
   * google.protobuf wrapper, and fails on optional.none() (evaluateCel throws).
   */
  value?: CelProtoJson;
  /** The parser's or type checker's issues: kube-apiserver refuses a CRD with a rule that does not compile. */
  compileError?: string;
  /** The evaluation's error (no such overload, overflow, the cost limit): a rule that errs fails validation. */
  evalError?: string;
}

/**
 * Evaluates one CEL expression as kube-apiserver v1.36 evaluates a CRD's x-kubernetes-validations rule: the same
 * base environment (Kubernetes' libraries, its cel-go options, the per-call cost limit), with the variables the
 * caller declares in place of `self` and `oldSelf`. Throws EngineUnavailableError when the engine is not built.
 */
export function evaluateCel(input: CelExpression): CelEvaluation {
  const answer = withEngine((backend) =>
    call<CelEvaluation & { error?: string }>(
      backend,
      'the CEL expression',
      Operation.evaluate,
      0,
      JSON.stringify(input),
    ),
  );
  if (answer.error !== undefined) throw new Error(`the API server engine failed: ${answer.error}`);
  return answer;
}

export interface MatchConditionsRequest {
  conditions: ReadonlyArray<{ name: string; expression: string }>;
  /** The webhook's failurePolicy: under Fail (the default) an evaluation error refuses the request, under Ignore it skips the webhook. */
  failurePolicy?: 'Fail' | 'Ignore';
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  /** The kind and resource the webhook is called for: after matchPolicy Equivalent, those of the version its rules name. */
  kind: { group: string; version: string; kind: string };
  resource: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  namespace?: string;
  /** The object in that version; absent on DELETE. */
  object?: unknown;
  /** The stored object; absent on CREATE. */
  oldObject?: unknown;
  username?: string;
  groups?: readonly string[];
  dryRun?: boolean;
}

export interface MatchConditionsAnswer {
  /** The conditions kube-apiserver would refuse the webhook configuration for, and why. */
  compileErrors?: Array<{ name: string; detail: string }>;
  /** Whether the API server calls the webhook for this request. */
  matches: boolean;
  /** The condition that was false, when one was. */
  failedCondition?: string;
  /** Under failurePolicy Fail: the evaluation error the API server refuses the request with, without calling the webhook. */
  evalError?: string;
  /** What the conditions cost of their runtime budget, and that budget. */
  cost: number;
  budget: number;
}

/**
 * Whether kube-apiserver v1.36 calls a webhook with these matchConditions for this request, decided by its own
 * code: the configuration's validation compiles each condition, the webhook dispatcher's matcher evaluates them
 * within their shared runtime cost budget. Throws EngineUnavailableError when the engine is not built.
 */
export function matchWebhookConditions(request: MatchConditionsRequest): MatchConditionsAnswer {
  const answer = withEngine((backend) =>
    call<MatchConditionsAnswer & { error?: string }>(
      backend,
      'the match conditions',
      Operation.match,
      0,
      JSON.stringify(request),
    ),
  );
  if (answer.error !== undefined) throw new Error(`the API server engine failed: ${answer.error}`);
  return answer;
}
