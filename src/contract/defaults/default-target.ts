import { fieldPathSteps } from '../values/field-path.ts';

// Where a default sets its field and where a derived one reads, from the paths a contract writes
// (`spec.readReplicas`, `spec.caches[*].version`, `metadata.labels[example.com/tier]`): read here alone, so that the
// webhook's defaulter, the policy compiler and the definition's checks cannot read a path differently.

/**
 * A field a default sets. `parents` lead from the object (or from each item of the list at `list`) to the object
 * holding `key`; each must be there already, an object, or the default sets nothing: a default fills a field in
 * what the user wrote and never makes up the objects around it, which the schema may require more of. The one
 * exception is a label's or annotation's map (`createsParent`), made when the object has none.
 */
export interface DefaultTarget {
  /** Set: the default applies within each item of the list at this path (`spec.caches[*].version`). */
  list?: readonly string[];
  parents: readonly string[];
  key: string;
  createsParent: boolean;
}

const metadataMaps = new Set(['labels', 'annotations']);
/** Set by the API server or a subresource, never by a default. */
const notDefaultable = new Set(['apiVersion', 'kind', 'status']);

/** The target a path names, or a sentence saying why it names none. */
export function parseDefaultTarget(path: string): DefaultTarget | string {
  const steps = plainSteps(path);
  if (typeof steps === 'string') return steps;
  const [root] = steps;
  if (root === undefined || root === '*') return 'must name a field, such as spec.replicas';
  if (notDefaultable.has(root)) return `must not be under ${root}, which no default sets`;
  if (root === 'metadata') {
    const [, map, key, ...rest] = steps;
    if (map === undefined || !metadataMaps.has(map) || key === undefined || key === '*' || rest.length > 0) {
      return 'may name under metadata only a label or an annotation: metadata.labels[KEY] or metadata.annotations[KEY]';
    }
    return { parents: ['metadata', map], key, createsParent: true };
  }
  const wildcards = steps.flatMap((step, index) => (step === '*' ? [index] : []));
  if (wildcards.length > 1) return 'may go into one list only ([*] once)';
  if (wildcards.length === 0) return { parents: steps.slice(0, -1), key: steps.at(-1)!, createsParent: false };
  const at = wildcards[0]!;
  if (at === steps.length - 1)
    return 'must name a field within each item after [*] (spec.caches[*].version), not the items themselves';
  const item = steps.slice(at + 1);
  return { list: steps.slice(0, at), parents: item.slice(0, -1), key: item.at(-1)!, createsParent: false };
}

/** The fields a derived default reads: a path of field names, not into a list. */
export function parseSourcePath(path: string): readonly string[] | string {
  const steps = plainSteps(path);
  if (typeof steps === 'string') return steps;
  if (steps.length === 0) return 'must name a field, such as spec.version';
  if (steps.includes('*')) return 'must name one field, not one in each item of a list ([*])';
  if (notDefaultable.has(steps[0]!) || steps[0] === 'metadata')
    return 'must name a field of the object below its root other than metadata, such as spec.version';
  return steps;
}

/** The path's steps as names, `*` for `[*]`; a sentence for a list index, which a default cannot aim at. */
function plainSteps(path: string): string[] | string {
  if (path.trim() === '') return 'must name a field, such as spec.replicas';
  const names: string[] = [];
  let end = 0;
  for (const step of fieldPathSteps(path)) {
    // fieldPathSteps skips what it cannot read (`spec..size`, an unclosed bracket): the steps must spell the path out.
    const written = path.slice(end, step.end);
    if (written !== `[${step.value}]` && written !== `${end === 0 ? '' : '.'}${step.value}`) break;
    if (typeof step.value === 'number')
      return `names list item ${step.value}: a default names a field of each item ([*]), not an item by position`;
    if (step.value === '') return 'has an empty field name';
    names.push(step.value);
    end = step.end;
  }
  return end === path.length ? names : 'is not a field path such as spec.caches[*].version';
}
