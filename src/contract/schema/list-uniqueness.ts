import type { ErrorObject, FuncKeywordDefinition } from 'ajv';

// ajv's root module does not export these two.
type DataValidateFunction = ReturnType<NonNullable<FuncKeywordDefinition['compile']>>;
type DataValidationCxt = NonNullable<Parameters<DataValidateFunction>[1]>;

// x-kubernetes-list-type `set` and `map` as an ajv keyword: ajv's own uniqueItems reports only the first pair of
// duplicates, with neither the key nor the index Kubernetes reports (`spec.caches[2]: Duplicate value: {"name":"tiles"}`).

export const listUniquenessKeyword = 'x-crdgate-list-uniqueness';

export type ListUniqueness = { listType: 'set' } | { listType: 'map'; keys: string[] };

export interface DuplicateParams {
  /** What is duplicated: the item of a set, or the key fields of a map's item. */
  duplicate: unknown;
}

export const listUniquenessKeywordDefinition: FuncKeywordDefinition = {
  keyword: listUniquenessKeyword,
  type: 'array',
  schemaType: 'object',
  errors: true,
  compile: (uniqueness: ListUniqueness) => compileUniquenessCheck(uniqueness),
};

function compileUniquenessCheck(uniqueness: ListUniqueness): DataValidateFunction {
  const identify = uniqueness.listType === 'set' ? identifySetItem : mapItemIdentifier(uniqueness.keys);
  const check: DataValidateFunction = (items: unknown[], context?: DataValidationCxt) => {
    let errors: Partial<ErrorObject<string, DuplicateParams>>[] | null = null;
    const seen = new Set<string>();
    for (let index = 0; index < items.length; index++) {
      const identity = identify(items[index]);
      if (identity === undefined) continue;
      if (!seen.has(identity.key)) {
        seen.add(identity.key);
        continue;
      }
      errors ??= [];
      errors.push({
        keyword: listUniquenessKeyword,
        instancePath: `${context?.instancePath ?? ''}/${index}`,
        params: { duplicate: identity.shown },
      });
    }
    check.errors = errors ?? undefined;
    return errors === null;
  };
  return check;
}

interface ItemIdentity {
  /** Equal for items Kubernetes considers the same. */
  key: string;
  shown: unknown;
}

function identifySetItem(item: unknown): ItemIdentity {
  return { key: canonicalJson(item), shown: item };
}

function mapItemIdentifier(keys: readonly string[]): (item: unknown) => ItemIdentity | undefined {
  return (item) => {
    // A non-object item is a type error, reported by the items schema.
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return undefined;
    const shown: Record<string, unknown> = {};
    const parts: string[] = [];
    for (const key of keys) {
      const value = Object.hasOwn(item, key) ? (item as Record<string, unknown>)[key] : undefined;
      // An absent key field is its own value, distinct from null; it is reported as required elsewhere.
      parts.push(value === undefined ? '-' : canonicalJson(value));
      if (value !== undefined) shown[key] = value;
    }
    return { key: parts.join(','), shown };
  };
}

/** JSON with sorted object keys, so that equal values have equal text whatever the order of their fields. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
