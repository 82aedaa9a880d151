import { apiVersionOf } from '../contract/define-contract.ts';
import { parseFieldPath, valueAtPath } from '../contract/field-path.ts';
import { isPlainObject, objectRef, type KubeObject } from '../contract/kube-object.ts';
import type { CompiledContract } from '../contract/registry.ts';
import { readsPhase } from '../contract/fsa/phase.ts';
import { convertObject, toHub } from '../conversion/convert-object.ts';

/** The state the transition machine starts an UPDATE from, and where crdgate check took it. */
export interface StartState {
  phase: string;
  /** `status`: the old manifest records it; `flag`: `--state`; `contract`: the machine's steadyState. */
  source: 'status' | 'flag' | 'contract';
}

/** A manifest records no phase, and neither `--state` nor the contract says which to assume. */
export class StartStateUnknownError extends Error {
  override name = 'StartStateUnknownError';
}

export interface PreviousRevision {
  /** The old object as the API server would send it with the new one: in the new object's version, with a phase. */
  oldObject: KubeObject;
  state?: StartState;
}

/**
 * The old object of an UPDATE between two revisions of a manifest. The API server sends the stored object in the
 * version of the request, with the status the operator wrote; a manifest has no status, so the phase comes from
 * `--state`, else from the machine's steadyState, and is set on the hub form, where the machine reads it.
 * Throws a ConversionError when the old object cannot be converted.
 */
export function previousRevision(compiled: CompiledContract, oldObject: KubeObject, newApiVersion: string, flagState: string | undefined): PreviousRevision {
  const { contract } = compiled;
  const machine = contract.transitions;
  // An unknown new version is denied as VERSION_UNKNOWN on the new object; the old one is left as it is.
  const inNewVersion = (object: KubeObject) =>
    contract.versions.some((v) => apiVersionOf(contract, v.name) === newApiVersion) ? convertObject(contract, object, newApiVersion) : object;
  if (!machine) return { oldObject: inNewVersion(oldObject) };

  // A machine with a state reader of its own records no phase to read or set here: the reader reads the old object.
  if (!readsPhase(machine)) return { oldObject: inNewVersion(oldObject) };
  const hub = toHub(contract, oldObject);
  const recorded = valueAtPath(hub, machine.phasePath);
  if (recorded !== undefined && recorded !== null && recorded !== '') {
    return { oldObject: inNewVersion(oldObject), state: { phase: typeof recorded === 'string' ? recorded : JSON.stringify(recorded), source: 'status' } };
  }
  const phase = flagState ?? machine.steadyState;
  if (phase === undefined) {
    throw new StartStateUnknownError(
      `${contract.identity.kind} ${objectRef(oldObject)}: the previous revision records no ${machine.phasePath} and the contract names no steadyState: ` +
        `pass --state PHASE (one of ${machine.states.join(', ')})`,
    );
  }
  // A state is written as a phase the operator would write: through the machine's phase table, when it has one.
  const written = machine.phases === undefined ? phase : (Object.keys(machine.phases).find((key) => machine.phases![key] === phase) ?? phase);
  return { oldObject: inNewVersion(withValueAt(hub, machine.phasePath, written)), state: { phase, source: flagState !== undefined ? 'flag' : 'contract' } };
}

/** A copy of `object` with `value` at `path`; only the objects along the path are copied (the rest is shared). */
function withValueAt(object: KubeObject, path: string, value: unknown): KubeObject {
  const set = (node: unknown, segments: Array<string | number>): unknown => {
    const [segment, ...rest] = segments;
    if (segment === undefined) return value;
    const copy: Record<string, unknown> = isPlainObject(node) ? { ...node } : {};
    copy[String(segment)] = set(copy[String(segment)], rest);
    return copy;
  };
  return set(object, parseFieldPath(path)) as KubeObject;
}
