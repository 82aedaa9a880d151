import { Ajv, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import { fieldError, type FieldError } from '../values/field-error.ts';
import { countValues } from '../values/value-shape.ts';
import { fieldErrorsFromAjv } from './field-errors-from-ajv.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { addKubernetesFormats } from './kubernetes-formats.ts';
import { listUniquenessKeywordDefinition } from './list-uniqueness.ts';
import { unsatisfiableBoundKeywordDefinition } from './unsatisfiable-bound.ts';
import { splitSchema } from './split-schema.ts';
import { toAjvSchema } from './to-ajv-schema.ts';
import { compileGoRegexp, type GoRegexp } from './structural/go-regexp.ts';

/** Every problem with a value, in document order; empty when it is valid. */
export type ObjectValidator = (value: unknown) => FieldError[];

export interface CompileOptions {
  /**
   * Where the schema sits in the object, prefixed to every error path. Without it the schema describes a whole
   * resource, whose apiVersion, kind and metadata need no declaration; with it, it describes a part.
   */
  rootPath?: string;
}

export interface SchemaCompiler {
  /** Compiles once, at start-up: the validator it returns does no schema work per call. */
  compile(schema: JSONSchemaProps, options?: CompileOptions): ObjectValidator;
}

export class SchemaCompileError extends Error {
  override name = 'SchemaCompileError';
}

/**
 * Collecting every error costs memory per error, and a 7 MiB review can hold millions of values that are all wrong
 * (ajv alone needs gigabytes for them). Every error is collected only for objects up to this many values; a larger
 * invalid object is reported by its first error. Real objects are far smaller.
 */
export const fullReportValueLimit = 10_000;
/** ajv's raw errors mapped to field errors at most; more are counted, not described. */
export const maxMappedAjvErrors = 10_000;

/**
 * The most schema nodes one generated function holds: a larger schema is split into parts (split-schema.ts), each a
 * function of its own. Every schema is split, whatever its size, since it costs nothing measurable where it does not
 * help. Measured on generated schemas (large-schema.fixture.ts) by bench/schema-validation-child.ts, each in a
 * process of its own with the Deployment's NODE_OPTIONS and V8's defaults, validating until hot: at 2,550
 * nodes (the size of the Prometheus Operator's Prometheus) one function peaked at 1,165 MiB RSS, twice the pod's
 * memory limit, and the parts at 332 MiB, validating 1.48x as fast; on GeoDatabase's schema (32 nodes) the same
 * peak and rate (1.00-1.05x). In between (/usr/bin/time on the same fixture): at 1,300 nodes 530 against 230 MiB,
 * the parts 0.63x as fast, and at 690 nodes 289 against 173 MiB. So no size is safe to leave whole (its memory grows
 * with it, to past the limit), and a small schema is cut into a few parts or none. 25 gave the lowest peak and the
 * highest rate of the sizes tried (25 to 400) on the 2,550-node schema. `crdgate serve` also keeps Maglev off the
 * validators (server/validator-jit.ts), which alone brings either layout to about 170 MiB there; the parts still
 * hold where that flag is not set (check, dev, contractTester) and validate the large schema faster.
 */
export const defaultMaxPartNodes = 25;

/**
 * `maxPartNodes` Infinity compiles each schema into one function, as crdgate did before it split them. `regExp`
 * compiles the patterns: Go's regexp, as the API server; bench/ compares ECMAScript's RegExp, as crdgate did before.
 */
export function createSchemaCompiler(
  maxPartNodes = defaultMaxPartNodes,
  regExp: RegExpEngine = goRegExpEngine(),
): SchemaCompiler {
  const everyError = createAjv(true, regExp);
  // Stops at the first error: decides validity in time linear in the object and constant memory, whatever its size.
  const firstError = createAjv(false, regExp);

  return {
    compile(schema, options = {}) {
      const rootPath = options.rootPath ?? '';
      const translated = splitSchema(
        toAjvSchema(schema, { resourceRoot: options.rootPath === undefined }),
        maxPartNodes,
      );
      const compiled = (ajv: Ajv): ValidateFunction => {
        try {
          return ajv.compile(translated);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new SchemaCompileError(`cannot compile the schema: ${reason}`, { cause: error });
        }
      };
      const validateFirst = compiled(firstError);
      // Only for an object found invalid: every valid object is decided by validateFirst alone, and the second
      // validator doubles what a schema costs to compile and hold (megabytes of generated code for a large CRD).
      let validateAll: ValidateFunction | undefined;
      // Errors are mapped only when there are any: the valid path is ajv's generated code and nothing else.
      return function validateObject(value) {
        if (validateFirst(value)) return [];
        if (countValues(value, fullReportValueLimit) > fullReportValueLimit) {
          return [
            // One error: a keyword of crdgate's own (list uniqueness) reports every duplicate even in this mode.
            ...fieldErrorsFromAjv((validateFirst.errors ?? []).slice(0, 1), value, rootPath),
            fieldError(
              rootPath,
              'FieldValueTooMany',
              `validation stopped at the first error: the object holds more than ${fullReportValueLimit} values`,
            ),
          ];
        }
        validateAll ??= compiled(everyError);
        validateAll(value);
        const errors = validateAll.errors ?? [];
        const mapped = fieldErrorsFromAjv(errors.slice(0, maxMappedAjvErrors), value, rootPath);
        if (errors.length <= maxMappedAjvErrors) return mapped;
        return [
          ...mapped,
          fieldError(rootPath, 'FieldValueTooMany', `more errors not listed (over ${maxMappedAjvErrors} in all)`),
        ];
      };
    },
  };
}

/**
 * Patterns as kube-apiserver matches them: Go's regexp (go-regexp.ts), in time linear in the value, not ECMAScript's
 * backtracking RegExp. ajv asks for a pattern each time a schema uses it and keeps one per distinct `toString()`;
 * this keeps one per pattern for the compiler's two ajv instances and all the schemas they compile, so that each
 * pattern is compiled once.
 */
export function goRegExpEngine(): RegExpEngine {
  const compiled = new Map<string, GoRegexp & { toString(): string }>();
  const engine = (pattern: string) => {
    let regexp = compiled.get(pattern);
    if (!regexp) {
      const { test } = compileGoRegexp(pattern);
      regexp = { pattern, test, toString: () => pattern };
      compiled.set(pattern, regexp);
    }
    return regexp;
  };
  // What standalone code would call; crdgate never generates any.
  engine.code = 'compileGoRegexp';
  return engine;
}

function createAjv(allErrors: boolean, regExp: RegExpEngine): Ajv {
  const ajv = new Ajv({
    code: { regExp },
    allErrors,
    // Errors carry the offending value, which messages quote.
    verbose: true,
    // crdgate writes its own messages; ajv's would only cost code size.
    messages: false,
    // The translated schemas mix structural and value-only nodes, which ajv's strict mode would flag.
    strict: false,
    // A required "constructor" must not be satisfied by Object.prototype.
    ownProperties: true,
    addUsedSchema: false,
    // A split schema's parts stay functions of their own (without this, ajv inlines them back into one).
    inlineRefs: false,
  });
  addKubernetesFormats(ajv);
  ajv.addKeyword(listUniquenessKeywordDefinition);
  ajv.addKeyword(unsatisfiableBoundKeywordDefinition);
  return ajv;
}
