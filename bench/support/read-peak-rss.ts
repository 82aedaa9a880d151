import { readFile } from 'node:fs/promises';

/** What report-peak-rss.ts wrote as a process exited: its own peak resident set and its children's, in bytes. */
export interface ProcessTreePeak {
  selfBytes: number;
  childrenBytes: number;
  /** CPU time of the processes below it (the native engine's), which its parent's cutime does not count. */
  childrenCpuSeconds: number;
  /** The sum: an upper bound of the tree's peak, since each process's peak may have come at another time. */
  totalBytes: number;
}

export async function readPeakRss(file: string): Promise<ProcessTreePeak> {
  const text = await readFile(file, 'utf8');
  const { selfBytes, childrenBytes, childrenCpuSeconds } = JSON.parse(text) as Record<string, unknown>;
  if (
    typeof selfBytes !== 'number' ||
    typeof childrenBytes !== 'number' ||
    typeof childrenCpuSeconds !== 'number' ||
    selfBytes <= 0
  )
    throw new Error(`${file}: no peak resident set in ${JSON.stringify(text)} (Linux only: it reads /proc)`);
  return { selfBytes, childrenBytes, childrenCpuSeconds, totalBytes: selfBytes + childrenBytes };
}
