import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/** The `IncomingMessage` and `ServerResponse` options of `https.createServer`, for an express app. */
export interface ExpressBornMessages {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * Request and response classes whose instances are born with `app`'s express prototypes. express's `app.handle`
 * re-parents every request and response it is given (`Object.setPrototypeOf`), and changing an object's prototype
 * is a slow runtime call in V8 that also gives node's HTTP internals a second shape of each to handle (about 2 µs a
 * request in `npm run bench -- --profile`). Born with them, it finds the prototype in place and changes nothing.
 * They remain node's own classes underneath: their constructors run, and `instanceof` holds.
 */
export function expressBornMessages(app: Express): ExpressBornMessages {
  return {
    IncomingMessage: bornWithPrototype(IncomingMessage, app.request),
    ServerResponse: bornWithPrototype(ServerResponse, app.response),
  };
}

function bornWithPrototype<C extends new (...args: never[]) => object>(base: C, prototype: object): C {
  const born = function constructBorn(...args: unknown[]): object {
    return Reflect.construct(base, args, born);
  };
  born.prototype = prototype;
  return born as unknown as C;
}
