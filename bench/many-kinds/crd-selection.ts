// Which real CRDs the --many-kinds mode guards, and in which order: the N kinds of a run are the first N of one
// list, so that each step adds kinds to the ones before and the growth per kind is the step's own.

/** What the selection needs to know of a corpus CRD. */
export interface CrdCandidate {
  id: string;
  project: string;
  /** The size of the CRD's YAML as its project publishes it. */
  bytes: number;
  /** How many of the project's sample objects are of the kind in the version the contract is written against. */
  hubSamples: number;
}

/**
 * One CRD per project, the kind its users most likely guard: the one with the most samples in the contract's
 * version (what a project documents most), then the larger, then by name. Then ordered so that every prefix mixes
 * sizes: the projects' kinds are cut by size into thirds, and the order takes one from the middle third, one from
 * the largest, one from the smallest, and again (each third in order of its CRDs' names). So a run of N kinds holds
 * about N/3 of each, small ones (a few KB) as well as the largest operator CRDs (megabytes).
 */
export function selectCrds(candidates: readonly CrdCandidate[], count: number): CrdCandidate[] {
  const byProject = new Map<string, CrdCandidate>();
  for (const candidate of candidates) {
    const chosen = byProject.get(candidate.project);
    if (!chosen || preferred(candidate, chosen)) byProject.set(candidate.project, candidate);
  }
  const representatives = [...byProject.values()].sort((a, b) => a.bytes - b.bytes || compareIds(a, b));
  if (count > representatives.length)
    throw new Error(`${count} kinds asked for, but the corpus has ${representatives.length} projects to take one from`);
  const third = Math.ceil(representatives.length / 3);
  const small = representatives.slice(0, third).sort(compareIds);
  const medium = representatives.slice(third, 2 * third).sort(compareIds);
  const large = representatives.slice(2 * third).sort(compareIds);
  const ordered: CrdCandidate[] = [];
  for (let index = 0; ordered.length < representatives.length; index++)
    for (const group of [medium, large, small]) if (group[index]) ordered.push(group[index]!);
  return ordered.slice(0, count);
}

function preferred(candidate: CrdCandidate, chosen: CrdCandidate): boolean {
  if (candidate.hubSamples !== chosen.hubSamples) return candidate.hubSamples > chosen.hubSamples;
  if (candidate.bytes !== chosen.bytes) return candidate.bytes > chosen.bytes;
  return compareIds(candidate, chosen) < 0;
}

function compareIds(a: CrdCandidate, b: CrdCandidate): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
