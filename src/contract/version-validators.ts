import type { ObjectValidator } from './schema/compile-schema.ts';

/**
 * A contract's validators by version name, each compiled when a path first validates with it and kept from then on,
 * shared by every path that holds the registry. A schema compiles to megabytes of code for an operator's large CRD
 * (seconds, and tens of MiB, for Argo's Workflow): a gate of many kinds pays for the ones it is asked about, and a
 * kind nobody sends a review for costs no validator.
 */
export class VersionValidators {
  private readonly sources: ReadonlyMap<string, () => ObjectValidator>;
  private readonly compiled = new Map<string, ObjectValidator>();

  constructor(sources: ReadonlyMap<string, () => ObjectValidator>) {
    this.sources = sources;
  }

  has(version: string): boolean {
    return this.sources.has(version);
  }

  /** The version's validator, compiled now if no path has used it yet; undefined for a version the contract lacks. */
  get(version: string): ObjectValidator | undefined {
    const known = this.compiled.get(version);
    if (known) return known;
    const source = this.sources.get(version);
    if (source === undefined) return undefined;
    const validator = source();
    this.compiled.set(version, validator);
    return validator;
  }

  keys(): IterableIterator<string> {
    return this.sources.keys();
  }

  get size(): number {
    return this.sources.size;
  }

  /** The versions compiled so far. */
  compiledVersions(): string[] {
    return [...this.compiled.keys()];
  }

  /**
   * These validators with some versions' replaced by validators compiled already (`serve --owner-schema live`); the
   * others shared, compiled or not, with this one.
   */
  with(replaced: ReadonlyMap<string, ObjectValidator>): VersionValidators {
    const sources = new Map<string, () => ObjectValidator>();
    for (const version of this.sources.keys()) sources.set(version, () => this.get(version)!);
    for (const [version, validator] of replaced) sources.set(version, () => validator);
    return new VersionValidators(sources);
  }
}
