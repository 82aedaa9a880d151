import type { ErrorObject } from 'ajv';
import { formatFieldError, type FieldError, type FieldErrorType } from '../values/field-error.ts';
import { describeFieldValue, describeText, describeValue } from '../values/describe-value.ts';
import { compareDocumentPositions, createDocumentPositions } from './document-order.ts';
import { parseFieldPath, pointerSegments, renderFieldPath, type PathSegment } from '../values/field-path.ts';
import { describeFormat } from './kubernetes-formats.ts';
import { listUniquenessKeyword } from './list-uniqueness.ts';
import { unsatisfiableBoundError, unsatisfiableBoundKeyword, type UnsatisfiableBound } from './unsatisfiable-bound.ts';

/** A field error whose path is still segments, so errors can be put in document order before paths are rendered. */
interface LocatedError {
  segments: PathSegment[];
  type: FieldErrorType;
  message: string;
  /** For a message that names its own field, as some of kube-openapi's do: the message for the rendered path. */
  messageAt?: (field: string) => string;
}

interface Entry {
  schemaPath: string;
  located: LocatedError;
}

/**
 * ajv's errors (from a validator compiled by compile-schema.ts, with `verbose`) as Kubernetes field errors:
 * in document order, without duplicates, junctor branches folded into the junctor's own error.
 */
