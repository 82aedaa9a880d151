import { readFile, stat } from 'node:fs/promises';

/** GitHub's anchor for a heading: lower case, inline code marks and punctuation dropped, spaces to hyphens. */
export function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** The text outside fenced code blocks, line for line (a fenced line is left empty). */
function outsideCode(text: string): string {
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      const mark = /^\s*(```+|~~~+)/.exec(line)?.[1];
      if (fence === undefined && mark) {
        fence = mark;
        return '';
      }
      if (fence !== undefined) {
        if (mark && mark.startsWith(fence[0]!) && mark.length >= fence.length && line.trim() === mark)
          fence = undefined;
        return '';
      }
      return line;
    })
    .join('\n');
}

/** The anchors GitHub makes for a file's headings; a heading met again gets -1, -2, ... as GitHub numbers it. */
export async function anchors(url: URL): Promise<Set<string>> {
  const text = outsideCode(await readFile(url, 'utf8'));
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+?)\s*#*$/gm)) {
    const anchor = anchorOf(heading!);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    result.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return result;
}

/** The relative link targets of a markdown file: `[text](target)` outside code, neither web addresses nor mail. */
export async function relativeLinks(url: URL): Promise<string[]> {
  const text = outsideCode(await readFile(url, 'utf8')).replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target!)
    .filter((target) => !/^[a-z][a-z+.-]*:/i.test(target));
}

/** The links of a markdown file that name no file, or a heading its file does not have. */
export async function brokenLinks(url: URL): Promise<string[]> {
  const broken: string[] = [];
  for (const link of await relativeLinks(url)) {
    const [path, anchor] = link.split('#');
    const target = path ? new URL(path, url) : url;
    const exists = await stat(target).then(
      () => true,
      () => false,
    );
    if (!exists) broken.push(link);
    else if (anchor !== undefined && !(target.pathname.endsWith('.md') && (await anchors(target)).has(anchor)))
      broken.push(link);
  }
  return broken;
}
