import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type BodyOutcome, type IngestEndpoint, processBody } from './product-body.js';

/**
 * Decoding, parsing and validating large bodies (products, and events) off the sandbox's thread: that work is
 * about three quarters of a product's cost, and on its own thread HTTP, idempotency and SQLite
 * keep going meanwhile (BENCHMARKS.md). Small bodies stay in-thread (a message costs more than
 * they do); without the built worker (tests run from the sources) everything does.
 */
export interface IngestOptions {
  /** Bodies of at least this many bytes go to a worker (default 256 KiB; 0: all; Infinity: none). */
  minBytes?: number;
  /** Workers, started on first use (default: one per core, at most 2; measured best on two cores). */
  count?: number;
  /** The worker's module (tests point it at the build). */
  url?: URL;
}

export interface IngestRequest {
  id: number;
  endpoint: IngestEndpoint;
  body: Uint8Array;
  appliesAt: string;
}

export type IngestResponse = { id: number; outcome: BodyOutcome } | { id: number; error: string };

const WORKER_URL = new URL('./ingest-worker.js', import.meta.url);

interface Pending {
  resolve(outcome: BodyOutcome): void;
  reject(err: Error): void;
}

/** A worker and the requests it has not answered yet. */
interface Slot {
  worker: Worker;
  pending: Map<number, Pending>;
}

export class IngestPool {
  private readonly minBytes: number;
  private readonly count: number;
  private readonly url: URL;
  private readonly available: boolean;
  private workers: Slot[] = [];
  private nextId = 0;
  private closed = false;

  constructor(options: IngestOptions = {}) {
    this.minBytes = options.minBytes ?? 256 * 1024;
    this.count = options.count ?? Math.min(2, availableParallelism());
    this.url = options.url ?? WORKER_URL;
    this.available = existsSync(fileURLToPath(this.url));
  }

  /** The verdict on one body: on a worker when it is large, else here. */
  ingest(endpoint: IngestEndpoint, body: Buffer, appliesAt: string): Promise<BodyOutcome> {
    if (!this.available || this.closed || body.length < this.minBytes)
      return Promise.resolve(processBody(endpoint, body, appliesAt));
    const slot = this.leastBusy();
    const id = this.nextId++;
    return new Promise<BodyOutcome>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, endpoint, body, appliesAt } satisfies IngestRequest);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const workers = this.workers;
    this.workers = [];
    await Promise.all(workers.map((w) => w.worker.terminate()));
  }

  private leastBusy(): Slot {
    if (this.workers.length < this.count) return this.start();
    let best = this.workers[0];
    for (const w of this.workers) if (w.pending.size < best.pending.size) best = w;
    return best;
  }

  private start(): Slot {
    const worker = new Worker(this.url);
    // The server and its sockets keep the process alive, not an idle worker.
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (m: IngestResponse) => {
      const p = slot.pending.get(m.id);
      if (!p) return;
      slot.pending.delete(m.id);
      if ('error' in m) p.reject(new Error(`ingest worker: ${m.error}`));
      else p.resolve(m.outcome);
    });
    // A worker that dies fails its requests (500s, each logged) and is replaced on next use.
    const fail = (err: Error) => {
      this.workers = this.workers.filter((w) => w !== slot);
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (!this.closed) fail(new Error(`ingest worker exited (${code})`));
    });
    this.workers.push(slot);
    return slot;
  }
}
