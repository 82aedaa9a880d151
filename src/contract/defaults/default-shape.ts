import {
  aFunction,
  cases,
  either,
  flag,
  json,
  listOf,
  maybe,
  oneOf,
  text,
  type OptionShape,
} from '../values/option-shape.ts';
import type { DefaultComputation } from './default-form.ts';

// The shape of a contract's `defaults` (default-form.ts), checked before anything reads them.

// A record over the union, so that a computation added to default-form.ts fails the type check here until the
// shape knows it too.
const computations: Record<DefaultComputation, true> = { copy: true, 'release-major': true };

const defaultForm = cases('default', 'a default form', {
  value: { path: text('a field path such as spec.replicas'), value: json },
  derived: {
    path: text('a field path such as metadata.labels[example.com/major]'),
    from: text('a field path such as spec.version'),
    compute: oneOf(Object.keys(computations)),
    keepInStep: flag,
  },
});

const defaulter = aFunction('a function of the hub object returning a defaulted copy', { form: maybe(defaultForm) });

/** One Defaulter, or a list of them. */
export const defaultsShape: OptionShape = either(
  'a function of the hub object returning a defaulted copy, or a list of such functions (staticDefault, derivedDefault or your own)',
  defaulter,
  listOf(defaulter, 'a list of defaulters'),
);
