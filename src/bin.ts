#!/usr/bin/env node
// The installed `crdgate` command. On a Node.js older than crdgate needs it says so in one line and exits 2,
// before loading anything else: the rest of crdgate uses what only newer versions have (import.meta.main, type
// stripping), and on an older one would fail obscurely or, worse, do nothing at all.

/** The oldest major version crdgate runs on; package.json's `engines` says the same (a test keeps them equal). */
const requiredNodeMajor = 24;

const running = process.versions.node;
if (Number(running.split('.')[0]) < requiredNodeMajor) {
  process.stderr.write(
    `crdgate: Node.js ${requiredNodeMajor} or newer is required, this is Node.js ${running} (${process.execPath})\n`,
  );
  process.exitCode = 2;
} else {
  const { runProcess } = await import('./cli.ts');
  runProcess();
}
