import type { ContractDefinition, Subresources } from './contract-definition.ts';
import { classifyChanges } from './fsa/evaluate/evaluate-transition.ts';
import { judgesUnclassifiedChanges } from './fsa/unclassified-setting.ts';

// The scale subresource: `kubectl scale` (and a HorizontalPodAutoscaler) write a Scale whose spec.replicas the API
// server copies into the object at specReplicasPath. crdgate judges that write as the same change sent to the
// object, which only means something when the FSA looks at that field.

type ScaleSubresource = NonNullable<Subresources['scale']>;

/** A version's scale subresource, if it declares one. */
export function scaleSubresourceOf(
  contract: Pick<ContractDefinition, 'versions'>,
  version: string,
): ScaleSubresource | undefined {
  return contract.versions.find((v) => v.name === version)?.subresources?.scale;
}

/** Whether the hub declares a scale subresource: then crdgate judges /scale, and reads stored objects to do it. */
export function hubHasScale(contract: Pick<ContractDefinition, 'versions' | 'hub'>): boolean {
  return scaleSubresourceOf(contract, contract.hub) !== undefined;
}

// What the API server accepts as a specReplicasPath (a simple JSON path under .spec), as far as crdgate maps it:
// dotted field names, no brackets.
const specReplicasPathSyntax = /^\.spec(?:\.[^.[\]'"\s]+)+$/;

/** `.spec.replicas` -> ['spec', 'replicas']; undefined for a path that is not a plain JSON path under .spec. */
export function specReplicasSteps(path: string): string[] | undefined {
  return specReplicasPathSyntax.test(path) ? path.slice(1).split('.') : undefined;
}

/** What is wrong with the contract's scale subresources, as defineContract's problems. */
export function scaleSubresourceProblems(contract: Pick<ContractDefinition, 'versions'>): string[] {
  return contract.versions.flatMap((version) => {
    const scale = version.subresources?.scale;
    if (scale === undefined || specReplicasSteps(scale.specReplicasPath) !== undefined) return [];
    return [
      `version ${version.name}'s scale subresource: specReplicasPath "${scale.specReplicasPath}" must be a JSON path of field names under .spec, like .spec.replicas`,
    ];
  });
}

/**
 * What deserves a warning about the scale subresources, as sentences; empty when nothing does. Not errors: the
 * contract works, but `kubectl scale` can make a change that no state of the machine is asked about.
 */
export function scaleSubresourceWarnings(
  contract: Pick<ContractDefinition, 'versions' | 'hub' | 'transitions'>,
): string[] {
  const warnings: string[] = [];
  const hubScale = scaleSubresourceOf(contract, contract.hub);
  if (hubScale === undefined) {
    for (const version of contract.versions) {
      if (version.subresources?.scale === undefined) continue;
      warnings.push(
        `version ${version.name} has a scale subresource and the hub ${contract.hub} has none: crdgate judges /scale of the hub only, so kubectl scale through ${version.name} is not judged (give the hub a scale subresource too)`,
      );
    }
    return warnings;
  }
  const steps = specReplicasSteps(hubScale.specReplicasPath);
  const machine = contract.transitions;
  if (steps === undefined || machine === undefined) return warnings;
  if (!machineReads(machine, steps.slice(1))) {
    const field = steps.join('.');
    const judged = judgesUnclassifiedChanges(machine)
      ? 'is judged only as a change no change kind names (unclassifiedChanges)'
      : 'is allowed in every state';
    warnings.push(
      `the scale subresource of the hub ${contract.hub} writes ${field}, which no classifier of the FSA reads: kubectl scale, like any other change of ${field}, ${judged} (add a classifier for it)`,
    );
  }
  return warnings;
}

/**
 * Whether some classifier reports a change when only the field at `steps` (below spec) changes. Asked of the
 * classifiers themselves, so a classifier written as a function counts as well as one built from the library's parts.
 */
function machineReads(machine: NonNullable<ContractDefinition['transitions']>, steps: string[]): boolean {
  const specWith = (value: number): unknown => steps.reduceRight<unknown>((inner, step) => ({ [step]: inner }), value);
  const pairs: [number, number][] = [
    [1, 2],
    [2, 1],
    [0, 3],
    [3, 0],
  ];
  return pairs.some(([from, to]) => {
    try {
      return classifyChanges(machine, specWith(from), specWith(to)).length > 0;
    } catch {
      // A classifier that throws is a bug of its own; it does not read the field as far as anyone can tell.
      return false;
    }
  });
}
