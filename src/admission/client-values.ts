import type { ClientFieldPaths } from '../contract/client-field-paths.ts';
import { apiVersionOf, type Contract } from '../contract/contract-definition.ts';
import { displayValue } from '../contract/fsa/change-record.ts';
import type { ChangeDisplay } from '../contract/fsa/evaluate/evaluate-transition.ts';
import type { Change } from '../contract/fsa/machine.ts';
import { valueAtPath } from '../contract/values/field-path.ts';
import type { KubeObject } from '../contract/values/kube-object.ts';
import { convertObject } from '../conversion/convert-object.ts';

// The machine judges the hub's values, and a denial names the field as the client wrote it (ClientFieldPaths); its
// values must be the client's too: a v1alpha1 client that wrote `memoryMB: 256` is told "from 512 to 256", not the
// hub's "from 512Mi to 256Mi". The two hub forms are converted back to the client's version, once, and only when a
// message needs them: a write that passes pays nothing.

/**
 * Shows a change's values as the client's version holds them, at the field's path there; undefined (the hub's values
 * stay) for a write in the hub, and for a version crdgate does not convert (an owner's webhook converts it). A field
 * the version does not show, a conversion that fails, or a side the version leaves absent keeps the hub's value.
 */
export function clientValueDisplay(
  contract: Contract,
  version: string,
  paths: ClientFieldPaths | undefined,
  oldHub: KubeObject,
  newHub: KubeObject,
): ChangeDisplay | undefined {
  if (paths === undefined || version === contract.hub || contract.conversions[version] === undefined) return undefined;
  let forms: { old: KubeObject; new: KubeObject } | null | undefined;
  const clientForms = () => {
    if (forms !== undefined) return forms;
    try {
      const apiVersion = apiVersionOf(contract, version);
      forms = { old: convertObject(contract, oldHub, apiVersion), new: convertObject(contract, newHub, apiVersion) };
    } catch {
      forms = null;
    }
    return forms;
  };
  return <C extends string>(change: Change<C>): Change<C> => {
    if (!paths.shows(change.field)) return change;
    const written = clientForms();
    if (written === null) return change;
    const path = paths.field(change.field);
    const side = (object: KubeObject, hubValue: string | undefined) => {
      const value = valueAtPath(object, path);
      return value === undefined || value === null ? hubValue : displayValue(value);
    };
    const from = side(written.old, change.from);
    const to = side(written.new, change.to);
    return {
      ...change,
      ...(from === undefined ? {} : { from }),
      ...(to === undefined ? {} : { to }),
    };
  };
}
