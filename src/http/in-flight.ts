/**
 * At most `limit` sends at once: callers wait for a slot before starting one, so reading
 * pauses while every slot is busy and memory stays flat. Tasks must not reject (each sender
 * accounts for its own errors).
 */
export class InFlight {
  private readonly tasks = new Set<Promise<void>>();

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.tasks.size;
  }

  /** Resolves when a slot is free, or at once when `stopped()` says no more will start. */
  async slot(stopped: () => boolean): Promise<void> {
    while (this.tasks.size >= this.limit && !stopped()) await Promise.race(this.tasks);
  }

  add(task: Promise<void>): void {
    const tracked: Promise<void> = task.finally(() => this.tasks.delete(tracked));
    this.tasks.add(tracked);
  }

  /** Waits for every task, including ones added while waiting. */
  async drain(): Promise<void> {
    while (this.tasks.size > 0) await Promise.race(this.tasks);
  }
}
