// `npm run --silent layers`: prints which folders of src/ import which, then every loop of folders with the imports
// that close it; exits 1 when there is a loop. The same graph is what test/repo/layering.test.ts holds to none.
import { folderGraph, folderLoops } from './folder-graph.ts';

const edges = await folderGraph('src');
const folders = [...new Set(edges.flatMap(({ from, to }) => [from, to]))].sort();
for (const folder of folders) {
  const targets = edges.filter(({ from }) => from === folder).map(({ to }) => to);
  console.log(`${folder} -> ${targets.length === 0 ? '(nothing in src/)' : targets.join(', ')}`);
}
const loops = folderLoops(edges);
console.log('');
if (loops.length === 0) {
  console.log('no folder loop');
} else {
  for (const loop of loops) {
    console.log(`loop: ${[...new Set(loop.map(({ from }) => from))].join(', ')}`);
    for (const { imports } of loop) for (const line of imports) console.log(`  ${line}`);
  }
  process.exitCode = 1;
}
