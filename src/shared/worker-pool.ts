import { parentPort, type ResourceLimits, type TransferListItem, Worker } from 'node:worker_threads';

/**
 * The one pool of worker threads (the feed's workers, the sandbox's ingest): tasks go to the
 * worker with the fewest in hand, each answer resolves its task's promise, and a worker that
 * fails or exits fails the tasks it held (docs/architecture.md, "Worker threads": why not a
 * library). Workers start on first use, up to `size`.
 */
export interface WorkerPoolOptions {
  size: number;
  /** The worker's module; it answers through `serveTasks`. */
  url: URL;
  workerData?: unknown;
  resourceLimits?: ResourceLimits;
  /** Idle workers do not keep the process alive (a server's sockets do). */
  unref?: boolean;
  /** For messages: "the feed worker stopped ...". */
  name: string;
}

/** Main thread -> worker. */
interface TaskMessage {
  id: number;
  task: unknown;
}

/** Worker -> main thread: the task's result, or why it threw. */
type AnswerMessage = { id: number; result: unknown } | { id: number; error: string; stack?: string };

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
}

interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

export class WorkerPool<Task, Result> {
  private slots: Slot[] = [];
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  /** Tasks sent and not answered yet. */
  get inFlight(): number {
    let n = 0;
    for (const s of this.slots) n += s.pending.size;
    return n;
  }

  /** Starts every worker now (their start-up then overlaps the caller's own). */
  start(): void {
    while (this.slots.length < this.options.size) this.startOne();
  }

  /** Runs `task` on the least busy worker; `transfer` moves buffers instead of copying them. */
  run(task: Task, transfer: TransferListItem[] = []): Promise<Result> {
    if (this.closed) return Promise.reject(new Error(`the ${this.options.name} pool is closed`));
    const slot = this.leastBusy();
    const id = this.nextId++;
    return new Promise<Result>((resolve, reject) => {
      slot.pending.set(id, { resolve: resolve as (r: unknown) => void, reject });
      slot.worker.postMessage({ id, task } satisfies TaskMessage, transfer);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const slots = this.slots;
    this.slots = [];
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private leastBusy(): Slot {
    let best: Slot | undefined;
    for (const s of this.slots) if (!best || s.pending.size < best.pending.size) best = s;
    // A new worker while there is room and none is idle.
    if (this.slots.length < this.options.size && (!best || best.pending.size > 0)) return this.startOne();
    return best!;
  }

  private startOne(): Slot {
    const { url, workerData, resourceLimits, unref, name } = this.options;
    const worker = new Worker(url, { workerData, resourceLimits });
    if (unref) worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (m: AnswerMessage) => {
      const p = slot.pending.get(m.id);
      if (!p) return;
      slot.pending.delete(m.id);
      if ('result' in m) p.resolve(m.result);
      else {
        const err = new Error(m.error);
        if (m.stack) err.stack = m.stack;
        p.reject(err);
      }
    });
    // A failed worker fails its tasks and is replaced on next use.
    const fail = (err: Error) => {
      this.slots = this.slots.filter((s) => s !== slot);
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`the ${name} worker stopped (exit code ${code})`));
    });
    this.slots.push(slot);
    return slot;
  }
}

/** A task's answer and the buffers to move with it. */
export interface Answer<Result> {
  result: Result;
  transfer?: TransferListItem[];
}

/**
 * In a worker module: answers the pool's tasks one at a time, in the order they came (the
 * next waits while an asynchronous task runs).
 */
export function serveTasks<Task, Result>(
  handle: (task: Task) => Answer<Result> | Promise<Answer<Result>>,
): void {
  const port = parentPort!;
  const queue: TaskMessage[] = [];
  let busy = false;
  const drain = async () => {
    busy = true;
    for (let m = queue.shift(); m; m = queue.shift()) {
      try {
        const { result, transfer } = await handle(m.task as Task);
        port.postMessage({ id: m.id, result } satisfies AnswerMessage, transfer ?? []);
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        port.postMessage({ id: m.id, error, stack: (err as Error)?.stack } satisfies AnswerMessage);
      }
    }
    busy = false;
  };
  port.on('message', (m: TaskMessage) => {
    queue.push(m);
    if (!busy) void drain();
  });
}
