import { isMap, isSeq, LineCounter, parseAllDocuments, parseDocument, type Node } from 'yaml';
import { isPlainObject, type KubeObject } from '../contract/kube-object.ts';

/** Where an object sits in a manifest tree, for people (file and line) and for tools (document, list item). */
export interface ManifestLocation {
  /** As the user named it, or the folder they named joined with the path found in it; `-` is standard input. */
  file: string;
  /** The document's number in the file, from 1. */
  document: number;
  /** The line the object starts on, from 1. */
  line: number;
  /** The object's index in a List's `items`, from 0; absent for an object that is a document of its own. */
  item?: number;
}

export interface ManifestObject {
  location: ManifestLocation;
  object: KubeObject;
}

/** What one file holds: the objects, and the documents that are not Kubernetes objects (no apiVersion or kind). */
export interface ManifestContents {
  objects: ManifestObject[];
  notObjects: ManifestLocation[];
}

/** A file that cannot be parsed: the message names the file and the line. */
export class ManifestSyntaxError extends Error {
  override name = 'ManifestSyntaxError';
}

export type ManifestFormat = 'json' | 'yaml';

/**
 * The objects in one manifest file: multi-document YAML or one JSON value; a `List` (`kind: List`, or any
 * `...List` kind with `items`, as `kubectl get -o yaml` writes) contributes its items. Empty documents (a trailing
 * `---`, comments only) are no objects and are not counted.
 */
export function parseManifest(file: string, text: string, format: ManifestFormat): ManifestContents {
  return format === 'json' ? parseJsonManifest(file, text) : parseYamlManifest(file, text);
}

/** `.json` files are JSON; standard input is JSON when it starts like JSON; everything else is YAML. */
export function manifestFormat(file: string, text: string): ManifestFormat {
  if (file === '-') return /^\s*[{[]/.test(text) ? 'json' : 'yaml';
  return /\.json$/i.test(file) ? 'json' : 'yaml';
}

function parseJsonManifest(file: string, text: string): ManifestContents {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    throw new ManifestSyntaxError(`${file}:${jsonErrorLine(text, message)}: not valid JSON: ${message.replace(/\s*\(line \d+ column \d+\)$/, '')}`);
  }
  const contents: ManifestContents = { objects: [], notObjects: [] };
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

/** V8 names the line and column, or only the offset; the line is what an editor jumps to. */
function jsonErrorLine(text: string, message: string): number {
  const line = /\(line (\d+) column \d+\)/.exec(message);
  if (line) return Number(line[1]);
  const position = /at position (\d+)/.exec(message);
  return position ? lineOfOffset(text, Number(position[1])) : 1;
}

function lineOfOffset(text: string, offset: number): number {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line += 1;
  return line;
}

function parseYamlManifest(file: string, text: string): ManifestContents {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter });
  const contents: ManifestContents = { objects: [], notObjects: [] };
  for (const [index, document] of documents.entries()) {
    const [error] = document.errors;
    if (error) {
      const where = error.linePos ? `${error.linePos[0].line}:${error.linePos[0].col}` : String(lineOfOffset(text, error.pos[0]));
      // The parser's message ends with the position again; the prefix says it the way editors and CI logs link it.
      const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
      throw new ManifestSyntaxError(`${file}:${where}: not valid YAML: ${message}`);
    }
    const line = document.contents?.range ? lineCounter.linePos(document.contents.range[0]).line : 1;
    collect(contents, document.toJS(), { file, document: index + 1, line }, listItemLines(document.contents, lineCounter, line));
  }
  return contents;
}

function collect(contents: ManifestContents, value: unknown, location: ManifestLocation, itemLine: (item: number) => number): void {
  if (value === null || value === undefined) return;
  if (!isObject(value)) {
    contents.notObjects.push(location);
    return;
  }
  if (!isList(value)) {
    contents.objects.push({ location, object: value });
    return;
  }
  for (const [item, element] of (value.items as unknown[]).entries()) {
    const at = { ...location, line: itemLine(item), item };
    if (isObject(element)) contents.objects.push({ location: at, object: element });
    else contents.notObjects.push(at);
  }
}

function isObject(value: unknown): value is KubeObject & { apiVersion: string; kind: string } {
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
