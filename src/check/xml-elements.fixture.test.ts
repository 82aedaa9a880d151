import { describe, expect, it } from 'vitest';
import { descendants, parseXml } from './xml-elements.fixture.ts';

// The JUnit tests trust this reader to refuse what a CI system would refuse.
describe('parseXml (test fixture)', () => {
  it('reads elements, decoded attributes and text', () => {
    const root = parseXml(
      '<?xml version="1.0"?>\n<a n="x &quot;y&quot;&#10;z"><b/><c>1 &lt; 2</c><d><b k="v"/></d></a>\n',
    );
    expect(root.attributes).toEqual({ n: 'x "y"\nz' });
    expect(root.children.map((c) => c.name)).toEqual(['b', 'c', 'd']);
    expect(root.children[1]!.text).toBe('1 < 2');
    expect(descendants(root, 'b').map((b) => b.attributes)).toEqual([{}, { k: 'v' }]);
  });

  it.each(['<a><b></a>', '<a>1 < 2</a>', '<a>x & y</a>', '<a n="1" n="2"/>', '<a/><b/>', '<a>', 'text'])(
    'refuses %j',
    (xml) => {
      expect(() => parseXml(xml)).toThrow();
    },
  );
});
