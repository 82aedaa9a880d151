/** An XML element as the tests read a report: its name, attributes (entities decoded), children and text. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith('#')) return String.fromCodePoint(Number(entity.slice(1)));
    if (entity in entities) return entities[entity]!;
    throw new Error(`unknown entity ${whole}`);
  });
}

/**
 * The root element of a document, for tests that check a report's structure rather than its spelling. Strict on
 * what a JUnit consumer chokes on (a stray `<` or `&`, an unclosed or mismatched tag, text outside the root); no
 * DTDs, CDATA or processing instructions other than the XML declaration, which crdgate never writes.
 */
export function parseXml(xml: string): XmlElement {
  const token = /<\?xml[^?]*\?>|<!--[\s\S]*?-->|<(\/?)([\w:.-]+)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let match: RegExpExecArray | null;
  while (token.lastIndex < xml.length && (match = token.exec(xml)) !== null) {
    const [whole, closing, name, attributeText, selfClosing, text] = match;
    if (text !== undefined) {
      if (/&(?!(#x[0-9a-f]+|#\d+|\w+);)/i.test(text)) throw new Error(`a bare & in ${JSON.stringify(text)}`);
      if (stack.length === 0) {
        if (text.trim() !== '') throw new Error(`text outside the root element: ${JSON.stringify(text)}`);
      } else stack.at(-1)!.text += decode(text);
      continue;
    }
    if (name === undefined) continue;
    if (closing) {
      const open = stack.pop();
      if (open?.name !== name) throw new Error(`</${name}> closes <${open?.name ?? 'nothing'}>`);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key, value] of attributeText!.matchAll(/([\w:.-]+)="([^"]*)"/g)) {
      if (key! in attributes) throw new Error(`attribute ${key} twice in ${whole}`);
      attributes[key!] = decode(value!);
    }
    const element: XmlElement = { name, attributes, children: [], text: '' };
    if (stack.length > 0) stack.at(-1)!.children.push(element);
    else if (root) throw new Error(`a second root element <${name}>`);
    else root = element;
    if (!selfClosing) stack.push(element);
  }
  if (token.lastIndex < xml.length)
    throw new Error(
      `not XML from offset ${token.lastIndex}: ${JSON.stringify(xml.slice(token.lastIndex, token.lastIndex + 40))}`,
    );
  if (stack.length > 0) throw new Error(`<${stack.at(-1)!.name}> is never closed`);
  if (!root) throw new Error('no root element');
  return root;
}

/** Every element named `name` at any depth below `element`, in document order. */
export function descendants(element: XmlElement, name: string): XmlElement[] {
  return element.children.flatMap((child) => [...(child.name === name ? [child] : []), ...descendants(child, name)]);
}
