// crdgate's public API: what a contract's author imports (`import { defineContract } from 'crdgate'`). Deliberately
// small: the contract model, field errors, the FSA's building blocks, conversion with the stash,
// quantities and release versions. Everything else in src/ is internal and may change without notice.

export {
  apiVersionOf,
  type Contract,
  type ContractDefinition,
  type ContractIdentity,
  type CrdOwner,
  type VersionDefinition,
  type PrinterColumn,
  type SelectableField,
  type Subresources,
  type SpokeConversion,
  type ConversionContext,
  type HubToSpokePaths,
  type Invariant,
  type Defaulter,
  type Defaults,
  type UpdateRule,
  type UpdateInput,
  type UpdateFindings,
} from './contract/contract-definition.ts';
export { defineContract, ContractDefinitionError } from './contract/define-contract.ts';
export {
  metadataDeletionRule,
  fieldDeletionRule,
  type DeletionRule,
  type DeletionProtection,
  type AnnotationProtection,
  type FieldProtection,
} from './contract/deletion-rules.ts';
export type { ContractReads } from './contract/contract-reads.ts';
export type {
  JSONSchemaProps,
  JSONSchemaType,
  JSONValue,
  ValidationRule,
} from './contract/schema/json-schema-props.ts';
export {
  staticDefault,
  derivedDefault,
  type DerivedDefaultOptions,
  type FormedDefaulter,
} from './contract/defaults/library-defaults.ts';
export type { DefaultComputation, DefaultForm } from './contract/defaults/default-form.ts';
export { fromCrd, readCrdFile, type CrdContractParts, type FromCrdOptions } from './contract/from-crd.ts';
export {
  annotation,
  isPlainObject,
  objectRef,
  type ContractObject,
  type KubeObject,
  type ObjectMeta,
} from './contract/values/kube-object.ts';
export { fieldError, formatFieldError, type FieldError, type FieldErrorType } from './contract/values/field-error.ts';

export type {
  AllowedChanges,
  Change,
  ChangeKind,
  Classifier,
  ConditionStateRule,
  Location,
  StateReader,
  StateRule,
  StatusTest,
  Fsa,
  UnclassifiedChanges,
} from './contract/fsa/machine.ts';
export { fieldClassifier, type FieldComparison } from './contract/fsa/field-classifier.ts';
export { keyedListClassifier, type KeyedListComparison } from './contract/fsa/keyed-list-classifier.ts';
export { byDirection, byReleaseStep, whenDifferent, type Comparison } from './contract/fsa/comparisons.ts';
export {
  cannotRead,
  isCannotRead,
  readInteger,
  readQuantity,
  readRelease,
  readString,
  type CannotRead,
} from './contract/fsa/value-readers.ts';
export {
  compareNumbers,
  type ClassifierForm,
  type ClassifierTarget,
  type ComparisonForm,
  type ValueOrder,
  type ValueReading,
} from './contract/fsa/classifier-form.ts';

export {
  specMappingConversion,
  type SpecMapping,
  type SpecMappingConversionOptions,
} from './conversion/spec-mapping-conversion.ts';
export { putStash, takeStash, type LostData } from './conversion/stash.ts';
export { overlay, presentFields, splitFields } from './conversion/lossless-fields.ts';
export { ConversionError, type ConversionErrorCode } from './conversion/conversion-error.ts';

export {
  addQuantities,
  compareQuantities,
  formatBinaryQuantity,
  isQuantity,
  isWholeNumber,
  parseQuantity,
  quantityToBigInt,
  quantityToNumber,
  type Quantity,
} from './contract/values/quantity.ts';
export { compareVersions, parseVersion } from './contract/values/release-version.ts';
