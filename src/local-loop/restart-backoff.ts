/**
 * How long to wait before starting a serving process again: at once after one that served a while, longer and longer
 * (up to half a minute) after each that died soon after it started, so that a crash at start does not loop hot.
 */
export class RestartBackoff {
  private quickDeaths = 0;

  delayAfterDeath(startedAt: number, now = Date.now()): number {
    if (now - startedAt >= quickDeathMs) {
      this.quickDeaths = 0;
      return 0;
    }
    this.quickDeaths += 1;
    return Math.min(maxRestartDelayMs, firstRestartDelayMs * 2 ** (this.quickDeaths - 1));
  }
}

const quickDeathMs = 30_000;
const firstRestartDelayMs = 1_000;
const maxRestartDelayMs = 30_000;
