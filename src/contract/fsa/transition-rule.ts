import type { UpdateRule } from '../define-contract.ts';
import { evaluateTransition } from './evaluate-transition.ts';
import type { TransitionMachine } from './machine.ts';

/** The machine as one of a contract's update rules. */
export function transitionRule<S extends string, C extends string>(machine: TransitionMachine<S, C>): UpdateRule {
  return ({ oldObject, object }) => {
    const { denials, warnings, auditAnnotations } = evaluateTransition(machine, oldObject, object);
    return { forbidden: denials, warnings, auditAnnotations };
  };
}
