import { AdaptiveLimit, type Signal } from './adaptive-limit.js';

/**
 * The gate every request to one host goes through (docs/networks.md, "Sending that adapts"):
 * at most the AdaptiveLimit's number on the wire at once, and none while a Retry-After of the
 * host says to wait: a 429's wait pauses every sender, not only the one that got it.
 */
export interface Ticket {
  startedAt: number;
  generation: number;
}

export class Pacer {
  private inFlight = 0;
  /** The most requests that were on the wire at once: what the run really used. */
  private peakInFlight = 0;
  private pausedUntil = 0;
  private readonly waiting: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly watched = new WeakSet<AbortSignal>();

  constructor(
    readonly limit: AdaptiveLimit,
    private readonly now: () => number = Date.now,
  ) {}

  /** A pacer of `max` that adapts (the default of every sender). */
  static adaptive(max: number): Pacer {
    return new Pacer(new AdaptiveLimit({ max }));
  }

  /**
   * The most requests that were in flight at once, and the most allowed. Not the limit's peak:
   * a feed of two batches never has more than two on the wire, whatever the limit grew to.
   */
  get reached(): { reached: number; max: number } {
    return { reached: this.peakInFlight, max: this.limit.max };
  }

  /** Waits for a place on the wire; rejects when `signal` aborts first. */
  async acquire(signal: AbortSignal): Promise<Ticket> {
    // One listener a signal (not one a waiting request): its abort wakes every waiter to give up.
    if (!this.watched.has(signal)) {
      this.watched.add(signal);
      signal.addEventListener('abort', () => this.wakeAll(), { once: true });
    }
    while (this.inFlight >= this.limit.limit || this.now() < this.pausedUntil) {
      signal.throwIfAborted();
      // A waiter keeps the process up until the pause ends (a pause alone does not: see armPause).
      this.timer?.ref();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    // A stop may have come while this request waited: it does not go.
    signal.throwIfAborted();
    this.inFlight++;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    return { startedAt: this.now(), generation: this.limit.generation };
  }

  /** The request's answer (or failure) is in: its place is free again. */
  release(ticket: Ticket, signal: Signal): void {
    this.inFlight--;
    this.limit.record(signal, this.now() - ticket.startedAt, ticket.generation);
    this.wakeAll();
  }

  /** A Retry-After: no request to this host starts before `ms` from now. */
  pause(ms: number): void {
    const until = this.now() + ms;
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.armPause();
  }

  /**
   * Wakes the waiters once the pause is over by the clock they check. A timer can fire a little
   * before that clock gets there (libuv counts from its loop's cached time, which a busy loop
   * leaves behind): then it is armed again for what is left, else the waiters, woken too early,
   * would wait with nothing left to wake them. Unref'd while nobody waits, so that a pause left
   * after a run's last request does not keep the process up.
   */
  private armPause(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const left = this.pausedUntil - this.now();
    if (left <= 0) {
      this.wakeAll();
      return;
    }
    this.timer = setTimeout(() => this.armPause(), left);
    if (this.waiting.length === 0) this.timer.unref();
  }

  private wakeAll(): void {
    // Each waiter checks again; those that still cannot go wait anew, in the same order.
    for (const wake of this.waiting.splice(0)) wake();
  }
}
