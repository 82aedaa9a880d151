// Some tests need what a machine may lack: a control plane, Go, a mount namespace, Linux. Where it is missing they
// are skipped, loudly; under CRDGATE_REQUIRE_E2E=1 (set by .ci/run) they fail instead, so that a proof that did
// not run is never counted as one that passed.

export const requireE2eVariable = 'CRDGATE_REQUIRE_E2E';

/**
 * For `describe.skipIf` and `it.skipIf`: false when nothing is missing; when `missing` says what is, true after a
 * banner on stderr, or, under CRDGATE_REQUIRE_E2E=1, an error that fails the file.
 */
export function missingPrerequisite(what: string, missing: string | undefined): boolean {
  if (missing === undefined) return false;
  if (process.env[requireE2eVariable] === '1')
    throw new Error(`${requireE2eVariable}=1 and ${what} cannot run: ${missing}`);
  const bar = '!'.repeat(100);
  process.stderr.write(
    [
      bar,
      `!!! SKIPPED: ${what}.`,
      `!!! ${missing}`,
      `!!! Set ${requireE2eVariable}=1 to turn this into a failure (CI does).`,
      bar,
      '',
    ].join('\n'),
  );
  return true;
}
