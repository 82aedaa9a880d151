import { fieldRequired, type FieldError } from '../../values/field-error.ts';
import { properties, subschema, subschemas, type Schema } from './schema-reading.ts';

/**
 * The API server's completeness rule, which it applies to the root's junctors: what they name must be declared.
 * Each junctor's side `v` at `vPath` is walked beside the structural side `s` at `sPath` (undefined where nothing is
 * declared).
 */
export function valueValidationCompleteness(root: Schema, path: string, problems: FieldError[]): void {
  const junctors = (v: Schema, s: Schema | undefined, sPath: string, vPath: string): void => {
    const not = subschema(v, 'not');
    if (not) nested(not, s, sPath, `${vPath}.not`);
    subschemas(v, 'allOf').forEach((branch, i) => nested(branch, s, sPath, `${vPath}.allOf[${i}]`));
    subschemas(v, 'anyOf').forEach((branch, i) => nested(branch, s, sPath, `${vPath}.anyOf[${i}]`));
    subschemas(v, 'oneOf').forEach((branch, i) => nested(branch, s, sPath, `${vPath}.oneOf[${i}]`));
  };
  const nested = (v: Schema, s: Schema | undefined, sPath: string, vPath: string): void => {
    if (!s) {
      problems.push(fieldRequired(sPath, `because it is defined in ${vPath}`));
      return;
    }
    junctors(v, s, sPath, vPath);
    const items = subschema(v, 'items');
    if (items) nested(items, subschema(s, 'items'), `${sPath}.items`, `${vPath}.items`);
    const declared = new Map(properties(s));
    for (const [name, property] of properties(v)) {
      const at = `properties[${name}]`;
      nested(property, declared.get(name), `${sPath}.${at}`, `${vPath}.${at}`);
    }
  };
  junctors(root, root, path, path);
}
