import { isMap, isSeq, LineCounter, parseAllDocuments, parseDocument, type Node } from 'yaml';
import { isPlainObject, type KubeObject } from '../contract/values/kube-object.ts';
import type { ManifestErrorCode } from '../errors.ts';

/** Where an object sits in a manifest tree, for people (file and line) and for tools (document, list item). */
export interface ManifestLocation {
  /**
   * As the user named it, or the folder they named joined with the path found in it; `-` is standard input. For
   * an object read from a cluster (`check --from-cluster`), its URL.
   */
  file: string;
  /** The document's number in the file, from 1; 0 for an object read from a cluster. */
  document: number;
  /** The line the object starts on, from 1; 0 for an object read from a cluster. */
  line: number;
  /** The object's index in a List's `items`, from 0; absent for an object that is a document of its own. */
  item?: number;
}

/** `apps/db.yaml:14 (document 2)`, `list.yaml:9 (document 1, items[3])`: a line an editor jumps to, and the document. */
export function describeLocation(location: ManifestLocation): string {
  if (location.line === 0) return location.file;
  const file = location.file === '-' ? '<stdin>' : location.file;
  return `${file}:${location.line} (document ${location.document}${location.item === undefined ? '' : `, items[${location.item}]`})`;
}

export interface ManifestObject {
  location: ManifestLocation;
  object: KubeObject;
}

/** A document that is not valid YAML (or a file not valid JSON): where the parser stopped, and why. */
export interface InvalidManifest {
  location: ManifestLocation & { column: number };
  code: ManifestErrorCode;
  /** The parser's message, without the position (the location has it). */
  message: string;
}

/** Why a file or document holds nothing to check. Stable: JSON reports and summaries count by these. */
export const emptyReasons = {
  EMPTY_FILE: 'the file has nothing in it but white space',
  COMMENTS_ONLY: 'the file or document has comments and nothing else (a Helm template that rendered nothing)',
  EMPTY_DOCUMENT: 'a document between `---` separators is empty',
  EMPTY_LIST: 'a List has no items',
} as const;

export type EmptyReason = keyof typeof emptyReasons;

export interface EmptyManifest {
  location: ManifestLocation;
  reason: EmptyReason;
}

/**
 * What one file holds: the objects, the documents that are not Kubernetes objects (no apiVersion or kind), those
 * that cannot be parsed, and those with nothing in them.
 */
export interface ManifestContents {
  objects: ManifestObject[];
  notObjects: ManifestLocation[];
  invalid: InvalidManifest[];
  empty: EmptyManifest[];
}

export type ManifestFormat = 'json' | 'yaml';

/**
 * The objects in one manifest file: multi-document YAML or one JSON value; a `List` (`kind: List`, or any
 * `...List` kind with `items`, as `kubectl get -o yaml` writes) contributes its items. A YAML document that cannot
 * be parsed is reported as invalid and the file's other documents are still read, as kubectl and kubeconform read
 * them; a JSON file is one value, so all of it is. Empty files, documents and Lists are reported as empty, except
 * a trailing `---`, which ends a stream rather than starts a document.
 */
export function parseManifest(file: string, text: string, format: ManifestFormat): ManifestContents {
  return format === 'json' ? parseJsonManifest(file, text) : parseYamlManifest(file, text);
}

