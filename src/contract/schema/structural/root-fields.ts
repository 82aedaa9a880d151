import { fieldForbidden, fieldInvalid, type FieldError } from '../../values/field-error.ts';
import { describeInFull } from './describe-in-full.ts';
import { isSchemaField, isZero, type Schema } from './schema-reading.ts';

/** The fields the root may have while the status subresource is on (so that status's schema is whole on its own). */
const allowedAtRootWithStatus = [
  'description',
  'type',
  'format',
  'title',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'multipleOf',
  'required',
  'items',
  'properties',
  'externalDocs',
  'example',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-validations',
];
/** Their names in the API server's message, which are its Go field names. */
const allowedAtRootWithStatusGoNames =
  'Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern ' +
  'MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields ' +
  'XValidations';

/** The root's own rules: an object when the status subresource is on, and never nullable. */
export function checkRootFields(schema: Schema, path: string, withStatus: boolean, problems: FieldError[]): void {
  if (withStatus) {
    if (!isZero('type', schema.type) && schema.type !== 'object') {
      const why = 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled';
      problems.push(fieldInvalid(`${path}.type`, describeInFull(schema.type), why));
    } else {
      const others = Object.keys(schema).filter(
        (key) => isSchemaField(key) && !isZero(key, schema[key]) && !allowedAtRootWithStatus.includes(key),
      );
      if (others.length > 0) {
        const why =
          `only [${allowedAtRootWithStatusGoNames}] fields are allowed at the root of the schema ` +
          'if the status subresource is enabled';
        problems.push(fieldInvalid(path, describeInFull(others.join(', ')), why));
      }
    }
  }
  if (schema.nullable === true) {
    problems.push(fieldForbidden(`${path}.nullable`, 'nullable cannot be true at the root'));
  }
}
