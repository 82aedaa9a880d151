import type { JSONValue } from '../schema/json-schema-props.ts';

// A default built from the library's parts is data as well as code, as a classifier is: it keeps a description of
// what it sets, which the policy compiler (src/policy) turns into a MutatingAdmissionPolicy's CEL, so the API server
// sets it even while crdgate is down. A Defaulter written as a function of one's own has no such description; the
// webhook alone applies it, and `crdgate fsa --coverage` and `crdgate manifests` say so.

/**
 * What a derived default computes from the field it reads:
 * - `copy`: the value as it is;
 * - `release-major`: the major of a release number (`16.4` -> `"16"`): the text before the first dot of a string of
 *   dot-separated decimal numbers without leading zeros (what parseVersion reads); nothing for any other value.
 */
export type DefaultComputation = 'copy' | 'release-major';

export type DefaultForm =
  /** `value` where the field at `path` is absent. */
  | { default: 'value'; path: string; value: JSONValue }
  /**
   * What `compute` makes of the field at `from`, where the field at `path` is absent, or (keepInStep) wherever it
   * differs: a value derived from the spec rather than chosen by the user, such as a label, is kept in step with it.
   * Nothing where `from` is absent or `compute` cannot read it.
   */
  | { default: 'derived'; path: string; from: string; compute: DefaultComputation; keepInStep: boolean };