/** `.json` files are JSON; standard input is JSON when it starts like JSON; everything else is YAML. */
export function manifestFormat(file: string, text: string): ManifestFormat {
  if (file === '-') return /^\s*[{[]/.test(text) ? 'json' : 'yaml';
  return /\.json$/i.test(file) ? 'json' : 'yaml';
}

const noContents = (): ManifestContents => ({ objects: [], notObjects: [], invalid: [], empty: [] });

function parseJsonManifest(file: string, text: string): ManifestContents {
  const contents = noContents();
  // JSON.parse refuses an empty file; kubectl and kubeconform pass it over, and so does a YAML one here.
  if (text.trim() === '')
    return { ...contents, empty: [{ location: { file, document: 1, line: 1 }, reason: 'EMPTY_FILE' }] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const { line, column } = jsonErrorPosition(text, message);
    const bare = message.replace(/\s*\(line \d+ column \d+\)$/, '').replace(/ in JSON at position \d+$/, '');
    return {
      ...contents,
      invalid: [{ location: { file, document: 1, line, column }, code: 'MANIFEST_NOT_JSON', message: bare }],
    };
  }
  // JSON.parse knows no positions; a List's items are located by parsing it again as YAML (JSON is YAML), which
  // costs a List what a YAML file costs and leaves the common case, one object, at JSON.parse's speed.
  const itemLine = isPlainObject(value) && isList(value) ? yamlItemLines(text) : () => 1;
  collect(contents, value, { file, document: 1, line: 1 }, itemLine);
  return contents;
}

function yamlItemLines(text: string): (item: number) => number {
  const lineCounter = new LineCounter();
  return listItemLines(parseDocument(text, { lineCounter }).contents, lineCounter, 1);
}

/** The line each item of a List document starts on (the document's own line when the node has no position). */
function listItemLines(contents: unknown, lineCounter: LineCounter, documentLine: number): (item: number) => number {
  const items = isMap(contents) ? contents.get('items', true) : undefined;
  return (item) => {
    const node = isSeq(items) ? (items.items[item] as Node | undefined) : undefined;
    return node?.range ? lineCounter.linePos(node.range[0]).line : documentLine;
  };
}

/** V8 names the line and column, or only the offset, or neither (unexpected end); an editor jumps to either. */
function jsonErrorPosition(text: string, message: string): { line: number; column: number } {
  const named = /\(line (\d+) column (\d+)\)/.exec(message);
  if (named) return { line: Number(named[1]), column: Number(named[2]) };
  const offset = /at position (\d+)/.exec(message);
  return positionOfOffset(text, offset ? Number(offset[1]) : text.length);
}

function positionOfOffset(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) {
    line += 1;
    lineStart = index + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

function parseYamlManifest(file: string, text: string): ManifestContents {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter });
  const contents = noContents();
  // The parser yields no document at all for a file of white space or comments.
  if (documents.length === 0) {
    contents.empty.push({
      location: { file, document: 1, line: 1 },
      reason: text.trim() === '' ? 'EMPTY_FILE' : 'COMMENTS_ONLY',
    });
    return contents;
  }
  for (const [index, document] of documents.entries()) {
    const [error] = document.errors;
    if (error) {
      const { line, column } = error.linePos
        ? { line: error.linePos[0].line, column: error.linePos[0].col }
        : positionOfOffset(text, error.pos[0]);
      // The parser's message ends with the position again, and an excerpt on the next lines; the location says both.
      const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      contents.invalid.push({
        location: { file, document: index + 1, line, column },
        code: 'MANIFEST_NOT_YAML',
        message,
      });
      continue;
    }
    const line = lineCounter.linePos((document.contents?.range ?? document.range)[0]).line;
    const location = { file, document: index + 1, line };
    const value: unknown = document.toJS();
    if (value === null || value === undefined) {
      const isTrailingSeparator =
        index === documents.length - 1 &&
        index > 0 &&
        /^---\s*$/.test(text.slice(document.range[0], document.range[2]));
      if (isTrailingSeparator) continue;
      // Comments and the separator only (an explicit `null` or `~` is no comment, so an empty document).
      const lines = text
        .slice(document.range[0], document.range[2])
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && l !== '---');
      contents.empty.push({
        location,
        reason: lines.length > 0 && lines.every((l) => l.startsWith('#')) ? 'COMMENTS_ONLY' : 'EMPTY_DOCUMENT',
      });
      continue;
    }
    collect(contents, value, location, listItemLines(document.contents, lineCounter, line));
  }
  return contents;
}

function collect(
  contents: ManifestContents,
  value: unknown,
  location: ManifestLocation,
  itemLine: (item: number) => number,
): void {
  if (value === null || value === undefined) {
    contents.empty.push({ location, reason: 'EMPTY_DOCUMENT' });
    return;
  }
  if (!isManifestObject(value)) {
    contents.notObjects.push(location);
    return;
  }
  if (!isList(value)) {
    contents.objects.push({ location, object: value });
    return;
  }
  // kubectl applies an empty List as nothing; counted, so that a generator that rendered nothing is seen.
  if ((value.items as unknown[]).length === 0) {
    contents.empty.push({ location, reason: 'EMPTY_LIST' });
    return;
  }
  for (const [item, element] of (value.items as unknown[]).entries()) {
    const at = { ...location, line: itemLine(item), item };
    if (isManifestObject(element)) contents.objects.push({ location: at, object: element });
    else contents.notObjects.push(at);
  }
}

/** A Kubernetes object as a manifest writes one: apiVersion and kind named, metadata an object if any. */
function isManifestObject(value: unknown): value is KubeObject & { apiVersion: string; kind: string } {
  return (
    isPlainObject(value) &&
    typeof value.apiVersion === 'string' &&
    value.apiVersion !== '' &&
    typeof value.kind === 'string' &&
    value.kind !== '' &&
    (value.metadata === undefined || isPlainObject(value.metadata))
  );
}

function isList(value: KubeObject): boolean {
  return typeof value.kind === 'string' && value.kind.endsWith('List') && Array.isArray(value.items);
}
