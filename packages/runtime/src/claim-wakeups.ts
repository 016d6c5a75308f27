/**
 * When the dispatcher's claim loop wakes: at the end of its sleep, or earlier when something wrote
 * deliveries it may claim (here, or on another server as the change feed reports).
 */

/** Least time between two claims woken by other servers' writes. */
const OTHER_SERVER_WAKE_MS = 100;

export class ClaimWakeups {
  private wakeUp: (() => void) | undefined;
  private otherServerWake: NodeJS.Timeout | undefined;
  private lastOtherServerWake = 0;
  /** wakeToClaim() was called while no sleep was there to end. */
  private claimAgain = false;

  /** Sleeps `ms`, or less when woken. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, ms);
      this.wakeUp = () => {
        clearTimeout(t);
        resolve();
      };
    });
  }

  /** Ends the loop's sleep, if it sleeps. */
  wake(): void {
    const w = this.wakeUp;
    this.wakeUp = undefined;
    w?.();
  }

  /**
   * Another server wrote events or deliveries: claim soon, but at most every OTHER_SERVER_WAKE_MS. The
   * server that publishes runs what it has room for itself (Dispatcher.reserve), so most of these
   * claims find nothing, and each costs a statement; a delivery that waits for this spacing waits
   * no longer than for the idle poll it shortens.
   */
  wakeForOtherServer(): void {
    if (this.otherServerWake) return;
    const wait = Math.max(0, this.lastOtherServerWake + OTHER_SERVER_WAKE_MS - performance.now());
    this.otherServerWake = setTimeout(() => {
      this.otherServerWake = undefined;
      this.lastOtherServerWake = performance.now();
      this.wake();
    }, wait);
    this.otherServerWake.unref();
  }

  /**
   * Another server wrote deliveries that wait for a claim: claim now, or, when a claim is in flight
   * (it may have read the rows before that write committed), once more right after it.
   */
  wakeToClaim(): void {
    if (this.wakeUp) this.wake();
    else this.claimAgain = true;
  }

  /** Whether a claim was asked for while none could be woken; asking clears it. */
  takeClaimAgain(): boolean {
    const again = this.claimAgain;
    this.claimAgain = false;
    return again;
  }
}
