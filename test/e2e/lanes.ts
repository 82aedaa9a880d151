// The e2e files run in lanes: as many at once as there are lanes, each lane with a control plane of its own (see
// provided-context.ts). Most of an e2e file's time is waiting (for kube-apiserver, a process to start, a watch to
// fire, npm), so two lanes keep two cores busier than one; CRDGATE_E2E_LANES=1 runs them one at a time.

export const E2E_LANES_VARIABLE = 'CRDGATE_E2E_LANES';
const DEFAULT_LANES = 2;
const MAX_LANES = 4;

export function e2eLanes(env: NodeJS.ProcessEnv = process.env): number {
  const text = env[E2E_LANES_VARIABLE];
  if (text === undefined || text === '') return DEFAULT_LANES;
  const lanes = Number(text);
  if (!Number.isInteger(lanes) || lanes < 1 || lanes > MAX_LANES)
    throw new Error(`${E2E_LANES_VARIABLE}=${text}: give a whole number of lanes from 1 to ${MAX_LANES}`);
  return lanes;
}
