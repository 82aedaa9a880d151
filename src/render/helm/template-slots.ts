import { isScalar, stringify, type Pair } from 'yaml';

// A chart's templates are crdgate's rendered objects with some values left to Helm. A slot stands where such a value
// goes in the object; the object is written as YAML like every other generated file, and each slot then becomes Go
// template text at its place. The objects are never written a second time by hand.

/** Template text that yields a scalar where it stands: `replicas: {{ .Values.replicas }}`. */
export interface ScalarSlot {
  slot: 'scalar';
  expression: string;
}

/**
 * Lines of template text that stand for the key and its value, indented as the key is: the key is written by the
 * lines themselves (under a condition, or not at all). `yaml` writes a value as YAML lines; slots in it are expanded
 * in turn.
 */
export interface LinesSlot {
  slot: 'lines';
  lines: (key: string, yaml: (value: Record<string, unknown>) => string[]) => string[];
}

export type Slot = ScalarSlot | LinesSlot;

export function scalar(expression: string): ScalarSlot {
  return { slot: 'scalar', expression };
}

const indentPlusTwo = '__INDENT_PLUS_2__';

/** The key with the value of `expression` as YAML, left out when that value is empty. */
export function fromValues(expression: string): LinesSlot {
  return {
    slot: 'lines',
    lines: (key) => [
      `{{- with ${expression} }}`,
      `${key}:`,
      `  {{- toYaml . | nindent ${indentPlusTwo} }}`,
      '{{- end }}',
    ],
  };
}

/** The key with one value or the other, by a template condition; undefined leaves the key out on that side. */
export function choice(condition: string, then: unknown, otherwise: unknown): LinesSlot {
  return {
    slot: 'lines',
    lines: (key, yaml) => {
      const side = (value: unknown) => (value === undefined ? [] : yaml({ [key]: value }));
      const [yes, no] = [side(then), side(otherwise)];
      if (yes.length === 0) return [`{{- if not (${condition}) }}`, ...no, '{{- end }}'];
      return [`{{- if ${condition} }}`, ...yes, ...(no.length > 0 ? ['{{- else }}', ...no] : []), '{{- end }}'];
    },
  };
}

/** A map of literal entries, and more entries from values (pod labels added to the selector's, say). */
export function mapWithValues(literal: Record<string, string>, expression: string): LinesSlot {
  return {
    slot: 'lines',
    lines: (key, yaml) => [
      ...yaml({ [key]: literal }),
      `  {{- with ${expression} }}`,
      `  {{- toYaml . | nindent ${indentPlusTwo} }}`,
      '  {{- end }}',
    ],
  };
}

/** Lines written as they are, the key included (template text that no slot above covers). */
export function lines(write: (key: string, yaml: (value: Record<string, unknown>) => string[]) => string[]): LinesSlot {
  return { slot: 'lines', lines: write };
}

function isSlot(value: unknown): value is Slot {
  return (
    typeof value === 'object' &&
    value !== null &&
    'slot' in value &&
    ((value as Slot).slot === 'scalar' || (value as Slot).slot === 'lines')
  );
}

const placeholderPattern = /'?"?crdgateSlot(\d+)"?'?/g;
const linesSlotLine = /^(\s*)((?:- )?)([^\s:][^:]*): crdgateSlot(\d+)$/;

/**
 * The template text of the objects: YAML documents, with every `{{` of the data itself escaped (a CEL rule or a
 * description may hold one) and every slot turned into template text.
 */
export function templateText(objects: readonly object[]): string {
  const slots: Slot[] = [];
  const yaml = (value: unknown): string[] =>
    escapeBraces(yamlText(withPlaceholders(value, slots), slots))
      .trimEnd()
      .split('\n');
  const expand = (line: string): string[] => {
    const match = linesSlotLine.exec(line);
    const slot = match === null ? undefined : slots[Number(match[4])];
    if (match === null || slot?.slot !== 'lines') return [line];
    const [, indent = '', dash, key = ''] = match;
    // A slot as the first key of a list item would lose its dash: the objects never put one there.
    if (dash !== '') throw new Error(`a template slot cannot be the first key of a list item (${key})`);
    return slot
      .lines(key, yaml)
      .map((each) => `${indent}${each}`.replace(indentPlusTwo, String(indent.length + 2)))
      .flatMap(expand);
  };
  const documents = objects.map((object) => yaml(object).flatMap(expand).join('\n'));
  return `${documents.join('\n---\n')}\n`.replace(placeholderPattern, (_, index: string) => {
    const slot = slots[Number(index)];
    if (slot?.slot !== 'scalar') throw new Error(`template slot ${index} is not a scalar where it stands`);
    return `{{ ${slot.expression} }}`;
  });
}

function withPlaceholders(value: unknown, slots: Slot[]): unknown {
  if (isSlot(value)) {
    slots.push(value);
    return `crdgateSlot${slots.length - 1}`;
  }
  if (Array.isArray(value)) return value.map((item) => withPlaceholders(item, slots));
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withPlaceholders(item, slots)]));
  return value;
}

/**
 * Keys sorted as in every generated file, except that a lines slot never comes first: as the first key of a list
 * item it would have to carry the item's dash into its condition.
 */
function yamlText(value: unknown, slots: readonly Slot[]): string {
  const isLinesSlot = (node: unknown): boolean => {
    const text = isScalar(node) ? node.value : undefined;
    const index = typeof text === 'string' ? /^crdgateSlot(\d+)$/.exec(text)?.[1] : undefined;
    return index !== undefined && slots[Number(index)]?.slot === 'lines';
  };
  const byKey = (a: Pair, b: Pair): number => {
    const slotOrder = Number(isLinesSlot(a.value)) - Number(isLinesSlot(b.value));
    return slotOrder !== 0
      ? slotOrder
      : String(isScalar(a.key) ? a.key.value : a.key).localeCompare(String(isScalar(b.key) ? b.key.value : b.key));
  };
  return stringify(value, { sortMapEntries: byKey, aliasDuplicateObjects: false, lineWidth: 0 });
}

/** `{{` in the data would start a template action: written as the action that prints it. */
function escapeBraces(text: string): string {
  return text.replaceAll('{{', '{{ "{{" }}');
}
