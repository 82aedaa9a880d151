import { apiVersionOf } from '../contract/contract-definition.ts';
import { recordedState } from '../contract/fsa/phase.ts';
import { objectRef, type KubeObject } from '../contract/values/kube-object.ts';
import type { CompiledContract } from '../contract/registry.ts';
import { convertObject, toHub } from '../conversion/convert-object.ts';

/** The state the FSA starts an UPDATE from, and where crdgate check took it. */
export interface StartState {
  /** The state's name; for a recorded phase or reading the machine does not know, what was read. */
  state: string;
  /** `status`: the old object records it; `flag`: `--state`; `contract`: the machine's steadyState. */
  source: 'status' | 'flag' | 'contract';
}

/** A manifest records no state, and neither `--state` nor the contract says which to assume. */
export class StartStateUnknownError extends Error {
  override name = 'StartStateUnknownError';
}

export interface PreviousRevision {
  /** The old object as the API server would send it with the new one: in the new object's version. */
  oldObject: KubeObject;
  state?: StartState;
  /** The state to judge from when the old object records none (the webhook's own reading decides otherwise). */
  assumedState?: string;
}

/**
 * The old object of an UPDATE between two revisions of a manifest. The API server sends the stored object in the
 * version of the request, with the status the operator wrote, from which the machine reads the state as it reads
 * it online (the phase, or the contract's state reader). A manifest seldom has a status: when the machine reads
 * no state from it, the state is `--state`'s, else the machine's steadyState.
 * Throws a ConversionError when the old object cannot be converted.
 */
export function previousRevision(
  compiled: CompiledContract,
  oldObject: KubeObject,
  newApiVersion: string,
  flagState: string | undefined,
): PreviousRevision {
  const { contract } = compiled;
  const machine = contract.transitions;
  // An unknown new version is denied as VERSION_UNKNOWN on the new object; the old one is left as it is.
  const known = contract.versions.some((v) => apiVersionOf(contract, v.name) === newApiVersion);
  const inNewVersion = known ? convertObject(contract, oldObject, newApiVersion) : oldObject;
  if (!machine) return { oldObject: inNewVersion };

  const recorded = recordedState(machine, toHub(contract, oldObject));
  if (recorded !== undefined) {
    return {
      oldObject: inNewVersion,
      state: { state: recorded.recognised ? recorded.state : recorded.phase, source: 'status' },
    };
  }
  // --state names a state of some contract's machine; for the other machines it is no state, and theirs stands.
  const flagged =
    flagState !== undefined && (machine.states as readonly string[]).includes(flagState) ? flagState : undefined;
  const state = flagged ?? machine.steadyState;
  if (state === undefined) {
    const where =
      machine.readState !== undefined
        ? 'no state its readState can read'
        : machine.conditionStates !== undefined
          ? 'no state in its conditions (a conditionStates rule says nothing is recorded yet)'
          : `no ${machine.phasePath}`;
    throw new StartStateUnknownError(
      `${contract.identity.kind} ${objectRef(oldObject)}: the previous revision records ${where} and the contract names no steadyState: ` +
        `pass --state STATE (one of ${machine.states.join(', ')})`,
    );
  }
  return {
    oldObject: inNewVersion,
    state: { state, source: flagged !== undefined ? 'flag' : 'contract' },
    assumedState: state,
  };
}
