import type { Change } from './finding.ts';
import type { CrdRevisionRule } from './rules.ts';

/** Where in a CRD a comparison is: the version, and the field of its schema (absent outside a schema). */
export interface Where {
  version?: string;
  path?: string;
}

/** A change at `where`, with the old and new value where each revision has one. */
export function changeAt(
  where: Where,
  rule: CrdRevisionRule,
  message: string,
  values: { old?: unknown; new?: unknown } = {},
): Change {
  return {
    rule,
    ...(where.version === undefined ? {} : { version: where.version }),
    ...(where.path === undefined ? {} : { path: where.path }),
    ...(values.old === undefined ? {} : { old: values.old }),
    ...(values.new === undefined ? {} : { new: values.new }),
    message,
  };
}

/** `spec.size` or `the root`: the field a message names. */
export function fieldName(where: Where): string {
  return where.path === undefined || where.path === '' ? 'the root' : where.path;
}
