import { describe, expect, it } from 'vitest';
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, formatFieldError } from './field-error.ts';

// The expected lines are kube-apiserver's own (v1.36), as it words the same field.Required, field.Invalid,
// field.Forbidden and field.NotSupported errors when it refuses a CRD.
describe("Kubernetes' field error constructors", () => {
  it('words a required value with and without a reason', () => {
    const bare = fieldRequired('spec.replicas');
    expect(bare.type).toBe('FieldValueRequired');
    expect(formatFieldError(bare)).toBe('spec.replicas: Required value');
    const why = fieldRequired('openAPIV3Schema.items', 'must be specified');
    expect(why.type).toBe('FieldValueRequired');
    expect(formatFieldError(why)).toBe('openAPIV3Schema.items: Required value: must be specified');
  });

  it('words an invalid value with the value as shown, then why', () => {
    const error = fieldInvalid('openAPIV3Schema.type', '"string"', 'must be object at the root');
    expect(error.type).toBe('FieldValueInvalid');
    expect(formatFieldError(error)).toBe('openAPIV3Schema.type: Invalid value: "string": must be object at the root');
  });

  it('words a forbidden field', () => {
    const error = fieldForbidden('openAPIV3Schema.nullable', 'nullable cannot be true at the root');
    expect(error.type).toBe('FieldValueForbidden');
    expect(formatFieldError(error)).toBe('openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root');
  });

  it('words an unsupported value with every supported one quoted', () => {
    const error = fieldNotSupported('openAPIV3Schema.x-kubernetes-list-type', '"bag"', ['atomic', 'set', 'map']);
    expect(error.type).toBe('FieldValueNotSupported');
    expect(formatFieldError(error)).toBe(
      'openAPIV3Schema.x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"',
    );
  });

  it('quotes a supported value that holds quotes and backslashes as Go does', () => {
    const message = fieldNotSupported('f', '1', ['a"b\\c']).message;
    expect(message).toBe('Unsupported value: 1: supported values: "a\\"b\\\\c"');
  });
});
