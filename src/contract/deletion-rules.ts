import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { valueAtSegments } from './values/field-path.ts';
import { annotation, objectRef, type ContractObject, type KubeObject } from './values/kube-object.ts';
import type { UntypedSpec } from './values/object-rules.ts';

/**
 * A reason to refuse a DELETE, decided on the object as it is stored (converted to the hub). A rule marked
 * `readsMetadataOnly` (see metadataDeletionRule) is decided even when the stored object cannot be converted, on its
 * apiVersion, kind and metadata alone, so such an object can still be deleted; any other rule then denies.
 */
export interface DeletionRule<Spec = UntypedSpec> {
  (object: ContractObject<Spec>): string | undefined;
  readonly readsMetadataOnly?: boolean;
  /** The rule as data: the policy compiler turns it into CEL, and the webhook is called only for what it protects. */
  readonly form?: DeletionProtection;
}

/** An object is protected from deletion while it carries `annotation` with exactly `equals` as its value. */
export interface AnnotationProtection {
  annotation: string;
  equals: string;
}

/**
 * An object is protected from deletion while the hub's field at `field` (a dotted path of the spec, such as
 * `spec.deletionProtection`) holds exactly `equals`: a boolean or string field, or an integer one.
 */
export interface FieldProtection {
  field: string;
  equals: boolean | string | number;
}

export type DeletionProtection = AnnotationProtection | FieldProtection;

export function isFieldProtection(protection: DeletionProtection): protection is FieldProtection {
  return 'field' in protection;
}

/** How coverage and the docs name a protection: `key=value` or `spec.path=value`. */
export function protectionName(protection: DeletionProtection): string {
  return isFieldProtection(protection)
    ? `${protection.field}=${JSON.stringify(protection.equals)}`
    : `${protection.annotation}=${protection.equals}`;
}

/**
 * A deletion rule that reads only metadata (annotations, labels, names): decidable without conversion. Given an
 * `AnnotationProtection` rather than a function, it is data too, and the ValidatingAdmissionPolicy crdgate renders
 * enforces it even while crdgate is down; a function is enforced by the webhook alone.
 */
export function metadataDeletionRule(
  rule: AnnotationProtection | ((object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>) => string | undefined),
): DeletionRule {
  if (typeof rule === 'function') {
    // Keeps the rule's name, by which `crdgate fsa --coverage` lists it.
    return Object.defineProperty(
      Object.assign((object: KubeObject) => rule(object), { readsMetadataOnly: true }),
      'name',
      { value: rule.name },
    );
  }
  const protection = { annotation: rule.annotation, equals: rule.equals };
  return Object.assign(
    (object: KubeObject) =>
      annotation(object, protection.annotation) === protection.equals
        ? deletionProtectedMessage(object, protection)
        : undefined,
    { readsMetadataOnly: true, form: protection },
  );
}

/**
 * A deletion protection held in the spec (`{ field: 'spec.deletionProtection', equals: true }`), as many operators'
 * kinds have one: the DELETE is refused while the stored object's hub field holds exactly that value. Data, like the
 * annotation form: the policy floor enforces it while crdgate is down. It reads the hub object, so a stored object
 * that cannot be converted is refused (see DeletionRule). defineContract checks the path against the hub's schema.
 */
export function fieldDeletionRule(protection: FieldProtection): DeletionRule {
  const form = { field: protection.field, equals: protection.equals };
  const segments = form.field.split('.');
  return Object.assign(
    (object: KubeObject) =>
      valueAtSegments(object, segments) === form.equals ? deletionProtectedMessage(object, form) : undefined,
    { form },
  );
}

/**
 * What a protected object's DELETE is told: what protects it and the command that lifts the protection. The
 * policy's CEL builds the same text (src/policy/compile-policy.ts), from the parts below.
 */
export function deletionProtectedMessage(
  object: Pick<KubeObject, 'apiVersion' | 'kind' | 'metadata'>,
  protection: DeletionProtection,
): string {
  const name = object.metadata?.name ?? '';
  const namespace = object.metadata?.namespace ? ` -n ${object.metadata.namespace}` : '';
  const parts = protectedMessageParts(object.kind ?? '', object.apiVersion ?? '', protection);
  return `${object.kind ?? 'the object'} ${objectRef(object)} ${parts.before}${name}${namespace}${parts.after}`;
}

/**
 * The message around the object's name and namespace flag. A field's command names the hub's resource and version
 * (`kubectl patch dbcluster.v1.dbops.example.com`), since the field's path is the hub's and kubectl would otherwise
 * write in its preferred version.
 */
export function protectedMessageParts(
  kind: string,
  apiVersion: string,
  protection: DeletionProtection,
): { before: string; after: string } {
  const resource = kind.toLowerCase();
  if (!isFieldProtection(protection))
    return {
      before: `is deletion-protected; to delete it, first remove the protection: kubectl annotate ${resource} `,
      after: ` ${protection.annotation}-`,
    };
  const slash = apiVersion.lastIndexOf('/');
  const versioned =
    slash === -1 ? resource : `${resource}.${apiVersion.slice(slash + 1)}.${apiVersion.slice(0, slash)}`;
  const held = `is deletion-protected: ${protection.field} is ${JSON.stringify(protection.equals)}; to delete it, first`;
  if (typeof protection.equals !== 'boolean')
    return { before: `${held} change ${protection.field}: kubectl edit ${versioned} `, after: '' };
  const lifted = protection.field
    .split('.')
    .reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), !protection.equals);
  return {
    before: `${held} lift the protection: kubectl patch ${versioned} `,
    after: ` --type merge -p '${JSON.stringify(lifted)}'`,
  };
}

/**
 * A field protection's path against the hub's schema: a dotted path of field names under `spec` (letters, digits and
 * underscores, as CEL names them), to a field of the equals value's type, so that the policy's CEL reads it as the
 * webhook does and a typo is caught at load. Without the hub's schema (a broken one) only the path's form is checked.
 */
export function fieldProtectionProblems(protection: FieldProtection, hubSchema: JSONSchemaProps | undefined): string[] {
  const { field, equals } = protection;
  const segments = field.split('.');
  if (
    segments[0] !== 'spec' ||
    segments.length < 2 ||
    !segments.every((segment) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment))
  )
    return [
      `${JSON.stringify(field)} must be a dotted path of field names under spec, such as spec.deletionProtection`,
    ];
  if (typeof equals === 'number' && !Number.isSafeInteger(equals))
    return [`${field}: equals must be a boolean, a string or an integer, got ${equals}`];
  if (hubSchema === undefined) return [];
  const schema = segments.reduce<JSONSchemaProps | undefined>(
    (node, segment) => node?.properties?.[segment],
    hubSchema,
  );
  if (schema === undefined) return [`${field} is not a field of the hub's schema`];
  const expected = typeof equals === 'number' ? 'integer' : typeof equals;
  if (schema.type !== expected)
    return [
      `${field} is of type ${schema.type ?? '(none)'} in the hub's schema, but equals is ${JSON.stringify(equals)}, which needs a field of type ${expected}`,
    ];
  return [];
}
