/**
 * Resolves once the process that started this one has exited: the parent pid it reads changes (the orphan is
 * adopted by init or a subreaper). `npm run dev` and `npx crdgate dev` start crdgate through `sh -c`, which dies of
 * the SIGTERM or SIGINT npm forwards to it without passing it on, so a long-running command would otherwise
 * outlive its wrapper, and keep the processes it started running. The timer never keeps the process alive.
 */
export function whenParentExits(readParentPid: () => number, intervalMs = 250): Promise<void> {
  const parent = readParentPid();
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (readParentPid() === parent) return;
      clearInterval(timer);
      resolve();
    }, intervalMs);
    timer.unref();
  });
}
