// Reads a V8 .cpuprofile (what `node --cpu-prof` writes) and says where the busy time went: by package or crdgate
// directory, and by function, both self time (spent in the function itself) and total time (its callees included).

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

export interface TimeShare {
  name: string;
  category: string;
  ms: number;
}

export interface ProfileSummary {
  /** Sampled time not idle, in ms. */
  busyMs: number;
  byCategory: TimeShare[];
  topSelf: TimeShare[];
  topTotal: TimeShare[];
}

/** Directories of the project's own code, e.g. crdgate's src/ (or a compiled dist/) and bench/. */
export interface CodeRoot {
  /** An absolute directory path ending in a slash. */
  directory: string;
  label: string;
}

export function summarizeCpuProfile(profile: CpuProfile, codeRoots: CodeRoot[], top: number): ProfileSummary {
  const msPerSample = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  const parentOf = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node);

  const byCategory = new Map<string, number>();
  const self = new Map<string, TimeShare>();
  const total = new Map<string, TimeShare>();
  let busyMs = 0;
  for (const node of profile.nodes) {
    const ms = (node.hitCount ?? 0) * msPerSample;
    if (ms === 0 || node.callFrame.functionName === '(idle)') continue;
    busyMs += ms;
    const category = categoryOf(node.callFrame, codeRoots);
    byCategory.set(category, (byCategory.get(category) ?? 0) + ms);
    add(self, node.callFrame, category, ms);
    // Each function on the stack gets the sample once, however often it recurses.
    const seen = new Set<string>();
    for (let frame: ProfileNode | undefined = node; frame; frame = parentOf.get(frame.id)) {
      const key = frameKey(frame.callFrame);
      if (seen.has(key) || frame.callFrame.functionName === '(root)') continue;
      seen.add(key);
      add(total, frame.callFrame, categoryOf(frame.callFrame, codeRoots), ms);
    }
  }
  const largest = (shares: Iterable<TimeShare>) => [...shares].sort((a, b) => b.ms - a.ms).slice(0, top);
  return {
    busyMs,
    byCategory: largest([...byCategory].map(([category, ms]) => ({ name: category, category, ms }))),
    topSelf: largest(self.values()),
    topTotal: largest(total.values()),
  };
}

function add(shares: Map<string, TimeShare>, frame: CallFrame, category: string, ms: number): void {
  const key = frameKey(frame);
  const share = shares.get(key);
  if (share) share.ms += ms;
  else shares.set(key, { name: key, category, ms });
}

function frameKey(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  const file = frame.url.includes('/node_modules/')
    ? frame.url.replace(/^.*\/node_modules\//, '')
    : frame.url.replace(/^.*\/(src|dist|bench)\//, '$1/');
  return `${name} ${file}:${frame.lineNumber + 1}`;
}

/** A package name, a directory of the project, a Node core area, or what V8 itself does. */
function categoryOf(frame: CallFrame, codeRoots: CodeRoot[]): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8: garbage collector';
    if (functionName === '(program)') return 'V8/native: (program)';
    return 'V8 builtins (JSON, RegExp, ...)';
  }
  const packageName = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (packageName) return `npm: ${packageName}`;
  const path = url.replace(/^file:\/\//, '');
  for (const { directory, label } of codeRoots) {
    if (path.startsWith(directory))
      return `${label}: ${path.slice(directory.length).split('/').slice(0, -1).join('/') || '.'}`;
  }
  if (url.startsWith('node:')) {
    const module = url.slice('node:'.length);
    if (/^(_tls|tls|internal\/tls)/.test(module)) return 'node: tls';
    if (/^(_http|http|internal\/http)/.test(module)) return 'node: http';
    if (/^(net|internal\/net|internal\/stream_base)/.test(module)) return 'node: net';
    if (/^(internal\/streams|stream)/.test(module)) return 'node: streams';
    if (/^(events|internal\/event_target)/.test(module)) return 'node: events';
    if (/^internal\/(process|timers)|^timers/.test(module)) return 'node: process/timers (ticks, timers)';
    return `node: ${module.replace(/^internal\//, '').split('/')[0]}`;
  }
  return 'other';
}
