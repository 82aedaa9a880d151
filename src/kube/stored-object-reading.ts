// What the webhook server reads for a /scale review and what the decision receives: the decision (admission/) is
// pure and needs only these shapes, the reader (stored-object-reader.ts) is the one that talks to the API server.

/** The object whose Scale a review is about, to be read from the API server in the contract's hub version. */
export interface StoredObjectRef {
  group: string;
  version: string;
  /** The plural: the resource's name in the API path. */
  resource: string;
  namespace?: string;
  name: string;
}

/** What reading it gave: the object as the API server answered, or why there is none. */
export type StoredObjectReading = { object: unknown } | { problem: string };

/** Reads a stored object. Never rejects: a failure is a reading with a problem, which the decision denies on. */
export type StoredObjectReader = (ref: StoredObjectRef) => Promise<StoredObjectReading>;
