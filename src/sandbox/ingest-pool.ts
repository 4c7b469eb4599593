import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { WorkerPool } from '../shared/worker-pool.js';
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
  endpoint: IngestEndpoint;
  body: Uint8Array;
  appliesAt: string;
}

const WORKER_URL = new URL('./ingest-worker.js', import.meta.url);

export class IngestPool {
  private readonly minBytes: number;
  private readonly pool: WorkerPool<IngestRequest, BodyOutcome> | undefined;
  private closed = false;

  constructor(options: IngestOptions = {}) {
    this.minBytes = options.minBytes ?? 256 * 1024;
    const url = options.url ?? WORKER_URL;
    // Without the built worker (tests that run the sandbox from its sources) all stays here.
    if (existsSync(fileURLToPath(url))) {
      const size = options.count ?? Math.min(2, availableParallelism());
      // The server and its sockets keep the process alive, not an idle worker.
      this.pool = new WorkerPool({ size, url, unref: true, name: 'ingest' });
    }
  }

  /** The verdict on one body: on a worker when it is large, else here. */
  ingest(endpoint: IngestEndpoint, body: Buffer, appliesAt: string): Promise<BodyOutcome> {
    if (!this.pool || this.closed || body.length < this.minBytes)
      return Promise.resolve(processBody(endpoint, body, appliesAt));
    // A worker that dies fails its requests (500s, each logged) and is replaced on next use.
    return this.pool.run({ endpoint, body, appliesAt });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool?.close();
  }
}
