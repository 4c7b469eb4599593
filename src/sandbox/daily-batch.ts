import type { Logger } from '../shared/logger.js';
import { formatLocal, nextDailyBatch } from '../time/zones.js';
import type { SandboxStore } from './store.js';

export interface DailyBatchOptions {
  store: SandboxStore;
  zone: string;
  adminEmail: string;
  idempotencyTtlMs: number;
  now: () => Date;
  log: Logger;
  quiet: boolean;
  /** Called before each batch applies (the search index is rebuilt after it). */
  onBatch: () => void;
}

/** The sandbox's 00:15 daily batch: when it runs next, running it, and its timer. */
export class DailyBatch {
  // Asked on every product request: computed once per day, not per request (Intl is slow).
  private cached = { from: 0, next: 0 };
  // The last 00:15 the timer fired for: the next one is computed after it, so a clock that stands
  // still (tests) or runs slightly behind the timer never runs the same batch twice.
  private firedFor = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: DailyBatchOptions) {}

  next(): Date {
    const t = this.o.now().getTime();
    if (t < this.cached.from || t >= this.cached.next)
      this.cached = { from: t, next: nextDailyBatch(new Date(t), this.o.zone).getTime() };
    return new Date(this.cached.next);
  }

  run(): { applied: number } {
    const { store, zone, adminEmail } = this.o;
    const at = this.o.now();
    this.o.onBatch();
    const applied = store.runBatch(at.getTime(), adminEmail, (n) => ({
      subject: `[genser sandbox] Data preprocessing finished: ${n} product${n === 1 ? '' : 's'} applied`,
      body:
        `The daily batch ran at ${formatLocal(at, zone)} (${zone}).\n` +
        `${n} product${n === 1 ? ' is' : 's are'} now visible in search.\n` +
        `Next batch: ${formatLocal(nextDailyBatch(at, zone), zone)} (${zone}).\n`,
    }));
    store.expireReplies(at.getTime() - this.o.idempotencyTtlMs);
    if (!this.o.quiet)
      this.o.log.info(
        `daily batch: ${applied} product${applied === 1 ? '' : 's'} applied; notice to ${adminEmail}`,
      );
    return { applied };
  }

  /** A file database that slept through a 00:15 catches up at once. */
  catchUp(startedAt: Date): void {
    const { store, zone } = this.o;
    if (!store.getMeta('createdAt')) store.setMeta('createdAt', String(startedAt.getTime()));
    const since = Number(store.getMeta('lastBatchAt') ?? store.getMeta('createdAt'));
    if (nextDailyBatch(new Date(since), zone).getTime() <= startedAt.getTime() && store.pendingCount() > 0)
      this.run();
  }

  schedule(): void {
    const from = Math.max(this.o.now().getTime(), this.firedFor);
    const target = nextDailyBatch(new Date(from), this.o.zone).getTime();
    const delay = Math.max(0, target - this.o.now().getTime());
    this.timer = setTimeout(
      () => {
        this.firedFor = target;
        try {
          this.run();
        } catch (err) {
          this.o.log.error(`daily batch failed: ${(err as Error).message}`);
        }
        this.schedule();
      },
      // setTimeout holds at most ~24.8 days; a daily batch is always closer.
      Math.min(delay + 50, 2 ** 31 - 1),
    );
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
