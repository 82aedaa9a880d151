import { isPlainObject } from '../../values/kube-object.ts';
import { fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../../values/field-error.ts';
import { describeInFull } from './describe-in-full.ts';
import { isValidFieldPath } from './rule-field-path.ts';
import { hasUnsupportedFields, type Schema } from './schema-reading.ts';

const validationReasons = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];

/** The static part of the API server's checks of CEL rules (x-kubernetes-validations); compiling them is left to it. */
export function checkValidationRules(s: Schema, path: string, problems: FieldError[]): void {
  const rules = s['x-kubernetes-validations'];
  if (!Array.isArray(rules)) return;
  rules.forEach((rule: unknown, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const entry = isPlainObject(rule) ? rule : {};
    const text = (key: string) => (typeof entry[key] === 'string' ? entry[key] : '');
    const ruleText = text('rule').trim();
    const message = text('message');
    if (ruleText === '') {
      problems.push(fieldRequired(`${at}.rule`, 'rule is not specified'));
    } else if (message.length > 0 && message.trim() === '') {
      problems.push(fieldInvalid(`${at}.message`, describeInFull(message), 'must be non-empty if specified'));
    } else if (hasNewlines(message.trim())) {
      problems.push(fieldInvalid(`${at}.message`, describeInFull(message), 'must not contain line breaks'));
    } else if (hasNewlines(ruleText) && message.trim() === '') {
      problems.push(fieldRequired(`${at}.message`, 'message must be specified if rule contains line breaks'));
    }
    const messageExpression = text('messageExpression');
    if (messageExpression.length > 0 && messageExpression.trim() === '') {
      const why = 'messageExpression must be non-empty if specified';
      problems.push(fieldRequired(`${at}.messageExpression`, why));
    }
    if (entry.reason !== undefined && entry.reason !== null && !validationReasons.includes(String(entry.reason))) {
      problems.push(fieldNotSupported(`${at}.reason`, describeInFull(entry.reason), validationReasons));
    }
    const fieldPath = text('fieldPath');
    const shownFieldPath = describeInFull(fieldPath);
    if (fieldPath.length > 0 && fieldPath.trim() === '') {
      problems.push(fieldInvalid(`${at}.fieldPath`, shownFieldPath, 'must be non-empty if specified'));
    }
    if (hasNewlines(fieldPath)) {
      problems.push(fieldInvalid(`${at}.fieldPath`, shownFieldPath, 'must not contain line breaks'));
    }
    if (fieldPath.length > 0 && !hasUnsupportedFields(s) && !isValidFieldPath(fieldPath, s)) {
      problems.push(fieldInvalid(`${at}.fieldPath`, shownFieldPath, 'must be a valid path'));
    }
  });
}

function hasNewlines(text: string): boolean {
  return /[\n\r]/.test(text);
}