export function fieldErrorsFromAjv(errors: readonly ErrorObject[], data: unknown, rootPath: string): FieldError[] {
  const positionOf = createDocumentPositions(data);
  // `if` only says that its `else` (the junctors of a node that lets null through) failed, which they report.
  const ordered = foldJunctors(
    errors.filter((error) => error.keyword !== 'if'),
    data,
    parseFieldPath(rootPath),
  )
    .map((located) => ({ located, position: positionOf(located.segments) }))
    .sort((a, b) => compareDocumentPositions(a.position, b.position));
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const {
    located: { segments, type, message: fixedMessage, messageAt },
  } of ordered) {
    const field = renderFieldPath(rootPath, segments);
    const message = messageAt ? messageAt(field) : fixedMessage;
    const key = `${field}\u0000${type}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push(withExactPath({ field, type, message }, [...parseFieldPath(rootPath), ...segments]));
  }
  return result;
}

/** Adds the exact steps to an error whose rendered path does not lead back to them (escaped or shortened keys). */
function withExactPath(error: FieldError, segments: PathSegment[]): FieldError {
  const parsed = parseFieldPath(error.field);
  const exact = parsed.length === segments.length && parsed.every((segment, i) => segment === segments[i]);
  return exact ? error : { ...error, path: segments };
}

const junctors = new Set(['anyOf', 'oneOf', 'not']);

// When an anyOf fails, ajv keeps the errors of every branch: reported as they are, they would read as if all of
// them had to be fixed. They become one error at the junctor that lists what each branch wanted.
// ajv reports a junctor right after its branches' errors (a passing junctor's are discarded, a failing one's are
// folded here), so they are the trailing entries: looking only there keeps thousands of errors linear.
function foldJunctors(errors: readonly ErrorObject[], data: unknown, root: readonly PathSegment[]): LocatedError[] {
  const entries: Entry[] = [];
  for (const error of errors) {
    if (junctors.has(error.keyword)) {
      const branchPrefix = `${error.schemaPath}/`;
      let firstBranchEntry = entries.length;
      while (firstBranchEntry > 0 && entries[firstBranchEntry - 1]!.schemaPath.startsWith(branchPrefix))
        firstBranchEntry--;
      const branches = entries.splice(firstBranchEntry);
      entries.push({ schemaPath: error.schemaPath, located: locateJunctorError(error, branches, data) });
    } else {
      entries.push({ schemaPath: error.schemaPath, located: locateError(error, data, root) });
    }
  }
  return entries.map((entry) => entry.located);
}

function locateError(error: ErrorObject, data: unknown, root: readonly PathSegment[]): LocatedError {
  const segments = pointerSegments(data, error.instancePath);
  const at = (type: FieldErrorType, message: string): LocatedError => ({ segments, type, message });
  const shown = describeFieldValue(error.data);
  const invalid = (requirement: string) => at('FieldValueInvalid', `Invalid value: ${shown}: ${requirement}`);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        segments: [...segments, String(params.missingProperty)],
        type: 'FieldValueRequired',
        message: 'Required value',
      };
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      return {
        segments: [...segments, name],
        type: 'FieldValueUnknown',
        message: `unknown field ${describeValue(name)}`,
      };
    }
    case listUniquenessKeyword:
      return at('FieldValueDuplicate', `Duplicate value: ${describeFieldValue(params.duplicate)}`);
    case unsatisfiableBoundKeyword: {
      const bound = error.schema as UnsatisfiableBound;
      const { type, message } = unsatisfiableBoundError(bound, error.data, '');
      return { ...at(type, message), messageAt: (field) => unsatisfiableBoundError(bound, error.data, field).message };
    }
    case 'type':
      return at(
        'FieldValueTypeInvalid',
        `Invalid value: ${shown}: must be of type ${declaredTypes(error, params).join(' or ')}, got ${jsonTypeOf(error.data)}`,
      );
    case 'enum':
      return at(
        'FieldValueNotSupported',
        `Unsupported value: ${shown}: supported values: ${listValues(params.allowedValues)}`,
      );
    case 'pattern':
      // kube-openapi's words (FailedPattern), naming the field as its validator does: `spec.hosts[0]`, `spec.labels.a`.
      return invalid(
        `${openApiName([...root, ...segments])} in body should match '${describeText(String(params.pattern), maxShownPatternLength)}'`,
      );
    case 'format':
      return invalid(`must be ${describeFormat(String(params.format))}`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return invalid(
        `must be ${comparisonWords[String(params.comparison)] ?? String(params.comparison)} ${String(params.limit)}`,
      );
    case 'multipleOf':
      return invalid(`must be a multiple of ${String(params.multipleOf)}`);
    case 'minLength':
      return invalid(`must be at least ${String(params.limit)} characters long`);
    case 'maxLength':
      return at('FieldValueTooLong', `Too long: may not be more than ${String(params.limit)} characters`);
    case 'minItems':
      return invalid(`must have at least ${String(params.limit)} items`);
    case 'maxItems':
      return at(
        'FieldValueTooMany',
        `Too many: ${countOf(error.data)}: must have at most ${String(params.limit)} items`,
      );
    case 'minProperties':
      return invalid(`must have at least ${String(params.limit)} properties`);
    case 'maxProperties':
      return at(
        'FieldValueTooMany',
        `Too many: ${countOf(error.data)}: must have at most ${String(params.limit)} properties`,
      );
    default:
      return invalid(`must satisfy the ${describeText(error.keyword)} rule`);
  }
}

/** A pattern is the schema author's, not a client's: shown whole, as the API server shows it, up to a bound. */
const maxShownPatternLength = 4096;

/** A field as kube-openapi's validator names it in its messages: properties and keys after a dot, items indexed. */
function openApiName(segments: readonly PathSegment[]): string {
  let name = '';
  for (const segment of segments) {
    if (typeof segment === 'number') name += `[${segment}]`;
    else name = name === '' ? segment : `${name}.${segment}`;
  }
  return name;
}

function locateJunctorError(error: ErrorObject, branches: readonly Entry[], data: unknown): LocatedError {
  const segments = pointerSegments(data, error.instancePath);
  const value = describeFieldValue(error.data);
  const passing = (error.params as { passingSchemas?: unknown }).passingSchemas;
  let requirement: string;
  if (error.keyword === 'not') requirement = 'must not match the schema in not';
  else if (Array.isArray(passing))
    requirement = `must match exactly one of the oneOf schemas, but matches ${passing.length}`;
  else
    requirement = `must match ${error.keyword === 'anyOf' ? 'at least' : 'exactly'} one of the ${error.keyword} schemas${branchSummary(error, branches, segments)}`;
  return { segments, type: 'FieldValueInvalid', message: `Invalid value: ${value}: ${requirement}` };
}

const maxSummaryLength = 256;

/** The first complaint of each branch, with paths relative to the junctor: `: (1) a: Required value; (2) ...`. */
function branchSummary(
  error: ErrorObject,
  branches: readonly Entry[],
  junctorSegments: readonly PathSegment[],
): string {
  const firstByBranch = new Map<string, LocatedError>();
  const branchPrefix = `${error.schemaPath}/`;
  for (const { schemaPath, located } of branches) {
    const branch = schemaPath.slice(branchPrefix.length).split('/', 1)[0] ?? '';
    if (!firstByBranch.has(branch)) firstByBranch.set(branch, located);
  }
  if (firstByBranch.size === 0) return '';
  const parts = [...firstByBranch].map(([branch, located]) => {
    const relative = renderFieldPath('', located.segments.slice(junctorSegments.length));
    return `(${Number(branch) + 1}) ${formatFieldError({ field: relative, type: located.type, message: located.message })}`;
  });
  const summary = parts.join('; ');
  return `: ${summary.length > maxSummaryLength ? `${summary.slice(0, maxSummaryLength)}...` : summary}`;
}

const comparisonWords: Readonly<Record<string, string>> = {
  '<=': 'less than or equal to',
  '<': 'less than',
  '>=': 'greater than or equal to',
  '>': 'greater than',
};

const maxListedValues = 16;

function listValues(values: unknown): string {
  const list = Array.isArray(values) ? values : [];
  const shown = list.slice(0, maxListedValues).map((value) => describeValue(value));
  return list.length > maxListedValues ? `${shown.join(', ')}, ...` : shown.join(', ');
}

function countOf(value: unknown): number {
  if (Array.isArray(value)) return value.length;
  return value !== null && typeof value === 'object' ? Object.keys(value).length : 0;
}

/** The JSON type names Kubernetes uses in its messages. */
function jsonTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** The types a schema declares, which the message names, rather than all that the validator lets through. */
function declaredTypes(error: ErrorObject, params: Record<string, unknown>): string[] {
  const declared = (error.parentSchema as { declaredType?: unknown } | undefined)?.declaredType;
  return Array.isArray(declared) ? declared.map(String) : [params.type].flat().map(String);
}
