import { Ajv } from 'ajv';
import type { FieldError } from '../field-error.ts';
import { fieldErrorsFromAjv } from './field-errors-from-ajv.ts';
import type { JSONSchemaProps } from './json-schema-props.ts';
import { addKubernetesFormats } from './kubernetes-formats.ts';
import { listUniquenessKeywordDefinition } from './list-uniqueness.ts';
import { toAjvSchema } from './to-ajv-schema.ts';

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

export function createSchemaCompiler(): SchemaCompiler {
  const ajv = new Ajv({
    allErrors: true,
    // Errors carry the offending value, which messages quote.
    verbose: true,
    // crdgate writes its own messages; ajv's would only cost code size.
    messages: false,
    // The translated schemas mix structural and value-only nodes, which ajv's strict mode would flag.
    strict: false,
    // A required "constructor" must not be satisfied by Object.prototype.
    ownProperties: true,
    addUsedSchema: false,
  });
  addKubernetesFormats(ajv);
  ajv.addKeyword(listUniquenessKeywordDefinition);

  return {
    compile(schema, options = {}) {
      const rootPath = options.rootPath ?? '';
      const translated = toAjvSchema(schema, { resourceRoot: options.rootPath === undefined });
      let validate;
      try {
        validate = ajv.compile(translated);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new SchemaCompileError(`cannot compile the schema: ${reason}`, { cause: error });
      }
      // Errors are mapped only when there are any: the valid path is ajv's generated code and nothing else.
      return (value) => (validate(value) ? [] : fieldErrorsFromAjv(validate.errors ?? [], value, rootPath));
    },
  };
}
