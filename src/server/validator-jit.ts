import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's Maglev compiler off ajv's generated validators (ajv names them `validate0`, `validate12`, ...), which
 * TurboFan then optimises alone. Maglev has no limit on a function's size (TurboFan has) and takes native memory,
 * outside the heap cap, in proportion to it. Serving a kind whose schema is the size of the Prometheus Operator's
 * Prometheus CRD (`node bench/hostile-memory.ts --large-schema`), after 3,000 CREATE reviews: 1,189 MiB RSS with one
 * function per schema, 345-667 MiB with the schema in parts (split-schema.ts), 194 MiB with this too, against a
 * 592Mi limit. Set at run time because the image's command line is the user's and Node refuses V8 flags in
 * NODE_OPTIONS (it exits 9); V8 reads the filter whenever it picks a function to optimise, so it holds for every
 * validator, whenever compiled.
 */
export function keepValidatorsFromMaglev(): void {
  setFlagsFromString('--maglev-filter=-validate*');
}
