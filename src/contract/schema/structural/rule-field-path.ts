import { properties, subschema, type Schema } from './schema-reading.ts';

/**
 * Whether a rule's fieldPath (`.spec.size`, `['key.with.dots']`) leads from the rule's node to a declared field, or
 * into a map, as the API server's reading of it does.
 */
export function isValidFieldPath(path: string, start: Schema): boolean {
  const tokens = fieldPathTokens(path);
  let node: Schema | undefined = start;
  for (let i = 0; i < tokens.length; i++) {
    let name: string;
    if (tokens[i] === '.') {
      if (++i >= tokens.length) return false;
      name = tokens[i]!;
    } else if (tokens[i] === '[') {
      const quoted = tokens[++i];
      const isQuoted = quoted !== undefined && quoted.length >= 2 && quoted.startsWith("'") && quoted.endsWith("'");
      if (!isQuoted || tokens[++i] !== ']') return false;
      const unescaped = unescapeSingleQuoted(quoted.slice(1, -1));
      if (unescaped === undefined) return false;
      name = unescaped;
    } else {
      return false;
    }
    if (!node) return false;
    const declared = properties(node);
    if (declared.length > 0) node = new Map(declared).get(name);
    else if (node.additionalProperties !== undefined) node = subschema(node, 'additionalProperties');
    else return false;
    if (!node && declared.length > 0) return false;
  }
  return true;
}

/** `.`, `[` and `]` alone, single-quoted strings whole, and the text between them. */
function fieldPathTokens(path: string): string[] {
  const tokens: string[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === "'") {
      let end = i + 1;
      while (end < path.length && !(path[end] === "'" && path[end - 1] !== '\\')) end++;
      tokens.push(path.slice(i, end + 1));
      i = end + 1;
    } else if ('.[]'.includes(path[i]!)) {
      tokens.push(path[i++]!);
    } else {
      let end = i;
      while (end < path.length && !'.[]'.includes(path[end]!)) end++;
      tokens.push(path.slice(i, end));
      i = end;
    }
  }
  return tokens;
}

const escapes: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  "'": "'",
  '\\': '\\',
};

function unescapeSingleQuoted(text: string): string | undefined {
  let valid = true;
  const result = text.replace(/\\./g, (match) => {
    const replacement = escapes[match[1]!];
    if (replacement === undefined) valid = false;
    return replacement ?? '';
  });
  return valid ? result : undefined;
}
