import type { ContractDefinition } from './contract-definition.ts';
import { isLabelValue, isQualifiedName, qualifiedNameRule } from './values/dns-names.ts';
import type { JSONSchemaProps } from './schema/json-schema-props.ts';
import { defaultersOf } from './defaults/contract-defaulter.ts';
import type { DefaultForm } from './defaults/default-form.ts';
import { schemaAt } from './defaults/default-schema.ts';
import { parseDefaultTarget, parseSourcePath, type DefaultTarget } from './defaults/default-target.ts';
import type { FormedDefaulter } from './defaults/library-defaults.ts';

// What defineContract checks of the library's defaults: each path names a field of the hub's schema (a typo is
// caught when the contract loads, not on a request that quietly gets no default), and each value fits it.

/**
 * Problems of the contract's defaults, each naming the default; the options' shapes are checked already. Without
 * the hub's schema (none, or one the API server would refuse) only what needs no schema is checked.
 */
export function defaultsProblems(definition: ContractDefinition, hubSchema: JSONSchemaProps | undefined): string[] {
  const { defaults } = definition;
  if (Array.isArray(defaults) && defaults.length === 0)
    return ['defaults must list at least one defaulter (leave defaults out for none)'];
  const listed = Array.isArray(defaults);
  return defaultersOf(definition).flatMap((defaulter, index) => {
    const { form } = defaulter as Partial<FormedDefaulter>;
    if (form === undefined) return [];
    const name = `${listed ? `defaults[${index}]` : 'defaults'} (${form.path})`;
    return formProblems(form, hubSchema).map((problem) => `${name}: ${problem}`);
  });
}

function formProblems(form: DefaultForm, hubSchema: JSONSchemaProps | undefined): string[] {
  const target = parseDefaultTarget(form.path);
  if (typeof target === 'string') return [`the path ${target}`];
  const field = targetSchema(target, hubSchema, form.path);
  if (typeof field === 'string') return [field];
  if (form.default === 'value') {
    if (
      target.createsParent &&
      target.parents[1] === 'labels' &&
      !(typeof form.value === 'string' && isLabelValue(form.value))
    ) {
      return [
        "a label's value must be at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit",
      ];
    }
    if (target.createsParent && typeof form.value !== 'string') return ["an annotation's value must be a string"];
    const mismatch = field === undefined ? undefined : typeMismatch(field, form.value);
    return mismatch === undefined ? [] : [`the value ${mismatch}`];
  }
  const source = parseSourcePath(form.from);
  if (typeof source === 'string') return [`from ${source}`];
  const read = hubSchema === undefined ? undefined : schemaAt(hubSchema, source, form.from);
  if (typeof read === 'string') return [`from: ${read}`];
  const sourceType = read?.type;
  const resultType = form.compute === 'release-major' ? 'string' : sourceType;
  if (form.compute === 'release-major' && read !== undefined && sourceType !== 'string')
    return [`from: release-major reads a string field, and ${form.from} is of type ${sourceType ?? 'any'}`];
  if (target.createsParent && resultType !== 'string')
    return [
      `a ${target.parents[1] === 'labels' ? 'label' : 'annotation'} holds a string, and ${form.compute} of ${form.from} is of type ${resultType ?? 'any'}`,
    ];
  if (
    field !== undefined &&
    field.type !== undefined &&
    resultType !== undefined &&
    field.type !== resultType &&
    !(field.type === 'number' && resultType === 'integer')
  ) {
    return [`${form.compute} of ${form.from} is of type ${resultType}, and the field is of type ${field.type}`];
  }
  return [];
}

/** The schema of the field a target sets; undefined where it cannot be known (a label, a field kept as it comes). */
function targetSchema(
  target: DefaultTarget,
  hubSchema: JSONSchemaProps | undefined,
  path: string,
): JSONSchemaProps | undefined | string {
  if (target.createsParent)
    return isQualifiedName(target.key)
      ? undefined
      : `"${target.key}" is not a label or annotation key: it must be ${qualifiedNameRule}`;
  if (hubSchema === undefined) return undefined;
  const steps =
    target.list === undefined ? [...target.parents, target.key] : [...target.list, '*', ...target.parents, target.key];
  return schemaAt(hubSchema, steps, path);
}

/** What is wrong with a value for a field of this schema: its type only (the schema's other rules judge the object). */
function typeMismatch(schema: JSONSchemaProps, value: unknown): string | undefined {
  if (value === null) return schema.nullable === true ? undefined : 'is null, and the field is not nullable';
  if (schema['x-kubernetes-int-or-string'] === true)
    return Number.isSafeInteger(value) || typeof value === 'string' ? undefined : 'must be an integer or a string';
  if (schema.type === undefined) return undefined;
  const fits: Record<NonNullable<JSONSchemaProps['type']>, boolean> = {
    object: typeof value === 'object' && !Array.isArray(value),
    array: Array.isArray(value),
    string: typeof value === 'string',
    integer: Number.isSafeInteger(value),
    number: typeof value === 'number',
    boolean: typeof value === 'boolean',
  };
  return fits[schema.type] ? undefined : `must be of the field's type, ${schema.type}`;
}
